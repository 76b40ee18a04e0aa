import Testing
import TickwireNetcode

@testable import TickwireUDPTransport

@Suite("ConnectionRequestBudget")
struct ConnectionRequestBudgetTests {
    let host = NetcodeAddress(ipv4: 127, 0, 0, 2, port: 40000)

    /// Which of `requests` (each an address and a time, in order) `budget` admits.
    private func admitted(_ budget: inout ConnectionRequestBudget, _ requests: [(NetcodeAddress, Double)]) -> [Bool] {
        requests.map { budget.admit($0.0, now: $0.1) }
    }

    @Test("a host's burst is admitted up to the limit, and the request one past it is dropped")
    func atTheLimitAndOnePast() {
        var budget = ConnectionRequestBudget(perSecond: 10)
        let burst = admitted(&budget, Array(repeating: (host, 100), count: 11))
        #expect(burst.prefix(10).allSatisfy { $0 }, "the first 10 requests are within the budget of 10: \(burst)")
        #expect(burst.last == false, "the 11th request in the same instant is past the budget of 10")
    }

    @Test("the budget refills at its rate: one request per tenth of a second at 10 a second, never more than 10 at once")
    func refills() {
        var budget = ConnectionRequestBudget(perSecond: 10)
        _ = admitted(&budget, Array(repeating: (host, 0), count: 10))
        let refill = admitted(&budget, [(host, 0.05), (host, 0.1), (host, 0.1)])
        #expect(refill == [false, true, false], "half a refill is no request, a tenth of a second is one: \(refill)")
        let afterQuiet = admitted(&budget, Array(repeating: (host, 60), count: 11))
        #expect(afterQuiet.filter { $0 }.count == 10, "a minute's quiet refills the burst to 10, not more: \(afterQuiet)")
    }

    @Test("a client playing by the standard (10 requests a second) is never dropped")
    func standardClientFits() {
        var budget = ConnectionRequestBudget(perSecond: 10)
        let requests = admitted(&budget, (0..<100).map { (host, Double($0) / Netcode.packetSendRate) })
        #expect(requests.allSatisfy { $0 }, "requests at the standard's rate were dropped: \(requests)")
    }

    @Test("the budget is per host: other ports of the host share it, other hosts have their own")
    func perHost() {
        var budget = ConnectionRequestBudget(perSecond: 2)
        let requests = admitted(
            &budget,
            [
                (NetcodeAddress(ipv4: 127, 0, 0, 2, port: 1), 0), (NetcodeAddress(ipv4: 127, 0, 0, 2, port: 2), 0),
                (NetcodeAddress(ipv4: 127, 0, 0, 2, port: 3), 0), (NetcodeAddress(ipv4: 127, 0, 0, 3, port: 1), 0),
            ])
        #expect(requests == [true, true, false, true], "a third port of a host with a budget of 2 is dropped, another host is not")
    }

    @Test("the table forgets hosts quiet for a second, and keeps the ones still being counted")
    func prunes() {
        var budget = ConnectionRequestBudget(perSecond: 10)
        _ = admitted(&budget, (0..<100).map { (NetcodeAddress(ipv4: 10, 0, 0, UInt8($0), port: 9), 0) })
        _ = budget.admit(host, now: 0.5)
        #expect(budget.trackedHosts == 101)
        budget.prune(now: 1.2)
        #expect(budget.trackedHosts == 1, "only the host heard from 0.7 s ago is left, not \(budget.trackedHosts)")
        budget.prune(now: 1.5)
        #expect(budget.trackedHosts == 0)
    }

    @Test("a budget below 1 is clamped to 1, so that a client can always connect")
    func clamped() {
        var budget = ConnectionRequestBudget(perSecond: 0)
        #expect(budget.perSecond == 1)
        #expect(admitted(&budget, [(host, 0), (host, 0)]) == [true, false])
    }
}

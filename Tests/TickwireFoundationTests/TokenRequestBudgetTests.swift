import Testing
import TickwireFoundation

@Suite("A request budget per source address (GET /udp-token, the matchmaker)")
struct TokenRequestBudgetTests {
    @Test("an address gets exactly its limit at once; one past it is refused, and others are counted apart")
    func atTheLimitAndOnePast() {
        var budget = TokenRequestBudget(limit: 32)
        for request in 1...32 {
            let admitted1 = budget.admit("127.0.0.2", now: 100)
            #expect(admitted1, "request \(request) of 32 should be admitted")
        }
        let admitted2 = budget.admit("127.0.0.2", now: 100)
        #expect(!admitted2, "the 33rd request at once is past the limit")
        let admitted3 = budget.admit("127.0.0.3", now: 100)
        #expect(admitted3, "another address has a budget of its own")
        let admitted4 = budget.admit(nil, now: 100)
        #expect(admitted4, "a request whose address is unknown is not budgeted")
    }

    @Test("the bucket refills at limit per window: one more after a window's share, all of them after a window")
    func refills() {
        var budget = TokenRequestBudget(limit: 10)
        for _ in 0..<10 { _ = budget.admit("127.0.0.2", now: 0) }
        let admitted5 = budget.admit("127.0.0.2", now: 0.5)
        #expect(!admitted5, "after 0.5 s, half a request has come back: still refused")
        let share = TokenRequestBudget.window / 10
        let admitted6 = budget.admit("127.0.0.2", now: share + 0.01)
        #expect(admitted6, "one request's share of the window brings one back")
        let admitted7 = budget.admit("127.0.0.2", now: share + 0.02)
        #expect(!admitted7)
        for request in 1...10 {
            let admitted8 = budget.admit("127.0.0.2", now: 100)
            #expect(admitted8, "after a long pause request \(request) of 10 is admitted")
        }
        let admitted9 = budget.admit("127.0.0.2", now: 100)
        #expect(!admitted9, "and never more than the limit at once")
    }

    @Test("limit 0 admits everything")
    func noLimit() {
        var budget = TokenRequestBudget(limit: 0)
        for _ in 0..<1000 {
            let admitted = budget.admit("127.0.0.2", now: 0)
            #expect(admitted)
        }
        #expect(budget.trackedAddresses == 0, "nothing is tracked without a limit")
    }

    @Test("full buckets are forgotten once more than the tracked maximum are held")
    func boundedMemory() {
        var budget = TokenRequestBudget(limit: 1)
        for index in 0..<TokenRequestBudget.maximumTrackedAddresses {
            _ = budget.admit("10.0.\(index / 256).\(index % 256)", now: 0)
        }
        #expect(budget.trackedAddresses == TokenRequestBudget.maximumTrackedAddresses)
        // A window later every bucket is full again: one more address forgets them all but itself.
        _ = budget.admit("10.1.0.0", now: TokenRequestBudget.window + 1)
        #expect(budget.trackedAddresses == 1, "got \(budget.trackedAddresses) addresses")
    }
}

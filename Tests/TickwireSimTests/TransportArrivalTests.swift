import Testing
import TickwireCodec

@testable import TickwireSim

/// When frames arrived: ``TransportConnection/drainArrivals()`` on every transport in the core.
@Suite("Transport arrivals")
struct TransportArrivalTests {
    @Test("a simulated connection says how long each frame waited since its link delivered it, on the network's clock")
    func simulatedWaits() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let client = network.connect(upstream: LinkConditions(latency: .milliseconds(10)))
        let server = try #require(network.acceptPending().first)
        client.send([1])
        clock.advance(by: .milliseconds(3))
        client.send([2])
        clock.advance(by: .milliseconds(20))
        let arrivals = server.drainArrivals()
        #expect(
            arrivals == [
                TransportArrival(.frame([1]), waited: .milliseconds(13)), TransportArrival(.frame([2]), waited: .milliseconds(10)),
            ],
            "arrived at 10 and 13 ms, drained at 23 ms; got \(arrivals)")
        client.close()
        clock.advance(by: .milliseconds(10))
        #expect(server.drainArrivals().map(\.event) == [.closed(.closedByPeer(code: .normalClosure))])
    }

    @Test("a transport that does not know when its frames arrived says they waited zero")
    func defaultWaitsZero() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 2)
        let client = PathConnection(network.connect(), path: nil)  // implements drain() alone
        let server = try #require(network.acceptPending().first)
        server.send([9])
        clock.advance(by: .milliseconds(5))
        #expect(client.drainArrivals() == [TransportArrival(.frame([9]))])
    }

    @Test("an inbox stamps each event as it is pushed: the wait covers the time until the drain, and drain() clears the stamps too")
    func inboxStamps() throws {
        let inbox = TransportInbox()
        let clock = MonotonicClock()
        inbox.push(.frame([1]))
        let pushed = clock.now
        clock.sleep(until: pushed + .milliseconds(20))
        inbox.push(.frame([2]))
        let before = clock.now
        let arrivals = inbox.drainArrivals()
        let elapsed = clock.now - pushed
        try #require(arrivals.map(\.event) == [.frame([1]), .frame([2])])
        #expect(
            arrivals[0].waited >= .milliseconds(20) && arrivals[0].waited <= elapsed + .milliseconds(1),
            "the first frame waited the 20 ms slept and at most what passed since; got \(arrivals[0].waited)")
        #expect(arrivals[1].waited <= clock.now - before + .milliseconds(1), "the second was drained as soon as it was pushed")
        inbox.push(.frame([3]))
        #expect(inbox.drain() == [.frame([3])])
        inbox.push(.closed(.connectionLost))
        inbox.push(.frame([4]))
        #expect(inbox.drainArrivals().map(\.event) == [.closed(.connectionLost)], "nothing after the close, and no stale stamp before it")
    }

    @Test("the bad-network wrapper says how long each frame waited since its delayed arrival")
    func impairedWaits() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 3)
        let impaired = ImpairedTransportConnection(
            wrapping: network.connect(), downstream: LinkConditions(latency: .milliseconds(30)), clock: clock)
        let server = try #require(network.acceptPending().first)
        server.send([7])
        #expect(impaired.drainArrivals().isEmpty, "taken in, 30 ms to go")
        clock.advance(by: .milliseconds(45))
        #expect(impaired.drainArrivals() == [TransportArrival(.frame([7]), waited: .milliseconds(15))])
    }
}

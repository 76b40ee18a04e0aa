import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("ClientSession.figures: what the player sees, on the virtual clock")
struct ClientSessionFiguresTests {
    @Test("a session that has heard nothing knows no ping, no snapshot and no age")
    func nothingYet() {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(40)))
        let figures = simulation.clients[0].figures
        #expect(figures.roundTrip == nil && figures.worstRoundTrip == nil, "no pong has come back")
        #expect(figures.newestTick == nil && figures.newestSnapshotAge == nil && figures.timeSinceLastSnapshot == nil)
        #expect(figures.framesRendered == 0 && figures.extrapolatedFrames == 0)
        #expect(figures.transport == nil && figures.loss == nil, "the session knows neither its transport's name nor a loss")
    }

    @Test("a downstream stall shows as a growing time since the last snapshot and a growing age, then clears")
    func stall() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        let link = LinkConditions(latency: .milliseconds(40))
        simulation.addClient(upstream: link, downstream: link)
        simulation.run(for: .seconds(2))
        // Take in what has arrived by now, so that the stall holds every later snapshot.
        simulation.clients[0].receive()
        let before = simulation.clients[0].figures
        let tickBefore = try #require(before.newestTick, "2 s in, the client has snapshots")
        let sinceBefore = try #require(before.timeSinceLastSnapshot)
        // A snapshot arrives every 50 ms at 20 Hz; the session notes it at its next frame (60 Hz).
        let interval = 0.05 + 1.0 / 60 + 1e-9
        #expect(sinceBefore <= interval, "at 20 Hz a snapshot arrives every 50 ms, the last one \(sinceBefore) s ago")
        let ageBefore = try #require(before.newestSnapshotAge)
        #expect(ageBefore < 0.2, "with 40 ms links the newest snapshot is young, not \(ageBefore) s old")

        simulation.connections[0].stall(for: .milliseconds(400), upstream: false, downstream: true)
        simulation.run(for: .milliseconds(300))
        let during = simulation.clients[0].figures
        let since = try #require(during.timeSinceLastSnapshot)
        let age = try #require(during.newestSnapshotAge)
        #expect(since >= 0.3 - 1e-9, "300 ms into the stall, the last snapshot arrived \(since) s ago")
        #expect(since <= 0.3 + interval, "and no longer than the stall plus one snapshot interval: \(since) s")
        #expect(age >= 0.3, "the newest snapshot aged through the stall: \(age) s")
        #expect(
            during.newestTick == tickBefore,
            "no snapshot arrived during the stall: tick \(String(describing: during.newestTick)) vs \(tickBefore)")
        #expect(during.time == before.time + .milliseconds(300), "the figures carry the frame's time")

        simulation.run(for: .milliseconds(500))
        let after = simulation.clients[0].figures
        #expect(try #require(after.timeSinceLastSnapshot) <= interval, "snapshots flow again after the stall")
        #expect(try #require(after.newestTick) > tickBefore + 10, "the held snapshots and new ones arrived")
    }

    @Test("a snapshot is timed from its arrival on the connection, not from the drain that takes it in")
    func timedFromArrival() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        let link = LinkConditions(latency: .milliseconds(40))
        simulation.addClient(upstream: link, downstream: link)
        simulation.run(for: .seconds(2))
        let client = simulation.clients[0]
        client.receive()
        let before = try #require(client.figures.newestTick)
        // The host ticks now and sends a snapshot; it arrives 40 ms later, and the client drains
        // only 100 ms from now, 60 ms after the arrival.
        simulation.host.advance()
        simulation.clock.advance(by: .milliseconds(100))
        client.receive()
        let figures = client.figures
        try #require(figures.newestTick.map { $0 > before } == true, "the snapshot sent now arrived during the 100 ms")
        let since = try #require(figures.timeSinceLastSnapshot)
        #expect(abs(since - 0.06) < 1e-6, "it arrived 60 ms before the drain that took it in, not at the drain: \(since) s")
    }

    @Test("the recent worst round trip shows a stall that the median of 16 pongs hides")
    func worstRoundTrip() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        let link = LinkConditions(latency: .milliseconds(20))
        simulation.addClient(upstream: link, downstream: link) { $0.pingInterval = .milliseconds(100) }
        simulation.run(for: .seconds(2))
        let calm = simulation.clients[0].figures
        let calmMedian = try #require(calm.roundTrip)
        let calmWorst = try #require(calm.worstRoundTrip)
        #expect(calm.roundTripSamples == 16, "20 pings in 2 s fill the window of 16")
        #expect(calmWorst < 0.15, "on a calm 20 ms link no round trip reaches 150 ms: \(calmWorst) s")
        #expect(calmWorst >= calmMedian)

        // Pings sent during the stall wait for its end: the first of them (sent within 100 ms of its
        // start) takes at least 340 ms; at most four of the 16 in the window are slow.
        simulation.connections[0].stall(for: .milliseconds(400))
        simulation.run(for: .milliseconds(700))
        let stalled = simulation.clients[0].figures
        let median = try #require(stalled.roundTrip)
        let worst = try #require(stalled.worstRoundTrip)
        #expect(median < 0.15, "the median still shows the calm pongs: \(median) s")
        #expect(worst >= 0.25, "the worst recent round trip shows the stall: \(worst) s")
    }

    @Test("extrapolated frames and frames drawn are totals since the start, counted per drawn frame")
    func totals() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30)))
        var drawn = 0
        simulation.onFrame = { index, _ in if index == 0 { drawn += 1 } }
        simulation.run(for: .seconds(2))
        let calm = simulation.clients[0].figures
        #expect(calm.framesRendered == drawn, "every frame that drew a view is counted: \(calm.framesRendered) vs \(drawn)")
        #expect(calm.framesRendered > 90, "about 60 frames a second once snapshots flow, got \(calm.framesRendered)")

        // A stall longer than the interpolation delay runs the buffer dry: the view extrapolates.
        simulation.connections[0].stall(for: .milliseconds(600), upstream: false, downstream: true)
        simulation.run(for: .seconds(1))
        let after = simulation.clients[0].figures
        #expect(after.framesRendered == drawn)
        #expect(after.extrapolatedFrames > calm.extrapolatedFrames, "the stall extrapolated frames: \(after.extrapolatedFrames)")
        #expect(after.extrapolatedFrames <= after.framesRendered)
        #expect(after.snapshotsReceived == simulation.clients[0].metrics.snapshotsReceived)
    }

    @Test("the documented use sees a stall: 300 ms into it, no snapshot for more than 250 ms")
    func documentedUse() {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30)))
        simulation.run(for: .seconds(1))
        let session = simulation.clients[0]
        var stalls: [Double] = []
        for stalled in [false, true] {
            if stalled { simulation.connections[0].stall(for: .milliseconds(500), upstream: false, downstream: true) }
            simulation.run(for: .milliseconds(300))
            _ = session.render()
            let figures = session.figures
            if let since = figures.timeSinceLastSnapshot, since > 0.25 { stalls.append(since) }
        }
        #expect(stalls.count == 1, "only the stalled frame warns: \(stalls)")
    }
}

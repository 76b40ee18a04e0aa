import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Compares a client's view with the server's quantized world: every entity present on
/// both sides with equal values (within `tolerance`), and the same entity set.
func mismatch(_ view: WorldView, _ snapshot: Snapshot, tolerance: Double = 1e-9) -> String? {
    let truth = WorldView(snapshot: snapshot, time: 0)
    guard view.entities.map(\.id) == truth.entities.map(\.id) else {
        return "entity sets differ: view \(view.entities.map(\.id)) vs server \(truth.entities.map(\.id))"
    }
    for (seen, real) in zip(view.entities, truth.entities) {
        for (a, b) in zip(seen.values, real.values) where abs(a - b) > tolerance {
            return "entity \(real.id): view \(seen.values) vs server \(real.values)"
        }
    }
    return nil
}

@Suite("Host and ClientSession on the simulated network")
struct HostSessionTests {
    @Test("clients' views converge to the server's quantized state under latency, jitter, a stall and a bandwidth cap")
    func convergence() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 30, freezeAt: 6))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(50)))
        simulation.addClient(
            upstream: LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(20)),
            downstream: LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(20)))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30), bandwidth: 4_000))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(40), jitter: .milliseconds(10)))
        simulation.run(for: .seconds(3))
        simulation.connections[3].stall(for: .milliseconds(800))
        simulation.run(for: .seconds(7))
        let server = try #require(simulation.room.history.snapshot(at: simulation.room.tick))
        for (index, client) in simulation.clients.enumerated() {
            #expect(client.status == .connected, "client \(index) should still be connected")
            let view = try #require(client.render(), "client \(index) has no view")
            #expect(mismatch(view, server) == nil, "client \(index): \(mismatch(view, server) ?? "")")
            #expect(client.metrics.snapshotsUndecodable == 0, "client \(index) failed to decode snapshots")
        }
    }

    @Test("the same seed gives the same bytes on the wire, run after run")
    func determinism() {
        func run(seed: UInt64) -> (UInt64, Int) {
            let simulation = Simulation(game: DotsGame(orbCount: 20), seed: seed)
            for index in 0..<3 {
                let jitter = LinkConditions(latency: .milliseconds(40 + Int64(index) * 20), jitter: .milliseconds(15))
                simulation.addClient(
                    upstream: jitter, downstream: jitter,
                    input: { _, tick in
                        let dx = Int8(Int(tick / 7 % 3) - 1)
                        let dy = Int8(Int(tick / 11 % 3) - 1)
                        return DotsGame.Input(dx: dx, dy: dy)
                    })
            }
            simulation.run(for: .seconds(3))
            return (simulation.network.wireDigest, simulation.network.deliveredBytes)
        }
        let first = run(seed: 42), second = run(seed: 42), other = run(seed: 43)
        #expect(first.1 > 10_000, "the run should carry real traffic, carried \(first.1) bytes")
        #expect(first.0 == second.0, "two runs with seed 42 put different bytes on the wire")
        #expect(first.0 != other.0, "seed 43 should change the jitter and so the traffic")
    }

    @Test("a late joiner receives full snapshots until its first acknowledgement arrives, then only deltas")
    func lateJoiner() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 10))
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30)))
        simulation.run(for: .seconds(2))
        let late = simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30)))
        simulation.run(for: .milliseconds(300))
        let id = try #require(simulation.clients[late].clientID)
        let early = try #require(simulation.room.clientMetrics(id))
        // One round trip (30 ms + one client tick) passes before the first ack: at most 2 ticks of full snapshots.
        #expect((1...2).contains(early.fullSnapshotsSent), "full snapshots only until the first ack, got \(early.fullSnapshotsSent)")
        simulation.run(for: .seconds(2))
        let later = try #require(simulation.room.clientMetrics(id))
        #expect(later.fullSnapshotsSent == early.fullSnapshotsSent, "after the first ack only deltas are sent")
        #expect(later.snapshotsSent > 40, "about 46 snapshots in 2.3 s at 20 Hz, got \(later.snapshotsSent)")
        #expect(simulation.clients[late].metrics.fullSnapshotsReceived == early.fullSnapshotsSent)
        #expect(simulation.clients[late].metrics.snapshotsUndecodable == 0)
        #expect(simulation.clients[0].latestSnapshot?.index(of: id) != nil, "the first client sees the late joiner's player")
    }

    @Test("a client whose acknowledgements fall behind the history receives a full snapshot again")
    func acknowledgementsBehindHistory() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 10)) { $0.historySize = 16 }
        simulation.addClient(upstream: LinkConditions(latency: .milliseconds(20)), downstream: LinkConditions(latency: .milliseconds(20)))
        simulation.run(for: .seconds(1))
        let id = try #require(simulation.clients[0].clientID)
        let before = try #require(simulation.room.clientMetrics(id)).fullSnapshotsSent
        // Acknowledgements stop reaching the host for 2 s (40 ticks > 16 of history).
        simulation.connections[0].stall(for: .seconds(2), upstream: true, downstream: false)
        simulation.run(for: .seconds(3))
        let metrics = try #require(simulation.room.clientMetrics(id))
        // The last ack fell out of the 16-tick history 0.8 s into the stall; from then until
        // a fresh ack arrives (the stall's end plus a round trip) every snapshot is full.
        #expect(metrics.fullSnapshotsSent > before, "the baseline fell out of the history: full snapshots again")
        #expect(
            metrics.fullSnapshotsSent - before <= 30,
            "full snapshots only while no usable ack exists, got \(metrics.fullSnapshotsSent - before)")
        simulation.run(for: .seconds(1))
        #expect(
            try #require(simulation.room.clientMetrics(id)).fullSnapshotsSent == metrics.fullSnapshotsSent,
            "once acks flow again, deltas resume")
        #expect(simulation.clients[0].metrics.snapshotsUndecodable == 0)
        #expect(simulation.clients[0].metrics.fullSnapshotsReceived == metrics.fullSnapshotsSent)
    }

    @Test("a client resuming within the grace period keeps its player; after it, it does not")
    func resumption() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4)) { $0.resumeGracePeriod = .seconds(2) }
        simulation.addClient(
            downstream: LinkConditions(latency: .milliseconds(20)),
            input: { _, tick in
                tick < 20 ? DotsGame.Input(dx: 1, dy: 0) : nil
            })
        simulation.run(for: .seconds(2))
        let client = simulation.clients[0]
        let id = try #require(client.clientID)
        let position = try #require(simulation.room.state.players[id])
        #expect(position.x > 9, "the player walked right for 20 ticks")

        simulation.connections[0].disconnect()
        simulation.run(for: .seconds(1))
        #expect(simulation.room.state.players[id] == position, "the player stays in the world during the grace period")
        #expect(!simulation.room.isConnected(id))
        let fullBefore = client.metrics.fullSnapshotsReceived
        simulation.reconnect(0, downstream: LinkConditions(latency: .milliseconds(20)))
        simulation.run(for: .seconds(1))
        #expect(client.status == .connected)
        #expect(client.clientID == id && client.wasResumed, "the resumed session has the same player")
        #expect(client.metrics.fullSnapshotsReceived > fullBefore, "after reconnecting the client starts from a full snapshot")
        #expect(client.metrics.snapshotsUndecodable == 0)
        let resumedPlayer = try #require(client.latestSnapshot.flatMap { $0.index(of: id) })
        #expect(
            abs((client.latestSnapshot?.double(at: resumedPlayer, field: 0) ?? 0) - position.x) < 0.01,
            "the resumed client sees its own player where it left it")

        simulation.connections[0].disconnect()
        simulation.run(for: .seconds(3))
        #expect(simulation.room.state.players[id] == nil, "after the grace period the player is gone")
        simulation.reconnect(0)
        simulation.run(for: .milliseconds(500))
        #expect(client.status == .connected)
        #expect(client.clientID != id && !client.wasResumed, "an expired session joins as a new player")
    }

    @Test("leaving removes the player at once; a silent client times out and may resume")
    func leaveAndTimeout() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 2)) { $0.clientTimeout = .seconds(1) }
        simulation.addClient()
        simulation.addClient()
        simulation.run(for: .milliseconds(500))
        let leaver = try #require(simulation.clients[0].clientID)
        let silent = try #require(simulation.clients[1].clientID)
        simulation.clients[0].leave()
        simulation.connections[1].stall(for: .seconds(3), upstream: true, downstream: false)
        simulation.run(for: .milliseconds(100))
        #expect(simulation.room.state.players[leaver] == nil, "a client that leaves loses its player at once")
        simulation.run(for: .seconds(2))
        #expect(!simulation.room.isConnected(silent), "a client silent for over 1 s is disconnected")
        #expect(simulation.room.state.players[silent] != nil, "but its player waits for it to resume")
    }

    @Test("a slow client gets snapshots skipped, never an unbounded queue, and recovers when the cap lifts")
    func slowClient() throws {
        let budget = 2_000
        let simulation = Simulation(game: DotsGame(orbCount: 60)) { $0.outboundBudgetBytes = budget }
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(20), bandwidth: 1_500))
        var largestQueue = 0
        var serverEnd: (any TransportConnection)?
        simulation.onStep = {
            if serverEnd == nil, let id = simulation.clients[0].clientID {
                serverEnd = simulation.room.clients[id]?.connection
            }
            largestQueue = max(largestQueue, serverEnd?.bufferedBytes ?? 0)
        }
        simulation.run(for: .seconds(4))
        let id = try #require(simulation.clients[0].clientID)
        let capped = try #require(simulation.room.clientMetrics(id))
        #expect(capped.snapshotsSkipped > 20, "at 1.5 kB/s most snapshots must be skipped, \(capped.snapshotsSkipped) were")
        #expect(
            largestQueue <= budget + capped.largestSnapshotBytes + 100,
            "the queue stays within the budget plus one frame (largest \(largestQueue) bytes)")
        simulation.connections[0].setConditions(downstream: LinkConditions(latency: .milliseconds(20)))
        simulation.run(for: .seconds(2))
        let skippedAfterCap = try #require(simulation.room.clientMetrics(id)).snapshotsSkipped
        simulation.run(for: .seconds(2))
        let recovered = try #require(simulation.room.clientMetrics(id))
        #expect(recovered.snapshotsSkipped == skippedAfterCap, "no more skips once the cap is lifted")
        let newest = simulation.clients[0].latestSnapshot?.tick ?? 0
        #expect(
            simulation.room.tick &- newest <= 2, "the client is up to date again (server tick \(simulation.room.tick), client \(newest))")
        #expect(simulation.clients[0].metrics.snapshotsUndecodable == 0)
    }
}

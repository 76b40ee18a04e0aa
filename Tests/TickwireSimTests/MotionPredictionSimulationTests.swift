import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Watches a simulation step by step: every snapshot a client decodes must equal what the host
/// sent it for that tick (the room's snapshot, or the client's view through an interest filter),
/// and it counts the predicted deltas the host coded against a baseline
/// whose own motion spans another number of ticks (so the prediction was scaled, §4.5.6).
private final class ExactWatch {
    let simulation: Simulation
    private var lastTick: [Int: UInt32] = [:]
    private var lastSentTick: [UInt32: UInt32] = [:]
    /// Snapshots compared with the room's.
    private(set) var checked = 0
    /// What differed, per client and tick.
    private(set) var mismatches: [String] = []
    /// The entity counts of the snapshots compared.
    private(set) var entityCounts: Set<Int> = []
    /// Predicted deltas sent against a baseline with motion of another span than their age.
    private(set) var scaledPredictions = 0

    init(_ simulation: Simulation) {
        self.simulation = simulation
    }

    func step() {
        let room = simulation.room
        for (index, client) in simulation.clients.enumerated() {
            guard let latest = client.latestSnapshot, lastTick[index] != latest.tick else { continue }
            lastTick[index] = latest.tick
            guard let id = client.clientID, let server = room.clients[id]?.sent.snapshot(at: latest.tick) else { continue }
            checked += 1
            entityCounts.insert(latest.count)
            if server != latest { mismatches.append("client \(index) (\(client.deltaCoding)) at tick \(latest.tick)") }
        }
        for (id, record) in room.clients where record.deltaCoding == .predictedEntropy {
            guard let newest = record.sent.newestTick, lastSentTick[id] != newest else { continue }
            lastSentTick[id] = newest
            let motion = record.sent.motion(at: newest)
            guard !motion.deltas.isEmpty else { continue }
            let baselineMotion = record.sent.motion(at: newest &- motion.span)
            if !baselineMotion.deltas.isEmpty && baselineMotion.span != motion.span { scaledPredictions += 1 }
        }
    }
}

/// Motion-predicted entropy deltas in a running host: exact worlds over loss and resumption,
/// and fewer bytes than plain entropy deltas for things in motion.
@Suite("Motion-predicted deltas in a simulation")
struct MotionPredictionSimulationTests {
    static let lossy = LinkConditions(
        latency: .milliseconds(40), jitter: .milliseconds(30), delivery: .unreliable, lossRate: 0.2, duplicationRate: 0.05,
        reorderRate: 0.05)

    /// Runs three clients (two of the host's entropy coding, one bit-packed) through a lossy link, a
    /// resumption and another lossy stretch until the orbs stop, watching every snapshot.
    private func run(prediction: Bool) -> (simulation: Simulation, watch: ExactWatch) {
        let simulation = Simulation(game: DotsGame(orbCount: 40, freezeAt: 6), seed: 5) {
            $0.entropyDeltas = true
            $0.motionPrediction = prediction
        }
        let watch = ExactWatch(simulation)
        simulation.onStep = { watch.step() }
        simulation.addClient()
        simulation.addClient(configure: { $0.offersEntropyDeltas = false })
        // A second client of the host's coding, whose losses differ: its baselines are reached
        // otherwise, so the room may share an encoding with the first only for equal baseline motions.
        simulation.addClient()
        simulation.run(for: .milliseconds(200))
        for connection in simulation.connections { connection.setConditions(upstream: Self.lossy, downstream: Self.lossy) }
        simulation.run(for: .seconds(2))
        for index in simulation.clients.indices { simulation.reconnect(index) }
        simulation.run(for: .milliseconds(300))
        for connection in simulation.connections { connection.setConditions(upstream: Self.lossy, downstream: Self.lossy) }
        simulation.run(for: .seconds(3))
        for connection in simulation.connections { connection.setConditions(upstream: .perfect, downstream: .perfect) }
        simulation.run(for: .milliseconds(1500))
        simulation.onStep = nil
        return (simulation, watch)
    }

    @Test("over loss, reordering and a resumption, predicted, plain-entropy and bit-packed clients decode exactly the host's snapshots")
    func exactOverLoss() throws {
        let predicted = run(prediction: true)
        let plain = run(prediction: false)
        #expect(predicted.simulation.clients[0].deltaCoding == .predictedEntropy)
        #expect(plain.simulation.clients[0].deltaCoding == .entropy)
        #expect(predicted.simulation.clients[1].deltaCoding == .bitPacked)
        for (name, outcome) in [("prediction on", predicted), ("prediction off", plain)] {
            let watch = outcome.watch
            #expect(watch.mismatches.isEmpty, "\(name): snapshots differ from the host's: \(watch.mismatches.prefix(5))")
            #expect(watch.checked > 200, "\(name): only \(watch.checked) snapshots compared")
            for (index, client) in outcome.simulation.clients.enumerated() {
                #expect(client.status == .connected, "\(name): client \(index) is \(client.status)")
                #expect(client.wasResumed, "\(name): client \(index) should have resumed its session")
                #expect(client.metrics.snapshotsUndecodable == 0, "\(name): client \(index) failed to decode a snapshot")
                #expect(outcome.simulation.connections[index].framesLost > 0 || index > 0, "\(name): the link should lose frames")
            }
        }
        #expect(predicted.watch.scaledPredictions > 10, "loss should make deltas whose age differs from the baseline's motion span")
        // The orbs have stopped: every client of both hosts holds the same world.
        let reference = try #require(predicted.simulation.clients[0].latestSnapshot)
        for client in predicted.simulation.clients + plain.simulation.clients {
            var world = try #require(client.latestSnapshot)
            world.tick = reference.tick
            let isSame = world == reference
            #expect(isSame, "a \(client.deltaCoding) client holds another world")
        }
    }

    @Test("through an interest filter, with orbs moving in and out of view over a lossy link, predicted clients decode exactly their views")
    func exactThroughInterestFilter() {
        var game = DotsGame(orbCount: 40)
        // Orbs circle (radius 5) around centres 20 apart from (-200, -200); the two players look
        // at different parts of that field, so orbs cross the edges of their views.
        game.spawn = { id in (id == 1 ? -150 : -130, -190) }
        let simulation = Simulation(game: game, seed: 9) {
            $0.entropyDeltas = true
            $0.interestFilter = .radius(28, schema: DotsGame.makeSchema())
        }
        let watch = ExactWatch(simulation)
        simulation.onStep = { watch.step() }
        simulation.addClient()
        simulation.addClient()
        simulation.run(for: .milliseconds(200))
        for connection in simulation.connections { connection.setConditions(upstream: Self.lossy, downstream: Self.lossy) }
        simulation.run(for: .seconds(5))
        simulation.onStep = nil
        #expect(simulation.clients.allSatisfy { $0.deltaCoding == .predictedEntropy })
        #expect(watch.mismatches.isEmpty, "snapshots differ from the views the host sent: \(watch.mismatches.prefix(5))")
        #expect(watch.checked > 100, "only \(watch.checked) snapshots compared")
        #expect(watch.entityCounts.count > 2, "orbs should enter and leave the views, saw counts \(watch.entityCounts.sorted())")
        #expect(watch.scaledPredictions > 0, "loss should make deltas whose age differs from the baseline's motion span")
        for client in simulation.clients { #expect(client.metrics.snapshotsUndecodable == 0) }
    }

    @Test("on a moving scene, predicted deltas take fewer snapshot bytes than plain entropy deltas, which take fewer than bit-packed ones")
    func fewerBytes() throws {
        var totals: [DeltaCoding: Int] = [:]
        for prediction in [true, false] {
            let simulation = Simulation(game: DotsGame(orbCount: 60), seed: 3) {
                $0.entropyDeltas = true
                $0.motionPrediction = prediction
            }
            simulation.addClient(configure: { $0.compressionModes = [] })
            simulation.addClient(configure: {
                $0.compressionModes = []
                $0.offersEntropyDeltas = false
            })
            simulation.run(for: .seconds(3))
            for client in simulation.clients {
                let id = try #require(client.clientID)
                let metrics = try #require(simulation.room.clientMetrics(id))
                #expect(metrics.snapshotsSent > 50)
                #expect(client.metrics.snapshotsUndecodable == 0)
                totals[client.deltaCoding] = metrics.snapshotBytesTotal
            }
        }
        let predicted = try #require(totals[.predictedEntropy])
        let entropy = try #require(totals[.entropy])
        let bitPacked = try #require(totals[.bitPacked])
        #expect(
            Double(predicted) < 0.8 * Double(entropy),
            "predicted \(predicted) B, plain entropy \(entropy) B, bit-packed \(bitPacked) B: prediction should save at least 20%")
        #expect(entropy < bitPacked, "plain entropy \(entropy) B, bit-packed \(bitPacked) B")
    }
}

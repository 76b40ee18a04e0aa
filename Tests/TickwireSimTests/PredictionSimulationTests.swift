import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Prediction, interpolation and interest on the simulated network")
struct PredictionSimulationTests {
    static let quantum = 0.01

    @Test(
        "with 100 ms latency and 20 ms jitter the predicted player matches the server within one quantum, and remote entities move smoothly"
    )
    func predictionAndSmoothness() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 12), seed: 5)
        let link = LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(20))
        simulation.addClient(
            upstream: link, downstream: link,
            input: { _, tick in
                // Walk a changing pattern: right, up, diagonal, stop, left...
                let phase = Int(tick / 15 % 5)
                let moves: [(Int8, Int8)] = [(1, 0), (0, 1), (1, -1), (0, 0), (-1, 0)]
                return DotsGame.Input(dx: moves[phase].0, dy: moves[phase].1)
            })
        let client = simulation.clients[0]
        var serverBySequence: [UInt32: (Double, Double)] = [:]
        var predictedBySequence: [UInt32: (Double, Double)] = [:]
        let kind = FieldKind.float(min: -500, max: 500, resolution: Self.quantum)
        simulation.onStep = {
            guard let id = client.clientID, let record = simulation.room.clients[id],
                let player = simulation.room.state.players[id]
            else { return }
            serverBySequence[record.lastAppliedSequence] = (
                kind.dequantize(kind.quantize(player.x)), kind.dequantize(kind.quantize(player.y))
            )
            if let state = client.predictedState, let local = client.localEntity(in: state) {
                predictedBySequence[client.sequence] = (local.values[0], local.values[1])
            }
        }
        var largestJump = 0.0
        var previous: WorldView?
        simulation.onFrame = { _, view in
            defer { previous = view }
            guard view.time > 1.5, let previous else { return }
            for entity in view.entities where entity.typeIndex == 1 {
                guard let before = previous.entity(id: entity.id) else { continue }
                let jump =
                    ((entity.values[0] - before.values[0]) * (entity.values[0] - before.values[0])
                    + (entity.values[1] - before.values[1]) * (entity.values[1] - before.values[1])).squareRoot()
                largestJump = max(largestJump, jump)
            }
        }
        simulation.run(for: .seconds(8))

        let compared = predictedBySequence.keys.filter { serverBySequence[$0] != nil && $0 > 0 }
        #expect(compared.count > 100, "should compare most of 160 inputs, compared \(compared.count)")
        var worst = 0.0
        for sequence in compared {
            let predicted = predictedBySequence[sequence]!, server = serverBySequence[sequence]!
            worst = max(worst, abs(predicted.0 - server.0), abs(predicted.1 - server.1))
        }
        #expect(worst <= Self.quantum + 1e-9, "the prediction strayed \(worst) from the server (one quantum is \(Self.quantum))")
        #expect(
            client.metrics.predictionCorrections <= 5,
            "a deterministic step should need few corrections, needed \(client.metrics.predictionCorrections)")

        // Orbs move at 5 units/s: 0.083 per 60 Hz frame, up to 0.088 with a 5% faster playback.
        let bound = 2 * 5.0 / 60 + 2 * Self.quantum
        #expect(largestJump > 0.05, "the orbs should be moving in the view")
        #expect(largestJump <= bound, "an interpolated orb jumped \(largestJump) between frames; the bound is \(bound)")
        #expect(client.metrics.interpolationDelay >= 0.1, "two 50 ms intervals at least, got \(client.metrics.interpolationDelay)")
        #expect(
            client.metrics.roundTrip > 0.19 && client.metrics.roundTrip < 0.3,
            "round trip about 200–240 ms + a tick, got \(client.metrics.roundTrip)")
    }

    @Test("with an interest radius entities appear and disappear as they enter and leave the view")
    func interestRadius() throws {
        var game = DotsGame(orbCount: 3)  // orbs circle around (-200, -200): never in view
        game.spawn = { id in (id == 1 ? 0 : 10, 0) }
        let simulation = Simulation(game: game) { configuration in
            configuration.interestFilter = .radius(20, schema: DotsGame.makeSchema())
        }
        simulation.addClient(downstream: LinkConditions(latency: .milliseconds(30)))
        simulation.addClient(
            downstream: LinkConditions(latency: .milliseconds(30)),
            input: { _, tick in
                // Walk right for 3 s (to x = 40), then back left for 3 s.
                tick < 60 ? DotsGame.Input(dx: 1, dy: 0) : (tick < 120 ? DotsGame.Input(dx: -1, dy: 0) : nil)
            })
        let watcher = simulation.clients[0]
        var checked = 0, visibleTicks = 0, hiddenTicks = 0, lastTick: UInt32 = 0
        var failures: [String] = []
        simulation.onStep = {
            guard let snapshot = watcher.latestSnapshot, snapshot.tick != lastTick,
                let truth = simulation.room.history.snapshot(at: snapshot.tick),
                let walker = simulation.clients[1].clientID, let at = truth.index(of: walker)
            else { return }
            lastTick = snapshot.tick
            let distance = abs(truth.double(at: at, field: 0))
            let seen = snapshot.index(of: walker) != nil
            if seen != (distance <= 20) { failures.append("tick \(snapshot.tick): distance \(distance), seen \(seen)") }
            if snapshot.entityIDs.contains(where: { $0 >= DotsGame.orbBase }) {
                failures.append("tick \(snapshot.tick): a far orb is visible")
            }
            checked += 1
            if seen { visibleTicks += 1 } else { hiddenTicks += 1 }
        }
        simulation.run(for: .seconds(7))
        #expect(failures.isEmpty, "visibility must follow the distance: \(failures.prefix(3))")
        #expect(checked > 100)
        #expect(
            visibleTicks > 20 && hiddenTicks > 20, "the walker should be seen (\(visibleTicks) ticks) and unseen (\(hiddenTicks) ticks)")
        #expect(watcher.metrics.snapshotsUndecodable == 0)
        let view = try #require(watcher.render())
        #expect(view.entity(id: simulation.clients[1].clientID ?? 0) != nil, "back within the radius at the end")
    }

    @Test("schema and protocol version mismatches, unknown rooms and full rooms are rejected with their reasons")
    func rejections() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) { $0.roomCapacity = 1 }
        simulation.addClient()
        simulation.addClient(game: DotsGame(orbCount: 1, extraField: true))
        simulation.addClient(configure: { $0.protocolVersion = 99 })
        simulation.addClient(configure: { $0.room = "lobby" })
        simulation.addClient()
        simulation.run(for: .milliseconds(200))
        let statuses = simulation.clients.map(\.status)
        #expect(statuses[0] == .connected)
        guard case .rejected(.schemaMismatch, let schemaText) = statuses[1] else {
            Issue.record("a different schema must be rejected as a schema mismatch, got \(statuses[1])")
            return
        }
        #expect(
            schemaText.contains(String(DotsGame.makeSchema().fingerprint, radix: 16)), "the reason names the fingerprints: \(schemaText)")
        guard case .rejected(.versionMismatch, let versionText) = statuses[2] else {
            Issue.record("protocol 99 must be rejected as a version mismatch, got \(statuses[2])")
            return
        }
        #expect(versionText.contains("99") && versionText.contains("1"), "the reason names both versions: \(versionText)")
        guard case .rejected(.unknownRoom, _) = statuses[3] else {
            Issue.record("an unknown room must be rejected, got \(statuses[3])")
            return
        }
        guard case .rejected(.roomFull, _) = statuses[4] else {
            Issue.record("a full room must reject, got \(statuses[4])")
            return
        }
        #expect(simulation.host.rejections.values.reduce(0, +) == 4)
    }

    @Test("rooms are separate worlds chosen by name")
    func rooms() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) { $0.rooms = ["red", "blue"] }
        simulation.addClient(configure: { $0.room = "red" })
        simulation.addClient(configure: { $0.room = "blue" })
        simulation.addClient(configure: { $0.room = "red" })
        simulation.run(for: .milliseconds(300))
        let red = try #require(simulation.host.room(named: "red")), blue = try #require(simulation.host.room(named: "blue"))
        #expect(red.clientIDs.count == 2 && blue.clientIDs.count == 1)
        let blueID = try #require(simulation.clients[1].clientID)
        #expect(simulation.clients[0].latestSnapshot?.index(of: blueID) == nil, "red does not see blue's player")
    }

    @Test("a host with 1000 clients on the simulated network runs its ticks without error")
    func thousandClients() throws {
        var game = DotsGame(orbCount: 0)
        game.spawn = { id in (Double(id % 32) * 30 - 480, Double(id / 32) * 30 - 480) }
        let simulation = Simulation(game: game) { configuration in
            configuration.roomCapacity = 1000
            configuration.interestFilter = .radius(40, schema: DotsGame.makeSchema())
        }
        for _ in 0..<1000 {
            simulation.addClient(downstream: LinkConditions(latency: .milliseconds(20)), configure: { $0.predictsLocalPlayer = false })
        }
        simulation.run(for: .milliseconds(400))
        let metrics = simulation.room.metrics
        #expect(metrics.connectedClients == 1000)
        #expect(metrics.ticks.ticksRun >= 8)
        let starved = simulation.clients.filter { $0.metrics.snapshotsReceived < 5 }.count
        let undecodable = simulation.clients.reduce(0) { $0 + $1.metrics.snapshotsUndecodable }
        #expect(starved == 0, "\(starved) clients received fewer than 5 snapshots")
        #expect(undecodable == 0)
    }
}

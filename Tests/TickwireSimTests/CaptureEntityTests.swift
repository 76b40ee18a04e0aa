import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

/// A test game that plays `Base` but leaves out `captureEntity(of:in:into:)`, so that it takes
/// the default of ``Game``: capture the whole world, pick the entity out.
struct WholeWorldCapture<Base: Game>: Game {
    let base: Base

    var schema: Schema { base.schema }
    var compensatesLag: Bool { base.compensatesLag }
    func makeWorld(room: String) -> Base.State { base.makeWorld(room: room) }
    func step(_ state: Base.State, inputs: [UInt32: Base.Input], dt: Double) -> Base.State {
        base.step(state, inputs: inputs, dt: dt)
    }
    func step(_ state: Base.State, inputs: [UInt32: Base.Input], dt: Double, lag: LagCompensation) -> Base.State {
        base.step(state, inputs: inputs, dt: dt, lag: lag)
    }
    func teleportedEntities(in state: Base.State) -> [UInt32] { base.teleportedEntities(in: state) }
    func addPlayer(_ player: UInt32, to state: Base.State) -> Base.State { base.addPlayer(player, to: state) }
    func addPlayer(_ player: UInt32, payload: [UInt8], to state: Base.State) -> Base.State {
        base.addPlayer(player, payload: payload, to: state)
    }
    func removePlayer(_ player: UInt32, from state: Base.State) -> Base.State { base.removePlayer(player, from: state) }
    func capture(_ state: Base.State, into snapshot: inout Snapshot) throws(SnapshotError) { try base.capture(state, into: &snapshot) }
    func restore(from snapshot: Snapshot) -> Base.State { base.restore(from: snapshot) }
    func entityID(of player: UInt32, in state: Base.State) -> UInt32? { base.entityID(of: player, in: state) }
    func encode(_ input: Base.Input) -> [UInt8] { base.encode(input) }
    func decodeInput(_ bytes: [UInt8]) -> Base.Input? { base.decodeInput(bytes) }
}

@Suite("Game.captureEntity: the prediction path's one-entity read")
struct CaptureEntityTests {
    /// Compares the game's narrow path with the default (whole-world) one for `player` in `state`.
    ///
    /// - Returns: Whether the player had an entity (by both paths); records an issue when they differ.
    static func compare<G: Game>(_ game: G, player: UInt32, in state: G.State, _ context: String) throws -> Bool {
        var narrow = QuantizedEntity(schema: game.schema)
        var whole = QuantizedEntity(schema: game.schema)
        let hasNarrow = try game.captureEntity(of: player, in: state, into: &narrow)
        let hasWhole = try WholeWorldCapture(base: game).captureEntity(of: player, in: state, into: &whole)
        #expect(hasNarrow == hasWhole, "\(context): player \(player) has an entity by one path only (narrow \(hasNarrow))")
        if hasNarrow && hasWhole {
            #expect(narrow == whole, "\(context): player \(player)'s entity differs: narrow \(narrow), whole world \(whole)")
        }
        return hasNarrow && hasWhole
    }

    @Test("DotsGame: the narrow path gives exactly the whole world's entity, on the host and in each prediction, over a seeded run")
    func dotsGameMatches() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 30), seed: 11)
        let link = LinkConditions(latency: .milliseconds(60), jitter: .milliseconds(15))
        for index in 0..<3 {
            simulation.addClient(
                upstream: link, downstream: link,
                input: { _, tick in
                    var rng = SplitMix64(seed: UInt64(index) &* 977 &+ tick / 10)
                    return DotsGame.Input(dx: Int8(rng.next() % 3) - 1, dy: Int8(rng.next() % 3) - 1)
                })
        }
        var compared = 0, steps = 0
        var failure: (any Error)?
        simulation.onStep = {
            steps += 1
            guard steps % 7 == 0, failure == nil else { return }
            do {
                let state = simulation.room.state
                for player in UInt32(0)...4 {
                    if try Self.compare(simulation.game, player: player, in: state, "host step \(steps)") { compared += 1 }
                }
                for client in simulation.clients {
                    guard let me = client.clientID, let predicted = client.predictedState else { continue }
                    if try Self.compare(simulation.game, player: me, in: predicted, "client \(me)'s prediction, step \(steps)") {
                        compared += 1
                    }
                }
            } catch {
                failure = error
            }
        }
        simulation.run(for: .seconds(4))
        if let failure { throw failure }
        #expect(compared > 1_000, "the run should compare thousands of entities, compared \(compared)")
    }

    @Test("RangeGame: the narrow path gives exactly the whole world's entity, and none for a player not in the world")
    func rangeGameMatches() throws {
        let game = RangeGame(motion: .respawn)
        var state = game.makeWorld(room: "")
        for player in UInt32(1)...5 { state = game.addPlayer(player, to: state) }
        var rng = SplitMix64(seed: 21)
        var compared = 0
        for _ in 0..<200 {
            var inputs: [UInt32: RangeGame.Input] = [:]
            for player in state.players where rng.next() % 2 == 0 {
                inputs[player] = RangeGame.Input(fires: true, aimX: Double(Int(rng.next() % 41) - 20))
            }
            state = game.step(state, inputs: inputs, dt: 0.05)
            for player in UInt32(0)...6 {
                if try Self.compare(game, player: player, in: state, "tick") { compared += 1 }
            }
            let targetHasEntity = try Self.compare(game, player: RangeGame.targetID, in: state, "the target")
            #expect(!targetHasEntity, "the target is no player's entity")
        }
        #expect(compared == 200 * 5, "each of the five players is compared every tick, compared \(compared)")
    }

    @Test("a game without the narrow path (the whole-world default) predicts and displays exactly as one with it")
    func defaultPathStillWorks() throws {
        let link = LinkConditions(latency: .milliseconds(80), jitter: .milliseconds(20))
        func input(_: Int, tick: UInt64) -> DotsGame.Input {
            let moves: [(Int8, Int8)] = [(1, 0), (0, 1), (1, -1), (0, 0), (-1, 0)]
            let move = moves[Int(tick / 12 % 5)]
            return DotsGame.Input(dx: move.0, dy: move.1)
        }
        let narrow = Simulation(game: DotsGame(orbCount: 12), seed: 5)
        let whole = TickSimulation(game: WholeWorldCapture(base: DotsGame(orbCount: 12)), seed: 5)
        narrow.addClient(upstream: link, downstream: link, input: input)
        whole.addClient(upstream: link, downstream: link, input: input)
        var narrowFrames: [EntityView?] = [], wholeFrames: [EntityView?] = []
        narrow.onFrame = { _, view in
            let local = narrow.clients[0].predictedLocalEntity
            #expect(local == nil || view.entity(id: local?.id ?? 0) == local, "the rendered view shows the predicted player")
            narrowFrames.append(local)
        }
        whole.onFrame = { _, view in
            let local = whole.clients[0].predictedLocalEntity
            #expect(local == nil || view.entity(id: local?.id ?? 0) == local, "the rendered view shows the predicted player")
            wholeFrames.append(local)
        }
        narrow.run(for: .seconds(5))
        whole.run(for: .seconds(5))
        let predictedFrames = wholeFrames.compactMap { $0 }.count
        #expect(predictedFrames > 200, "the default path should predict the player in most of 300 frames, did in \(predictedFrames)")
        #expect(narrowFrames.count == wholeFrames.count, "both runs render the same frames")
        let firstDifference = zip(narrowFrames, wholeFrames).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "the two paths show different players from frame \(firstDifference ?? -1)")
        #expect(
            narrow.clients[0].metrics.predictionCorrections == whole.clients[0].metrics.predictionCorrections,
            "both paths see the same corrections")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation

@testable import ArenaGame

@Suite("ArenaSchema")
struct ArenaSchemaTests {
    @Test("a captured world reads back as the same players and bullets, to a quantum")
    func captureAndRead() throws {
        var world = ArenaWorld(seed: 2)
        ArenaRules.addHuman(id: 1, named: "Ann-1", to: &world)
        ArenaRules.addBot(named: "bot_7", seed: 1, to: &world)
        world.bots.removeAll()  // keep the bot still, so only player 1 acts
        world.players[0].score = 12
        world.players[1].health = 35
        ArenaRules.step(&world, inputs: [1: ArenaInput(moveX: 1, moveY: 0, fires: true)], dt: 1.0 / 30)
        #expect(world.bullets.count == 1)

        var snapshot = Snapshot(schema: ArenaSchema.schema, tick: 0)
        try ArenaSchema.capture(world, into: &snapshot)
        var scene = ArenaScene(map: world.map)
        ArenaSchema.fill(&scene, from: snapshot)
        #expect(scene.players.map(\.name) == ["Ann-1", "bot_7"])
        #expect(scene.players.map(\.isBot) == [false, true])
        #expect(scene.players[0].score == 12 && scene.players[1].health == 35)
        for (drawn, player) in zip(scene.players, world.players) {
            #expect(abs(drawn.x - player.x) <= 1.0 / 128 && abs(drawn.y - player.y) <= 1.0 / 128)
        }
        let bullet = try #require(scene.bullets.first)
        #expect(abs(bullet.x - world.bullets[0].x) <= 1.0 / 128)
    }

    @Test("an arena snapshot survives the delta codec")
    func deltaRoundTrip() throws {
        var world = ArenaWorld(seed: 4)
        for index in 1...4 { ArenaRules.addHuman(id: UInt32(index), named: "p\(index)", to: &world) }
        let codec = SnapshotCodec(schema: ArenaSchema.schema)
        var before = Snapshot(schema: ArenaSchema.schema, tick: 0)
        try ArenaSchema.capture(world, into: &before)
        ArenaRules.step(&world, inputs: [1: ArenaInput(moveX: 1, moveY: 1, fires: true)], dt: 1.0 / 30)
        var after = Snapshot(schema: ArenaSchema.schema, tick: 0)
        try ArenaSchema.capture(world, into: &after)
        let delta = try codec.encode(after, against: before)
        #expect(try codec.decode(delta, baseline: before) == after)
        #expect(delta.count < 40, "one moved player and one new bullet should cost a few dozen bytes, not \(delta.count)")
    }

    @Test("the arena's one-player capture gives exactly the entity of a whole-world capture, over a seeded game with deaths")
    func captureEntityMatchesWholeWorld() throws {
        let game = Arena(botCount: 10)
        var world = game.makeWorld(room: "capture-entity")
        for (player, name) in [(UInt32(1), "Ann-1"), (2, "a_very_long_name_indeed"), (3, "")] {
            world = game.addPlayer(player, payload: Array(name.utf8), to: world)
        }
        // A name the hello's filter would not let through: the characters that are not single ASCII bytes.
        ArenaRules.addHuman(id: 5, named: "Zo\u{eb}\r\nx\u{1F600}e\u{301}\r-1", to: &world)
        ArenaRules.addHuman(id: 6, named: "a\r\nb\rc-d_efgh", to: &world)  // ASCII, but CR LF is one character
        var rng = SplitMix64(seed: 0xA2E4)
        var compared = 0, deadCompared = 0
        for tick in 0..<600 {
            var inputs: [UInt32: ArenaInput] = [:]
            for player in UInt32(1)...3 {
                inputs[player] = ArenaInput(moveX: Int(rng.next() % 3) - 1, moveY: Int(rng.next() % 3) - 1, fires: rng.next() % 3 == 0)
            }
            world = game.step(world, inputs: inputs, dt: 1.0 / 30)
            var hostSnapshot = Snapshot(schema: game.schema, tick: world.tick)
            try game.capture(world, into: &hostSnapshot)
            // The host's world, and the world a client restores from the snapshot and predicts on.
            for (label, state) in [("host", world), ("restored", game.restore(from: hostSnapshot))] {
                var snapshot = Snapshot(schema: game.schema, tick: world.tick)
                try game.capture(state, into: &snapshot)
                for player in state.players.map(\.id) + [4, ArenaWorld.firstBulletID] {
                    var narrow = QuantizedEntity(schema: game.schema)
                    let found = try game.captureEntity(of: player, in: state, into: &narrow)
                    let index = snapshot.index(of: player).flatMap { snapshot.typeIndex(at: $0) == ArenaSchema.playerType ? $0 : nil }
                    #expect(found == (index != nil), "tick \(tick), \(label): player \(player) found \(found) by the narrow path")
                    guard found, let index else { continue }
                    var whole = QuantizedEntity(schema: game.schema)
                    whole.copy(entityAt: index, from: snapshot)
                    #expect(narrow == whole, "tick \(tick), \(label): player \(player) differs: narrow \(narrow), whole world \(whole)")
                    compared += 1
                    if whole.integer(field: ArenaSchema.PlayerField.health) == 0 { deadCompared += 1 }
                }
            }
        }
        #expect(compared > 600 * 2 * 15 - 100, "every player compared every tick, compared \(compared)")
        #expect(deadCompared > 0, "the run should include dead players (health 0)")
    }
}

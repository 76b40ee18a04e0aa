import Testing
import TickwireCodec

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
}

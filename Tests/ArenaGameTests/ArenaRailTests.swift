import Testing
import Tickwire

@testable import ArenaGame

/// The rail (`e`): an instant ray along the facing, stopped by walls, that kills and scores.
/// Lag compensation itself is shown in TickwireSim's `Lag` suites; here the rail runs on the
/// present world, as a client's prediction does.
@Suite("Arena rail")
struct ArenaRailTests {
    /// Ann (id 1) at 2.5,1.5 facing right, Bob (id 2) on her line at `targetX`.
    static func range(targetX: Double = 8.5, targetY: Double = 1.5) -> ArenaWorld {
        var world = ArenaWorld(seed: 3)
        ArenaRules.addHuman(id: 1, named: "ann", to: &world)
        ArenaRules.addHuman(id: 2, named: "bob", to: &world)
        world.players[0].x = 2.5; world.players[0].y = 1.5; world.players[0].heading = 0
        world.players[1].x = targetX; world.players[1].y = targetY
        return world
    }

    static let rail = ArenaInput(moveX: 0, moveY: 0, fires: false, firesRail: true)
    static let dt = 1.0 / 30

    @Test("a rail at a player in line kills it at once, scores, and leaves a trace that ends at the target")
    func hitKillsAndScores() throws {
        var world = Self.range()
        ArenaRules.step(&world, inputs: [1: Self.rail], dt: Self.dt)
        #expect(world.player(2)?.isAlive == false)
        #expect(world.player(1)?.score == 1)
        let trace = try #require(world.rails.first)
        #expect(trace.ownerID == 1 && trace.x == 2.5 && abs(trace.endX - 8.5) < 1e-9 && trace.endY == 1.5)
    }

    @Test("a player off the line is missed, and the ray runs on to the wall")
    func missRunsToWall() throws {
        var world = Self.range(targetY: 2.5)
        ArenaRules.step(&world, inputs: [1: Self.rail], dt: Self.dt)
        #expect(world.player(2)?.health == ArenaRules.maximumHealth)
        let trace = try #require(world.rails.first)
        #expect(world.map.isWall(x: trace.endX + 0.1, y: trace.endY), "the trace stops at the first wall, at x \(trace.endX)")
    }

    @Test("the rail has its cool-down: held for 1.5 s it fires once, then again")
    func coolDown() {
        var world = Self.range(targetY: 2.5)
        var shots = 0
        for _ in 0..<Int(ArenaRules.railInterval / Self.dt) + 1 {
            let before = world.nextBulletID
            ArenaRules.step(&world, inputs: [1: Self.rail], dt: Self.dt)
            if world.nextBulletID != before { shots += 1 }
        }
        #expect(shots == 2, "one shot, 45 ticks of cool-down, then the second")
    }

    @Test("traces last a quarter second and travel in snapshots as rail entities")
    func traceLifetimeAndSnapshot() throws {
        var world = Self.range(targetY: 2.5)
        ArenaRules.step(&world, inputs: [1: Self.rail], dt: Self.dt)
        var snapshot = Snapshot(schema: ArenaSchema.schema, tick: 1)
        try ArenaSchema.capture(world, into: &snapshot)
        var scene = ArenaScene(map: world.map)
        ArenaSchema.fill(&scene, from: snapshot)
        #expect(scene.rails.count == 1)
        for _ in 0..<Int((ArenaRules.railTraceTime / Self.dt).rounded()) { ArenaRules.step(&world, inputs: [:], dt: Self.dt) }
        #expect(world.rails.isEmpty)
    }

    @Test("a respawn is reported as a teleport, for lag compensation")
    func respawnIsTeleport() {
        var world = Self.range()
        ArenaRules.step(&world, inputs: [1: Self.rail], dt: Self.dt)
        var teleported: [UInt32] = []
        for _ in 0..<Int((ArenaRules.respawnDelay / Self.dt).rounded()) + 1 {
            ArenaRules.step(&world, inputs: [:], dt: Self.dt)
            teleported += Arena().teleportedEntities(in: world)
        }
        #expect(teleported == [2])
    }

    @Test("the rail bit survives the input byte; the two bits above it still read as idle")
    func inputBit() throws {
        #expect(ArenaInput(decoding: Self.rail.encoded) == Self.rail)
        #expect(Self.rail.encoded == [0x25])
        #expect(ArenaInput(decoding: [0x45]) == .idle)
        #expect(try ArenaScript("e2").steps == [ArenaScript.Step(input: Self.rail, ticks: 2)])
    }

    @Test("a script's E hunts bots: it rails a bot on one of its eight lines, else steps across the nearest bot's line")
    func scriptAims() throws {
        #expect(try ArenaScript("E3").steps == [ArenaScript.Step(input: .idle, ticks: 3, aimsAtBots: true)])
        var scene = ArenaScene(map: .standard)
        scene.localPlayerID = 1
        let me = ArenaScene.Player(id: 1, name: "rae", x: 10.5, y: 10.5, heading: 0, health: 100, score: 0, isBot: false)
        func bot(_ x: Double, _ y: Double) -> ArenaScene.Player {
            ArenaScene.Player(id: ArenaWorld.firstBotID, name: "Ada", x: x, y: y, heading: 0, health: 100, score: 0, isBot: true)
        }
        scene.players = [me, bot(13.5, 13.6)]
        #expect(ArenaScript.aim(in: scene, map: scene.map) == ArenaInput(moveX: 1, moveY: 1, fires: false, firesRail: true))
        scene.players = [me, bot(14.5, 11.5)]
        #expect(
            ArenaScript.aim(in: scene, map: scene.map) == ArenaInput(moveX: 0, moveY: 1, fires: false), "one row off: step onto its row")
    }

    @Test("e in the terminal fires the rail once, on the next tick")
    func railKey() {
        var keys = HeldKeys()
        keys.press(.character("e"), at: 0)
        #expect(keys.input(at: 0.01).firesRail)
        #expect(!keys.input(at: 0.05).firesRail)
    }
}

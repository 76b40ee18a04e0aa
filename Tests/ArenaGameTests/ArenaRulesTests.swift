import Testing

@testable import ArenaGame

@Suite("ArenaRules")
struct ArenaRulesTests {
    @Test("a player moves at its speed and stops at walls")
    func movementAndWalls() throws {
        var world = ArenaWorld(seed: 7)
        ArenaRules.addHuman(id: 1, named: "ann", to: &world)
        let id: UInt32 = 1
        var player = try #require(world.player(id))
        player.x = 1.5
        player.y = 1.5
        let dt = 1.0 / 30
        ArenaRules.move(&player, by: ArenaInput(moveX: 1, moveY: 0, fires: false), dt: dt, on: world.map)
        #expect(abs(player.x - (1.5 + ArenaRules.playerSpeed * dt)) < 1e-9)
        for _ in 0..<300 { ArenaRules.move(&player, by: ArenaInput(moveX: -1, moveY: -1, fires: false), dt: dt, on: world.map) }
        #expect(player.x >= 1 + ArenaRules.playerRadius - 1e-9, "the left wall stops the player")
        #expect(player.y >= 1 + ArenaRules.playerRadius - 1e-9, "the top wall stops the player")
    }

    @Test("a bullet fired at a player in line hits it, and four hits kill and score")
    func shootingKills() throws {
        var world = ArenaWorld(seed: 3)
        let shooter: UInt32 = 1, target: UInt32 = 2
        ArenaRules.addHuman(id: target, named: "b", to: &world)
        ArenaRules.addHuman(id: shooter, named: "a", to: &world)
        #expect(world.players.map(\.id) == [1, 2], "players stay sorted by id")
        world.players[0].x = 2.5; world.players[0].y = 1.5; world.players[0].heading = 0
        world.players[1].x = 8.5; world.players[1].y = 1.5
        let dt = 1.0 / 30
        var ticks = 0
        while (world.player(target)?.isAlive ?? false) && ticks < 300 {
            ArenaRules.step(&world, inputs: [shooter: ArenaInput(moveX: 0, moveY: 0, fires: true)], dt: dt)
            // Keep both in place so every shot travels the same line.
            world.players[0].x = 2.5; world.players[1].x = 8.5; world.players[1].y = 1.5
            ticks += 1
        }
        #expect(world.player(target)?.isAlive == false, "the target should die within 10 s of fire")
        #expect(world.player(shooter)?.score == 1)
        #expect(ticks >= 3 * Int((ArenaRules.fireInterval * 30).rounded()), "four shots need three cool-downs")
    }

    @Test("a dead player respawns with full health after the delay")
    func respawn() throws {
        var world = ArenaWorld(seed: 5)
        let id: UInt32 = 3
        ArenaRules.addHuman(id: id, named: "c", to: &world)
        world.players[0].health = 0
        world.players[0].respawnTicks = 3
        for _ in 0..<3 { ArenaRules.step(&world, inputs: [:], dt: 1.0 / 30) }
        let player = try #require(world.player(id))
        #expect(player.health == ArenaRules.maximumHealth)
        #expect(!world.map.isBlocked(x: player.x, y: player.y, radius: ArenaRules.playerRadius))
    }

    @Test("inputs survive their one-byte encoding, and bad bytes read as idle", arguments: [-1, 0, 1])
    func inputEncoding(moveX: Int) {
        for moveY in -1...1 {
            for fires in [false, true] {
                let input = ArenaInput(moveX: moveX, moveY: moveY, fires: fires)
                #expect(ArenaInput(decoding: input.encoded) == input)
            }
        }
        #expect(ArenaInput(decoding: [0xFF]) == .idle)
        #expect(ArenaInput(decoding: []) == .idle)
        #expect(ArenaInput(decoding: [0, 0]) == .idle)
    }

    @Test("bots with the same seed play the same game, and they do fight")
    func botsAreDeterministicAndLively() {
        func play() -> ArenaWorld {
            var world = ArenaWorld(seed: 11)
            for index in 0..<6 { ArenaRules.addBot(named: "bot\(index)", seed: 99, to: &world) }
            for _ in 0..<(30 * 60) { ArenaRules.step(&world, inputs: [:], dt: 1.0 / 30) }
            return world
        }
        let first = play()
        #expect(first == play(), "same seed, same game")
        #expect(first.players.map(\.score).reduce(0, +) > 0, "six bots in a minute should score at least one kill")
    }
}

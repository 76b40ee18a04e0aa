import Testing
import TickwireCodec
import TickwireFoundation

@testable import ArenaGame

@Suite("ArenaWorld encoding")
struct ArenaWorldEncodingTests {
    /// A busy world: the arena's room `main` with 4 bots and 3 humans after 300 ticks of seeded
    /// random play, so that there are bullets in flight, scores, damage and (likely) dead players.
    static func busyWorld(seed: UInt64 = 11) -> ArenaWorld {
        let game = Arena(botCount: 4)
        var world = game.makeWorld(room: "main")
        for id: UInt32 in [1, 2, 5] { world = game.addPlayer(id, payload: Array("p\(id)".utf8), to: world) }
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 { world = game.step(world, inputs: randomInputs(&random), dt: 1.0 / 30) }
        return world
    }

    static func randomInputs(_ random: inout SplitMix64) -> [UInt32: ArenaInput] {
        var inputs: [UInt32: ArenaInput] = [:]
        for id: UInt32 in [1, 2, 5] {
            inputs[id] = ArenaInput(moveX: Int(random.next() % 3) - 1, moveY: Int(random.next() % 3) - 1, fires: random.next() % 3 == 0)
        }
        return inputs
    }

    @Test("a busy world decodes equal to itself, and steps on exactly as the original")
    func roundTrip() throws {
        let world = Self.busyWorld()
        #expect(
            !world.bullets.isEmpty && world.bots.count == 4 && world.players.count == 7,
            "the fixture should have bullets in flight, 4 bots and 7 players")
        #expect(world.players.contains { $0.score > 0 || $0.health < ArenaRules.maximumHealth }, "the fixture should show some fighting")
        let decoded = try ArenaWorld(decoding: world.encoded())
        #expect(decoded == world, "the decoded world differs from the encoded one")

        // The bots' generators and wandering state came across too: both worlds step alike.
        var original = world, copy = decoded
        var randomA = SplitMix64(seed: 3), randomB = SplitMix64(seed: 3)
        for _ in 0..<120 {
            ArenaRules.step(&original, inputs: Self.randomInputs(&randomA), dt: 1.0 / 30)
            ArenaRules.step(&copy, inputs: Self.randomInputs(&randomB), dt: 1.0 / 30)
        }
        #expect(copy == original, "the decoded world stepped differently from the original: some state was not saved")
    }

    @Test("an empty world and one on a custom map round-trip")
    func edgeWorlds() throws {
        let empty = ArenaWorld(map: ArenaMap(layout: []), seed: 0)
        #expect(try ArenaWorld(decoding: empty.encoded()) == empty)
        var odd = ArenaWorld(map: ArenaMap(layout: ["###", "# #", "#  ", "## "]), seed: 99)
        ArenaRules.addHuman(id: 4, named: "ünï", to: &odd)
        #expect(try ArenaWorld(decoding: odd.encoded()) == odd, "a 3×4 map (12 tiles, padded walls byte) and a non-ASCII name")
    }

    @Test("every truncation of a valid encoding is a typed error")
    func truncated() throws {
        let bytes = Self.busyWorld().encoded()
        for length in 0..<bytes.count {
            #expect(throws: ArenaStateError.self, "a world cut to \(length) of \(bytes.count) bytes must be refused") {
                _ = try ArenaWorld(decoding: Array(bytes[..<length]))
            }
        }
    }

    @Test("a trailing byte is refused")
    func trailing() throws {
        let error = #expect(throws: ArenaStateError.self) { _ = try ArenaWorld(decoding: Self.busyWorld().encoded() + [0]) }
        #expect(error?.description.contains("1 bytes follow") == true, "\(error?.description ?? "no error")")
    }

    @Test("seeded garbage and mutated encodings never crash; whatever decodes also steps")
    func garbage() throws {
        var random = SplitMix64(seed: 0xA11CE)
        let valid = Self.busyWorld().encoded()
        var decodedMutants = 0
        for round in 0..<600 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 400)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = valid
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            guard var world = try? ArenaWorld(decoding: bytes) else { continue }
            decodedMutants += 1
            // A world the decoder accepts must be one the rules can run without trapping.
            var inputs = SplitMix64(seed: UInt64(round))
            for _ in 0..<30 { ArenaRules.step(&world, inputs: Self.randomInputs(&inputs), dt: 1.0 / 30) }
            #expect(try ArenaWorld(decoding: world.encoded()) == world, "a stepped mutant re-encodes to itself")
        }
        #expect(decodedMutants > 0, "some mutations (a changed position or score byte) should still decode")
    }

    @Test("the byte limit holds at its value and refuses one byte past it")
    func byteLimit() throws {
        let bytes = Self.busyWorld().encoded()
        var limits = ArenaWorld.EncodingLimits()
        limits.maximumBytes = bytes.count
        #expect(throws: Never.self) { _ = try ArenaWorld(decoding: bytes, limits: limits) }
        limits.maximumBytes = bytes.count - 1
        let error = #expect(throws: ArenaStateError.self) { _ = try ArenaWorld(decoding: bytes, limits: limits) }
        #expect(error?.description.contains("exceeds the limit of \(bytes.count - 1) bytes") == true, "\(error?.description ?? "no error")")
        #expect(throws: ArenaStateError.self, "an oversized input under the standard limit") {
            _ = try ArenaWorld(decoding: [UInt8](repeating: 0, count: ArenaWorld.EncodingLimits.standard.maximumBytes + 1))
        }
    }

    @Test("the player, bullet and map-tile limits hold at their value and refuse one past it")
    func countLimits() throws {
        let world = Self.busyWorld()
        let bytes = world.encoded()
        let cases: [(String, WritableKeyPath<ArenaWorld.EncodingLimits, Int>, Int)] = [
            ("players", \.maximumPlayers, world.players.count),
            ("bullets", \.maximumBullets, world.bullets.count),
            ("map tiles", \.maximumMapTiles, world.map.width * world.map.height),
        ]
        for (what, limit, actual) in cases {
            var limits = ArenaWorld.EncodingLimits()
            limits[keyPath: limit] = actual
            #expect(throws: Never.self, "\(actual) \(what) at a limit of \(actual)") { _ = try ArenaWorld(decoding: bytes, limits: limits) }
            limits[keyPath: limit] = actual - 1
            let error = #expect(throws: ArenaStateError.self, "\(actual) \(what) over a limit of \(actual - 1)") {
                _ = try ArenaWorld(decoding: bytes, limits: limits)
            }
            #expect(error?.description.contains("limit of \(actual - 1)") == true, "\(what): \(error?.description ?? "no error")")
        }
    }

    @Test(
        "values the rules cannot run on are refused",
        arguments: [
            "NaN position", "far position", "huge score", "players out of order", "bullet id in the player range", "bot flag 2",
        ])
    func badValues(_ change: String) throws {
        var world = Self.busyWorld()
        var bytes: [UInt8]
        switch change {
        case "NaN position": world.players[0].x = .nan
        case "far position": world.players[1].y = 1e12
        case "huge score": world.players[2].score = Int.max
        case "players out of order": world.players.swapAt(0, 1)
        case "bullet id in the player range": world.bullets[0].id = 7
        default: break
        }
        bytes = world.encoded()
        if change == "bot flag 2" {
            // The first player's bot flag follows the header and its id and name.
            var probe = ArenaWorld(map: ArenaMap(layout: []), seed: 0)
            ArenaRules.addHuman(id: 1, named: "a", to: &probe)
            bytes = probe.encoded()
            // Width and height (1 byte each), tick, next bot and bullet ids (12), generator (8),
            // player count (1), id (1), name "a" (2): the flag is byte 26.
            #expect(bytes[26] == 0, "the probe's bot flag should be at byte 26")
            bytes[26] = 2
        }
        let words =
            [
                "NaN position": "player 1's x is nan", "far position": "player 2's y is 1000000000000.0", "huge score": "score",
                "players out of order": "ascending id order", "bullet id in the player range": "bullet id is 7",
                "bot flag 2": "bot flag is 2",
            ][change] ?? "?"
        let error = #expect(throws: ArenaStateError.self, "a world with a \(change) must be refused") {
            _ = try ArenaWorld(decoding: bytes)
        }
        #expect(error?.description.contains(words) == true, "'\(error?.description ?? "no error")' should say '\(words)'")
    }
}

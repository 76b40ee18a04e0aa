import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Directory room-state encoding")
struct RoomStateEncodingTests {
    let game = DotsGame(orbCount: 3)

    func sample(clients: Int = 2) -> RoomState<DotsGame.State> {
        var world = game.makeWorld(room: "r")
        for id in 1...UInt32(max(clients, 1)) { world = game.addPlayer(id, to: world) }
        world.time = 12.5
        return RoomState(
            name: "r", tick: 4242, world: world,
            clients: (0..<clients).map { ResumableClient(id: UInt32($0 + 1), token: [UInt8(truncatingIfNeeded: $0), 0xAB, 0xCD]) })
    }

    func decode(_ bytes: [UInt8], limits: RoomStateEncoding.Limits = .standard) throws(RoomStateError) -> RoomState<DotsGame.State> {
        try game.decodeRoomState(bytes, limits: limits)
    }

    /// Re-seals bytes whose body was edited, so that only the edit is wrong.
    func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let body = Array(bytes.dropLast(8))
        var writer = ByteWriter()
        writer.writeBytes(body)
        writer.writeUInt64(RoomStateEncoding.checksum(body[...]))
        return writer.bytes
    }

    @Test("a room state round-trips: name, tick, clients with tokens, and the world")
    func roundTrip() throws {
        let state = sample()
        let bytes = game.encodeRoomState(state)
        #expect(bytes.starts(with: Array("TWRS".utf8)) && bytes[4] == RoomStateEncoding.version)
        let decoded = try decode(bytes)
        #expect(decoded.name == "r" && decoded.tick == 4242)
        #expect(decoded.clients == state.clients)
        #expect(decoded.world.players == state.world.players && decoded.world.orbs == state.world.orbs && decoded.world.time == 12.5)
    }

    @Test("maximumBytes: a state of exactly the limit is read, one byte over it is refused before reading")
    func sizeLimit() throws {
        let bytes = game.encodeRoomState(sample())
        var limits = RoomStateEncoding.Limits()
        limits.maximumBytes = bytes.count
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumBytes = bytes.count - 1
        let error = #expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) }
        #expect(error?.isOverLimit == true && error?.description.contains("over the limit of \(bytes.count - 1)") == true)
    }

    @Test("maximumClients and maximumWorldBytes: at the limit read, one past refused")
    func countLimits() throws {
        let bytes = game.encodeRoomState(sample(clients: 5))
        var limits = RoomStateEncoding.Limits()
        limits.maximumClients = 5
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumClients = 4
        #expect((#expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) })?.isOverLimit == true)

        let worldBytes = game.encodeWorld(sample(clients: 5).world).count
        limits = RoomStateEncoding.Limits()
        limits.maximumWorldBytes = worldBytes
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumWorldBytes = worldBytes - 1
        #expect((#expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) })?.isOverLimit == true)
    }

    @Test("corrupt input gets a typed error with words, never a crash")
    func corrupt() throws {
        let bytes = game.encodeRoomState(sample())
        func words(_ input: [UInt8]) -> String {
            do {
                _ = try decode(input)
                return "decoded"
            } catch {
                return error.description
            }
        }
        #expect(words(Array("XXXX".utf8) + bytes.dropFirst(4)).contains("no TWRS magic"))
        var version = bytes
        version[4] = 2
        #expect(words(version).contains("format version 2"))
        var flipped = bytes
        flipped[20] ^= 0x01
        #expect(words(flipped).contains("checksum"))
        #expect(words(Array(bytes.prefix(12))).contains("malformed"))
        #expect(words(resealed(Array(bytes.dropLast(8).dropLast(3)))).contains("malformed"), "a body cut short")
        var schema = bytes
        schema[6] ^= 0xFF
        #expect(words(resealed(schema)).contains("schema fingerprint"))
        let zero = RoomState(name: "r", tick: 1, world: game.makeWorld(room: "r"), clients: [ResumableClient(id: 0, token: [1])])
        #expect(words(game.encodeRoomState(zero)).contains("id 0"))
        let twice = RoomState(
            name: "r", tick: 1, world: game.makeWorld(room: "r"),
            clients: [ResumableClient(id: 1, token: [1]), ResumableClient(id: 2, token: [1])])
        #expect(words(game.encodeRoomState(twice)).contains("twice"))
        var world = bytes.dropLast(8)
        world.append(0)  // a byte after the world
        #expect(words(resealed(Array(world) + [0, 0, 0, 0, 0, 0, 0, 0])).contains("follow"))
        // Garbage of every length up to 64 bytes never crashes.
        var random = SplitMix64(seed: 21)
        for length in 0..<64 {
            let garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(words(Array("TWRS".utf8) + [1] + garbage) != "decoded")
        }
    }
}

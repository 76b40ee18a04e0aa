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
        version[4] = 3
        #expect(words(version).contains("format version 3; this build reads versions 1 to 2"))
        version[4] = 0
        #expect(words(version).contains("format version 0"))
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

    // MARK: Identities (version 2)

    /// An identity in Tickwire's layout: room "r", display name "ann", claims 1 2 3.
    static func layoutIdentity() throws -> PlayerIdentity {
        try PlayerIdentity(userID: 0xFEED_0000_0000_0042, details: ConnectTokenUserData(room: "r", displayName: "ann", claims: [1, 2, 3]))
    }
    /// User data of another netcode.io backend: not Tickwire's layout.
    static let rawIdentity = PlayerIdentity(userID: 7, userData: Array(repeating: 9, count: 256))

    /// Two clients with identities (one in Tickwire's layout, one not) and one without.
    func sampleWithIdentities() throws -> RoomState<DotsGame.State> {
        var state = sample(clients: 3)
        state.clients[0].identity = try Self.layoutIdentity()
        state.clients[2].identity = Self.rawIdentity
        return state
    }

    /// Where client 1's identity mark sits in `sample(clients: 1)` with an identity: magic 4,
    /// version 1, fingerprint 8, name 2, tick 4, count 1, id 1, token 1 + 3.
    static let firstMarkOffset = 25

    /// The version 1 writer, as it was: clients without identities.
    func encodeVersion1(_ state: RoomState<DotsGame.State>) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeBytes(Array("TWRS".utf8))
        writer.writeUInt8(1)
        writer.writeUInt64(game.schema.fingerprint)
        writer.writeString(state.name)
        writer.writeUInt32(state.tick)
        writer.writeVarUInt(UInt64(state.clients.count))
        for client in state.clients {
            writer.writeVarUInt(UInt64(client.id))
            writer.writeLengthPrefixedBytes(client.token)
        }
        writer.writeLengthPrefixedBytes(game.encodeWorld(state.world))
        writer.writeUInt64(RoomStateEncoding.checksum(writer.bytes[...]))
        return writer.bytes
    }

    @Test("identities round-trip: user id and user data, the layout's details rebuilt, a client without one stays without")
    func identitiesRoundTrip() throws {
        let state = try sampleWithIdentities()
        let decoded = try decode(game.encodeRoomState(state))
        #expect(decoded.clients == state.clients)
        #expect(decoded.clients.map(\.identity) == [try Self.layoutIdentity(), nil, Self.rawIdentity])
        #expect(decoded.clients[0].identity?.displayName == "ann" && decoded.clients[0].identity?.claims == [1, 2, 3])
        #expect(decoded.clients[2].identity?.details == nil, "user data of another backend stays raw")
        let anonymous = sample(clients: 2)
        #expect(try decode(game.encodeRoomState(anonymous)).clients.allSatisfy { $0.identity == nil })
    }

    @Test("a version 1 state, written by the old writer, is still read: its clients have no identity")
    func readsVersion1() throws {
        let state = sample(clients: 2)
        let bytes = encodeVersion1(state)
        #expect(bytes[4] == 1)
        let decoded = try decode(bytes)
        #expect(decoded.name == "r" && decoded.tick == 4242 && decoded.clients == state.clients)
        #expect(decoded.clients.allSatisfy { $0.identity == nil }, "version 1 saves no identity")
        #expect(decoded.world.players == state.world.players)
        // Fixed version 1 bytes: magic, version 1, the fingerprint, room "r", tick 1, one client
        // (id 1, token AB), then the game's world and the checksum.
        let world = game.encodeWorld(state.world)
        var fixed: [UInt8] = [0x54, 0x57, 0x52, 0x53, 0x01] + bigEndian(game.schema.fingerprint)
        fixed += [0x01, 0x72, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0xAB]
        fixed += RawClientBench.varint(world.count) + world
        let old = try decode(resealed(fixed + Array(repeating: 0, count: 8)))
        #expect(old.tick == 1 && old.clients == [ResumableClient(id: 1, token: [0xAB])] && old.clients[0].identity == nil)
    }

    func bigEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    @Test("maximumRoomNameBytes and maximumTokenBytes: at the limit read, one past refused")
    func nameAndTokenLimits() throws {
        let bytes = game.encodeRoomState(sample())  // room "r", tokens of 3 bytes
        var limits = RoomStateEncoding.Limits()
        limits.maximumRoomNameBytes = 1
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumRoomNameBytes = 0
        #expect((#expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) })?.isOverLimit == true)
        limits = RoomStateEncoding.Limits()
        limits.maximumTokenBytes = 3
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumTokenBytes = 2
        #expect((#expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) })?.isOverLimit == true)
    }

    @Test("maximumUserDataBytes: user data of exactly the limit is read, one byte over it is refused")
    func userDataLimit() throws {
        let bytes = game.encodeRoomState(try sampleWithIdentities())
        var limits = RoomStateEncoding.Limits()
        #expect(limits.maximumUserDataBytes == 256, "the default is a connect token's user data")
        #expect(throws: Never.self) { try decode(bytes, limits: limits) }
        limits.maximumUserDataBytes = 255
        let error = #expect(throws: RoomStateError.self) { try decode(bytes, limits: limits) }
        #expect(error?.isOverLimit == true && error?.description.contains("user data is 256 bytes, over the limit of 255") == true)

        var longer = sample(clients: 1)
        longer.clients[0].identity = PlayerIdentity(userID: 1, userData: Array(repeating: 9, count: 300))
        let long = game.encodeRoomState(longer)
        limits.maximumUserDataBytes = 300
        #expect(try decode(long, limits: limits).clients[0].identity?.userData.count == 300)
        limits.maximumUserDataBytes = 299
        #expect((#expect(throws: RoomStateError.self) { try decode(long, limits: limits) })?.isOverLimit == true)
    }

    @Test("a saved identity whose user data no longer reads as it was saved is a typed error, never a crash")
    func identityNoLongerParses() throws {
        func words(_ input: [UInt8]) -> String {
            do {
                _ = try decode(input)
                return "decoded"
            } catch {
                return error.description
            }
        }
        var raw = sample(clients: 1)
        raw.clients[0].identity = Self.rawIdentity
        let rawBytes = game.encodeRoomState(raw)
        #expect(rawBytes[Self.firstMarkOffset] == 1, "the raw identity's mark is where the test looks")
        var markedLayout = rawBytes
        markedLayout[Self.firstMarkOffset] = 2
        #expect(words(resealed(markedLayout)).contains("client 1's identity in Tickwire's user data layout"))
        #expect(words(resealed(markedLayout)).contains("unknownLayout(9)"), "the user data's own error says why")

        var layout = sample(clients: 1)
        layout.clients[0].identity = try Self.layoutIdentity()
        var markedRaw = game.encodeRoomState(layout)
        #expect(markedRaw[Self.firstMarkOffset] == 2)
        markedRaw[Self.firstMarkOffset] = 1
        #expect(words(resealed(markedRaw)).contains("marked 1"), "one identity has one encoding")
        markedRaw[Self.firstMarkOffset] = 3
        #expect(words(resealed(markedRaw)).contains("marked 3"))

        // Every cut of a state with identities is refused with words.
        let full = game.encodeRoomState(try sampleWithIdentities())
        for length in stride(from: 13, to: full.count - 8, by: 7) {
            #expect(words(resealed(Array(full.prefix(length)) + Array(repeating: 0, count: 8))) != "decoded")
        }
    }
}

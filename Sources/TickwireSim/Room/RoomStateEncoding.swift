import TickwireCodec

/// The bytes of one room's saved state (``RoomState``): what a ``Host`` stores in its
/// ``RoomDirectory`` every ``HostConfiguration/directoryInterval``, and what the arena's
/// `--state` file holds for each of its rooms, so that one piece of code reads both.
///
/// Version 2, integers big-endian, varints unsigned LEB128, texts and byte strings a varint
/// length and the bytes:
///
/// | bytes | field |
/// |---|---|
/// | 4 | magic `TWRS` |
/// | 1 | format version (2) |
/// | 8 | the game's schema fingerprint (``Schema/fingerprint``) |
/// | text | the room's name (at most ``Limits/maximumRoomNameBytes``) |
/// | 4 | the tick of the room's newest snapshot |
/// | varint | client count (at most ``Limits/maximumClients``), then per client its id (varint, not 0), resume token (at most ``Limits/maximumTokenBytes``) and identity (below) |
/// | bytes | the world, as ``PersistableGame/encodeWorld(_:)`` wrote it (at most ``Limits/maximumWorldBytes``) |
/// | 8 | checksum: 64-bit FNV-1a of every byte before it |
///
/// A client's identity (``ResumableClient/identity``) is one byte, then what it says: 0 for none
/// (anonymous play); 1 for an identity whose user data is not Tickwire's layout, 2 for one whose
/// user data is (``PlayerIdentity/details``), each followed by the user id (8 bytes) and the user
/// data (a byte string, at most ``Limits/maximumUserDataBytes``). Decoding rebuilds the
/// ``PlayerIdentity`` from them; user data marked 2 that no longer reads as Tickwire's layout,
/// or marked 1 that does, is a ``RoomStateError``.
///
/// Version 1 is version 2 without the identity byte: it is still read, its clients without
/// identity.
///
/// Decoding refuses bytes over ``Limits/maximumBytes`` before reading them, checks the
/// checksum before reading any field, checks every count and length before allocating, and
/// throws a ``RoomStateError`` for anything else wrong: never a crash.
public enum RoomStateEncoding {
    /// The limits a room state must respect to be read.
    public struct Limits: Hashable, Sendable {
        /// The most bytes of one encoded room state (default 4 MiB).
        public var maximumBytes = 4 << 20
        /// The most bytes of the game's world inside it (default 4 MiB).
        public var maximumWorldBytes = 4 << 20
        /// The most resumable clients (default 10 000).
        public var maximumClients = 10_000
        /// The most UTF-8 bytes of the room's name (default 256).
        public var maximumRoomNameBytes = 256
        /// The most bytes of a resume token (default 64, the protocol's limit).
        public var maximumTokenBytes = 64
        /// The most bytes of a client's saved identity's user data (default 256, a connect
        /// token's: ``ConnectTokenUserData/byteCount``).
        public var maximumUserDataBytes = ConnectTokenUserData.byteCount

        /// The defaults.
        public static let standard = Limits()

        /// Creates the default limits.
        public init() {}
    }

    /// The first four bytes of every room state.
    public static let magic: [UInt8] = Array("TWRS".utf8)
    /// The format version this code writes (it reads it and every older one).
    public static let version: UInt8 = 2
    /// The oldest format version this code reads (version 1 saves no identities).
    public static let oldestReadableVersion: UInt8 = 1

    /// What the byte before a saved identity says.
    private enum IdentityMark {
        static let none: UInt8 = 0
        static let rawUserData: UInt8 = 1
        static let tickwireLayout: UInt8 = 2
    }

    /// Encodes a room's state.
    ///
    /// - Parameters:
    ///   - state: The room's state (``Room/exportState()``).
    ///   - schemaFingerprint: The game's schema fingerprint, checked on decoding.
    ///   - encodeWorld: The game's encoding of its world.
    /// - Returns: The bytes described above.
    public static func encode<World>(
        _ state: RoomState<World>, schemaFingerprint: UInt64, encodeWorld: (World) -> [UInt8]
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: 256)
        writer.writeBytes(magic)
        writer.writeUInt8(version)
        writer.writeUInt64(schemaFingerprint)
        writer.writeString(state.name)
        writer.writeUInt32(state.tick)
        writer.writeVarUInt(UInt64(state.clients.count))
        for client in state.clients {
            writer.writeVarUInt(UInt64(client.id))
            writer.writeLengthPrefixedBytes(client.token)
            if let identity = client.identity {
                writer.writeUInt8(identity.details == nil ? IdentityMark.rawUserData : IdentityMark.tickwireLayout)
                writer.writeUInt64(identity.userID)
                writer.writeLengthPrefixedBytes(identity.userData)
            } else {
                writer.writeUInt8(IdentityMark.none)
            }
        }
        writer.writeLengthPrefixedBytes(encodeWorld(state.world))
        writer.writeUInt64(checksum(writer.bytes[...]))
        return writer.bytes
    }

    /// Decodes a room's state.
    ///
    /// - Parameters:
    ///   - bytes: The encoding.
    ///   - schemaFingerprint: The game's schema fingerprint: a state of another schema is refused.
    ///   - limits: Size and count limits.
    ///   - decodeWorld: The game's decoding of its world.
    /// - Returns: The room's state.
    /// - Throws: ``RoomStateError`` when the bytes are over a limit, not a room state, of
    ///   another version or schema, damaged (checksum), cut short, malformed, list a client
    ///   id of 0 or twice (or a token twice), save an identity whose user data no longer reads
    ///   as it was saved, or the game refuses the world.
    public static func decode<World>(
        _ bytes: [UInt8], schemaFingerprint: UInt64, limits: Limits = .standard,
        decodeWorld: ([UInt8]) throws(RoomStateError) -> World
    ) throws(RoomStateError) -> RoomState<World> {
        guard bytes.count <= limits.maximumBytes else {
            throw RoomStateError(.tooLarge(what: "a room state", bytes: bytes.count, limit: limits.maximumBytes))
        }
        guard bytes.starts(with: magic) else { throw RoomStateError(.notARoomState) }
        guard bytes.count > magic.count else { throw RoomStateError(.malformed("it ends after the magic")) }
        let found = bytes[magic.count]
        guard (oldestReadableVersion...version).contains(found) else { throw RoomStateError(.unsupportedVersion(found)) }
        let smallest = magic.count + 1 + 8 + 1 + 4 + 1 + 1 + 8
        guard bytes.count >= smallest else {
            throw RoomStateError(.malformed("\(bytes.count) bytes, fewer than the \(smallest) of the smallest room state"))
        }
        var stored: UInt64 = 0
        for byte in bytes[(bytes.count - 8)...] { stored = stored << 8 | UInt64(byte) }
        guard checksum(bytes[..<(bytes.count - 8)]) == stored else { throw RoomStateError(.checksumMismatch) }
        var reader = ByteReader(bytes, range: (magic.count + 1)..<(bytes.count - 8))
        let fingerprint = try read { () throws(FrameError) in try reader.readUInt64() }
        guard fingerprint == schemaFingerprint else { throw RoomStateError(.otherSchema(found: fingerprint, expected: schemaFingerprint)) }
        let name = try string(&reader, field: "room name", limit: limits.maximumRoomNameBytes)
        let tick = try read { () throws(FrameError) in try reader.readUInt32() }
        let count = try read { () throws(FrameError) in try reader.readVarUInt() }
        guard count <= UInt64(limits.maximumClients) else {
            throw RoomStateError(.tooMany(what: "clients in room '\(name)'", count: count, limit: limits.maximumClients))
        }
        var clients: [ResumableClient] = []
        var ids: Set<UInt32> = []
        var tokens: Set<[UInt8]> = []
        for _ in 0..<count {
            let id = try read { () throws(FrameError) in try reader.readVarUInt32(field: "client id") }
            guard id != 0 else { throw RoomStateError(.invalidClientID(room: name)) }
            let token = try lengthPrefixed(&reader, field: "client \(id)'s resume token", limit: limits.maximumTokenBytes)
            guard ids.insert(id).inserted, tokens.insert(token).inserted else { throw RoomStateError(.duplicateClient(room: name, id: id)) }
            let identity = found >= 2 ? try self.identity(&reader, room: name, client: id, limits: limits) : nil
            clients.append(ResumableClient(id: id, token: token, identity: identity))
        }
        let worldBytes = try lengthPrefixed(&reader, field: "room '\(name)''s world", limit: limits.maximumWorldBytes)
        guard reader.isAtEnd else { throw RoomStateError(.trailingBytes(reader.remainingCount)) }
        let world = try decodeWorld(worldBytes)
        return RoomState(name: name, tick: tick, world: world, clients: clients)
    }

    private static func read<T>(_ body: () throws(FrameError) -> T) throws(RoomStateError) -> T {
        do {
            return try body()
        } catch {
            throw RoomStateError(.malformed(error.description))
        }
    }

    /// A client's saved identity (version 2): its mark, then user id and user data.
    private static func identity(
        _ reader: inout ByteReader, room: String, client: UInt32, limits: Limits
    ) throws(RoomStateError) -> PlayerIdentity? {
        let mark = try read { () throws(FrameError) in try reader.readUInt8() }
        switch mark {
        case IdentityMark.none:
            return nil
        case IdentityMark.rawUserData, IdentityMark.tickwireLayout:
            let userID = try read { () throws(FrameError) in try reader.readUInt64() }
            let userData = try lengthPrefixed(
                &reader, field: "client \(client)'s identity's user data", limit: limits.maximumUserDataBytes)
            let identity = PlayerIdentity(userID: userID, userData: userData)
            if mark == IdentityMark.tickwireLayout, identity.details == nil {
                // Saved as Tickwire's layout: say why it no longer reads as one.
                do {
                    _ = try ConnectTokenUserData(decoding: userData)
                } catch {
                    throw RoomStateError(.invalidIdentity(room: room, client: client, reason: error.description))
                }
            }
            if mark == IdentityMark.rawUserData, identity.details != nil {
                // One identity has one encoding: user data in Tickwire's layout is marked 2.
                throw RoomStateError(.malformed("client \(client)'s identity is marked 1 (not Tickwire's layout) but its user data is"))
            }
            return identity
        default:
            throw RoomStateError(.malformed("client \(client)'s identity is marked \(mark), not 0, 1 or 2"))
        }
    }

    /// A varint-length byte string, refused over `limit` before it is read.
    private static func lengthPrefixed(_ reader: inout ByteReader, field: String, limit: Int) throws(RoomStateError) -> [UInt8] {
        let length = try read { () throws(FrameError) in try reader.readVarUInt() }
        guard length <= UInt64(limit) else { throw RoomStateError(.tooLarge(what: field, bytes: Int(clamping: length), limit: limit)) }
        return try read { () throws(FrameError) in try reader.readBytes(count: Int(length)) }
    }

    /// A varint-length UTF-8 text, refused over `limit` bytes before it is read.
    private static func string(_ reader: inout ByteReader, field: String, limit: Int) throws(RoomStateError) -> String {
        let bytes = try lengthPrefixed(&reader, field: field, limit: limit)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw RoomStateError(.malformed("\(field) is not UTF-8")) }
        return text
    }

    /// 64-bit FNV-1a (also the arena's state file's checksum).
    package static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3  // FNV prime; wrapping is the algorithm
        }
        return hash
    }
}

extension PersistableGame {
    /// Encodes a room's state with this game's schema and world encoding (``RoomStateEncoding``).
    ///
    /// - Parameter state: The room's state.
    /// - Returns: Its bytes.
    public func encodeRoomState(_ state: RoomState<State>) -> [UInt8] {
        RoomStateEncoding.encode(state, schemaFingerprint: schema.fingerprint, encodeWorld: encodeWorld)
    }

    /// Decodes a room's state saved by this game (``RoomStateEncoding``).
    ///
    /// - Parameters:
    ///   - bytes: The encoding.
    ///   - limits: Size and count limits.
    /// - Returns: The room's state.
    /// - Throws: ``RoomStateError`` when the bytes cannot be read.
    public func decodeRoomState(_ bytes: [UInt8], limits: RoomStateEncoding.Limits = .standard) throws(RoomStateError) -> RoomState<State> {
        try RoomStateEncoding.decode(bytes, schemaFingerprint: schema.fingerprint, limits: limits, decodeWorld: decodeWorld)
    }
}

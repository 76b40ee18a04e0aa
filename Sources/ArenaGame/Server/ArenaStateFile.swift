import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The arena server's saved state (`arena serve --state FILE`): every room's world and the
/// clients that may resume in it, so that a server restarted within the grace period gives
/// returning players their places back.
///
/// Not a wire format: only the server that wrote a file reads it. Version 2, integers
/// big-endian, varints unsigned LEB128, byte strings a varint length and the bytes; each room
/// is a room state of Tickwire's ``RoomStateEncoding`` (the bytes a fleet's room directory
/// stores), so one piece of code reads both:
///
/// | bytes | field |
/// |---|---|
/// | 8 | magic `TWARENA` and a zero byte |
/// | 2 | format version (2; version 1 files, without the room-state framing, are refused) |
/// | 8 | the arena's schema fingerprint (``ArenaSchema/schema``) |
/// | 8 | saved at: milliseconds since the UNIX epoch, wall clock |
/// | 4 | the next client id |
/// | varint | room count (at most ``Limits/maximumRooms``), then per room its ``RoomStateEncoding`` as a byte string: name (at most ``Limits/maximumRoomNameBytes``), tick, clients (at most ``Limits/maximumClientsPerRoom``) with ids and resume tokens (at most ``Limits/maximumTokenBytes``), and the world (at most ``ArenaWorld/EncodingLimits/maximumBytes``, ``ArenaWorld/encoded()``) |
/// | 8 | checksum: 64-bit FNV-1a of every byte before it |
///
/// A file is refused before it is read when it is larger than ``Limits/maximumBytes``.
/// ``write(to:)`` writes a temporary file beside the target, flushes it to disk (`fsync`) and
/// `rename`s it over the target, so a process killed mid-write leaves the previous file whole.
public struct ArenaStateFile: Sendable {
    /// Size and count limits a file must respect to be read.
    public struct Limits: Hashable, Sendable {
        /// The most bytes of a file.
        public var maximumBytes = 16 << 20
        /// The most rooms.
        public var maximumRooms = 256
        /// The most resumable clients per room.
        public var maximumClientsPerRoom = 10_000
        /// The most UTF-8 bytes of a room name.
        public var maximumRoomNameBytes = 256
        /// The most bytes of a resume token (the protocol's limit).
        public var maximumTokenBytes = 64
        /// The limits of each room's world.
        public var world = ArenaWorld.EncodingLimits.standard

        /// The defaults: 16 MiB, 256 rooms, 10000 clients per room, 256-byte names, 64-byte tokens.
        public static let standard = Limits()

        /// Creates the default limits.
        public init() {}
    }

    /// The first eight bytes of every file.
    public static let magic: [UInt8] = Array("TWARENA".utf8) + [0]
    /// The format version this code writes and reads.
    public static let version: UInt16 = 2
    /// The bytes of a file with no room: header, room count and checksum.
    static let minimumBytes = 8 + 2 + 8 + 8 + 4 + 1 + 8

    /// The server's state.
    public var state: HostState<ArenaWorld>
    /// When it was saved, in milliseconds since the UNIX epoch.
    public var savedAt: UInt64

    /// Creates a file's contents.
    ///
    /// - Parameters:
    ///   - state: The host's state.
    ///   - savedAt: When, in milliseconds since the UNIX epoch (see ``wallClockMilliseconds()``).
    public init(state: HostState<ArenaWorld>, savedAt: UInt64) {
        self.state = state
        self.savedAt = savedAt
    }

    /// The file's bytes.
    ///
    /// - Returns: The encoding described above.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 4096)
        writer.writeBytes(Self.magic)
        writer.writeUInt16(Self.version)
        writer.writeUInt64(ArenaSchema.schema.fingerprint)
        writer.writeUInt64(savedAt)
        writer.writeUInt32(state.nextClientID)
        writer.writeVarUInt(UInt64(state.rooms.count))
        let game = Arena(botCount: 0)
        for room in state.rooms { writer.writeLengthPrefixedBytes(game.encodeRoomState(room)) }
        writer.writeUInt64(Self.checksum(writer.bytes[...]))
        return writer.bytes
    }

    /// Reads a file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: The file.
    ///   - limits: Size and count limits.
    /// - Throws: ``ArenaStateError`` when the bytes are over a limit, not a state file, of
    ///   another format version or schema, damaged (checksum), cut short or malformed.
    public init(decoding bytes: [UInt8], limits: Limits = .standard) throws(ArenaStateError) {
        guard bytes.count <= limits.maximumBytes else {
            throw ArenaStateError(.tooLarge(what: "a state file", bytes: bytes.count, limit: limits.maximumBytes))
        }
        guard bytes.starts(with: Self.magic) else { throw ArenaStateError(.notAStateFile) }
        var reader = ArenaStateReader(bytes)
        _ = try reader.bytes(count: Self.magic.count)
        let version = try reader.uint16()
        guard version == Self.version else { throw ArenaStateError(.unsupportedVersion(version)) }
        guard bytes.count >= Self.minimumBytes else {
            throw ArenaStateError(.malformed(.truncated(offset: bytes.count, needed: Self.minimumBytes - bytes.count)))
        }
        let body = bytes[..<(bytes.count - 8)]
        var stored: UInt64 = 0
        for byte in bytes[(bytes.count - 8)...] { stored = stored << 8 | UInt64(byte) }
        guard Self.checksum(body) == stored else { throw ArenaStateError(.checksumMismatch) }
        reader = ArenaStateReader(Array(body))
        _ = try reader.bytes(count: Self.magic.count + 2)
        let fingerprint = try reader.uint64()
        guard fingerprint == ArenaSchema.schema.fingerprint else {
            throw ArenaStateError(.otherSchema(found: fingerprint, expected: ArenaSchema.schema.fingerprint))
        }
        savedAt = try reader.uint64()
        let nextClientID = try reader.uint32()
        let roomCount = try reader.count(of: "rooms", limit: limits.maximumRooms)
        var rooms: [RoomState<ArenaWorld>] = []
        var roomLimits = RoomStateEncoding.Limits()
        roomLimits.maximumBytes = limits.maximumBytes
        roomLimits.maximumWorldBytes = limits.world.maximumBytes
        roomLimits.maximumClients = limits.maximumClientsPerRoom
        roomLimits.maximumRoomNameBytes = limits.maximumRoomNameBytes
        roomLimits.maximumTokenBytes = limits.maximumTokenBytes
        for index in 0..<roomCount {
            let bytes = try reader.lengthPrefixedBytes(field: "room \(index + 1)", limit: limits.maximumBytes)
            do throws(RoomStateError) {
                let world = limits.world
                rooms.append(
                    try RoomStateEncoding.decode(bytes, schemaFingerprint: ArenaSchema.schema.fingerprint, limits: roomLimits) {
                        (encoded: [UInt8]) throws(RoomStateError) -> ArenaWorld in try Self.world(encoded, limits: world)
                    })
            } catch {
                throw ArenaStateError(.room(index: index, error))
            }
        }
        guard reader.isAtEnd else { throw ArenaStateError(.trailingBytes(count: reader.remainingCount)) }
        state = HostState(rooms: rooms, nextClientID: nextClientID)
    }

    /// A room's world, with the arena's errors in the room state's.
    private static func world(_ bytes: [UInt8], limits: ArenaWorld.EncodingLimits) throws(RoomStateError) -> ArenaWorld {
        do throws(ArenaStateError) {
            return try ArenaWorld(decoding: bytes, limits: limits)
        } catch {
            throw RoomStateError.invalidWorld(error.description)
        }
    }

    /// Throws unless the file was saved at most `maximumAge` seconds before `now` (and not
    /// more than a second after it: a clock set back makes the age meaningless).
    ///
    /// - Parameters:
    ///   - now: Milliseconds since the UNIX epoch.
    ///   - maximumAge: Seconds (the server's resume grace period).
    /// - Throws: ``ArenaStateError`` (``ArenaStateError/isStale`` when simply too old).
    public func checkAge(now: UInt64, maximumAge: Double) throws(ArenaStateError) {
        let age = (Double(now) - Double(savedAt)) / 1000
        if age < -1 { throw ArenaStateError(.savedInTheFuture(seconds: -age)) }
        if age > maximumAge { throw ArenaStateError(.stale(ageSeconds: age, limitSeconds: maximumAge)) }
    }

    /// The file's age at `now`, in seconds.
    ///
    /// - Parameter now: Milliseconds since the UNIX epoch.
    /// - Returns: Seconds since ``savedAt`` (negative when saved after `now`).
    public func age(now: UInt64) -> Double {
        (Double(now) - Double(savedAt)) / 1000
    }

    /// Writes the file atomically: to `PATH.tmp`, flushed with `fsync`, then `rename`d to `path`.
    ///
    /// - Parameter path: The file.
    /// - Throws: ``ArenaStateError`` naming the C call that failed (`open`, `write`, `fsync`,
    ///   `close`, `rename`); the temporary file is removed and `path` left as it was.
    public func write(to path: String) throws(ArenaStateError) {
        let bytes = encoded()
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ArenaStateError(.system(path: temporary, operation: "open", errno: errno)) }
        var failure: ArenaStateError?
        var written = 0
        while written < bytes.count, failure == nil {
            let count = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress.map { $0 + written }, bytes.count - written)
            }
            if count > 0 {
                written += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                failure = ArenaStateError(.system(path: temporary, operation: "write", errno: count < 0 ? errno : EIO))
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = ArenaStateError(.system(path: temporary, operation: "fsync", errno: errno)) }
        if close(descriptor) != 0, failure == nil { failure = ArenaStateError(.system(path: temporary, operation: "close", errno: errno)) }
        if failure == nil, rename(temporary, path) != 0 {
            failure = ArenaStateError(.system(path: path, operation: "rename", errno: errno))
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Reads a file written by ``write(to:)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limits: Size and count limits; a larger file is refused before it is read.
    /// - Returns: The file's contents, or `nil` when there is no file at `path`.
    /// - Throws: ``ArenaStateError`` when the file cannot be read (naming the C call) or decoded.
    public static func read(from path: String, limits: Limits = .standard) throws(ArenaStateError) -> ArenaStateFile? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw ArenaStateError(.system(path: path, operation: "open", errno: errno))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ArenaStateError(.system(path: path, operation: "fstat", errno: errno)) }
        let size = Int(status.st_size)
        guard size <= limits.maximumBytes else {
            throw ArenaStateError(.tooLarge(what: "a state file", bytes: size, limit: limits.maximumBytes))
        }
        // Read one byte more than the size: a file that grew meanwhile is refused, not cut short.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count > 0 {
                filled += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw ArenaStateError(.system(path: path, operation: "read", errno: errno))
            }
        }
        guard filled <= limits.maximumBytes else {
            throw ArenaStateError(.tooLarge(what: "a state file", bytes: filled, limit: limits.maximumBytes))
        }
        return try ArenaStateFile(decoding: Array(bytes[..<filled]), limits: limits)
    }

    /// The wall clock now, in milliseconds since the UNIX epoch (`clock_gettime(CLOCK_REALTIME)`).
    ///
    /// - Returns: The time.
    public static func wallClockMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec)) / 1_000_000
    }

    /// 64-bit FNV-1a, the same checksum as each room's ``RoomStateEncoding``.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 { RoomStateEncoding.checksum(bytes) }
}

// The C calls under names the type's own `write(to:)` and `read(from:)` do not shadow.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

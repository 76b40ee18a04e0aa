import TickwireCodec

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole ``HostState`` as a file, so that a restarted server gives returning players their
/// places back: ``Host/saveState(to:)`` writes one, ``Host/init(game:listener:clock:configuration:restoringFrom:)``
/// reads it (the arena demo's `arena serve --state FILE` uses the same calls).
///
/// Not a wire format: only the game that wrote a file reads it. Version 1, integers
/// big-endian, varints unsigned LEB128, byte strings a varint length and the bytes; each room
/// is a ``RoomStateEncoding`` (the bytes a fleet's room directory stores), so one piece of code
/// reads both:
///
/// | bytes | field |
/// |---|---|
/// | 8 | magic `TWHOST` and two zero bytes |
/// | 2 | format version (1) |
/// | 8 | the game's schema fingerprint (``Schema/fingerprint``) |
/// | 8 | saved at: milliseconds since the UNIX epoch, wall clock |
/// | 4 | the next client id |
/// | varint | room count (at most ``Limits/maximumRooms``), then per room its ``RoomStateEncoding`` as a byte string (within ``Limits/room``) |
/// | 8 | checksum: 64-bit FNV-1a of every byte before it |
///
/// A file larger than ``Limits/maximumBytes`` is refused before it is read; the checksum is
/// checked before any field, and every count and length before anything is allocated.
/// ``write(_:to:)`` writes a temporary file beside the target, flushes it to disk (`fsync`)
/// and `rename`s it over the target, so a process killed mid-write leaves the previous file whole.
public enum HostStateFile {
    /// Size and count limits a file must respect to be read.
    public struct Limits: Hashable, Sendable {
        /// The most bytes of a file (default 16 MiB).
        public var maximumBytes = 16 << 20
        /// The most rooms (default 256).
        public var maximumRooms = 256
        /// The limits of each room (``RoomStateEncoding/Limits``; its `maximumBytes` is capped
        /// by the file's).
        public var room = RoomStateEncoding.Limits.standard

        /// The defaults: 16 MiB, 256 rooms, each room within ``RoomStateEncoding/Limits/standard``.
        public static let standard = Limits()

        /// Creates the default limits.
        public init() {}
    }

    /// The first eight bytes of every file.
    public static let magic: [UInt8] = Array("TWHOST".utf8) + [0, 0]
    /// The format version this code writes and reads.
    public static let version: UInt16 = 1
    /// The bytes of a file with no room: header, room count and checksum.
    static let minimumBytes = 8 + 2 + 8 + 8 + 4 + 1 + 8

    /// Encodes a saved host state.
    ///
    /// - Parameters:
    ///   - saved: The state and when it was saved.
    ///   - schemaFingerprint: The game's schema fingerprint, checked on decoding.
    ///   - encodeWorld: The game's encoding of its world (``PersistableGame/encodeWorld(_:)``).
    /// - Returns: The bytes described above.
    public static func encode<World>(
        _ saved: SavedHostState<World>, schemaFingerprint: UInt64, encodeWorld: (World) -> [UInt8]
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: 4096)
        writer.writeBytes(magic)
        writer.writeUInt16(version)
        writer.writeUInt64(schemaFingerprint)
        writer.writeUInt64(saved.savedAt)
        writer.writeUInt32(saved.state.nextClientID)
        writer.writeVarUInt(UInt64(saved.state.rooms.count))
        for room in saved.state.rooms {
            writer.writeLengthPrefixedBytes(RoomStateEncoding.encode(room, schemaFingerprint: schemaFingerprint, encodeWorld: encodeWorld))
        }
        writer.writeUInt64(RoomStateEncoding.checksum(writer.bytes[...]))
        return writer.bytes
    }

    /// Decodes a saved host state.
    ///
    /// - Parameters:
    ///   - bytes: The file's bytes.
    ///   - schemaFingerprint: The game's schema fingerprint: a file of another schema is refused.
    ///   - limits: Size and count limits.
    ///   - decodeWorld: The game's decoding of its world (``PersistableGame/decodeWorld(_:)``).
    /// - Returns: The state and when it was saved.
    /// - Throws: ``HostStateFileError`` when the bytes are over a limit, not a state file, of
    ///   another format version or schema, damaged (checksum), cut short or malformed, or a
    ///   room cannot be read.
    public static func decode<World>(
        _ bytes: [UInt8], schemaFingerprint: UInt64, limits: Limits = .standard,
        decodeWorld: ([UInt8]) throws(RoomStateError) -> World
    ) throws(HostStateFileError) -> SavedHostState<World> {
        guard bytes.count <= limits.maximumBytes else {
            throw HostStateFileError(.tooLarge(what: "a state file", bytes: bytes.count, limit: limits.maximumBytes))
        }
        guard bytes.starts(with: magic) else { throw HostStateFileError(.notAStateFile) }
        guard bytes.count >= magic.count + 2 else { throw HostStateFileError(.malformed("it ends after the magic")) }
        let version = UInt16(bytes[magic.count]) << 8 | UInt16(bytes[magic.count + 1])
        guard version == Self.version else { throw HostStateFileError(.unsupportedVersion(version)) }
        guard bytes.count >= minimumBytes else {
            throw HostStateFileError(.malformed("\(bytes.count) bytes, fewer than the \(minimumBytes) of a file without rooms"))
        }
        var stored: UInt64 = 0
        for byte in bytes[(bytes.count - 8)...] { stored = stored << 8 | UInt64(byte) }
        guard RoomStateEncoding.checksum(bytes[..<(bytes.count - 8)]) == stored else { throw HostStateFileError(.checksumMismatch) }
        var reader = ByteReader(bytes, range: (magic.count + 2)..<(bytes.count - 8))
        let fingerprint = try read { () throws(FrameError) in try reader.readUInt64() }
        guard fingerprint == schemaFingerprint else {
            throw HostStateFileError(.otherSchema(found: fingerprint, expected: schemaFingerprint))
        }
        let savedAt = try read { () throws(FrameError) in try reader.readUInt64() }
        let nextClientID = try read { () throws(FrameError) in try reader.readUInt32() }
        let roomCount = try read { () throws(FrameError) in try reader.readVarUInt() }
        guard roomCount <= UInt64(limits.maximumRooms) else {
            throw HostStateFileError(.tooMany(what: "rooms", count: roomCount, limit: limits.maximumRooms))
        }
        var roomLimits = limits.room
        roomLimits.maximumBytes = min(roomLimits.maximumBytes, limits.maximumBytes)
        var rooms: [RoomState<World>] = []
        for index in 0..<Int(roomCount) {
            let length = try read { () throws(FrameError) in try reader.readVarUInt() }
            guard length <= UInt64(roomLimits.maximumBytes) else {
                throw HostStateFileError(.tooLarge(what: "room \(index + 1)", bytes: Int(clamping: length), limit: roomLimits.maximumBytes))
            }
            let roomBytes = try read { () throws(FrameError) in try reader.readBytes(count: Int(length)) }
            do throws(RoomStateError) {
                rooms.append(
                    try RoomStateEncoding.decode(
                        roomBytes, schemaFingerprint: schemaFingerprint, limits: roomLimits, decodeWorld: decodeWorld))
            } catch {
                throw HostStateFileError(.room(index: index, error))
            }
        }
        guard reader.isAtEnd else { throw HostStateFileError(.trailingBytes(count: reader.remainingCount)) }
        return SavedHostState(state: HostState(rooms: rooms, nextClientID: nextClientID), savedAt: savedAt)
    }

    private static func read<T>(_ body: () throws(FrameError) -> T) throws(HostStateFileError) -> T {
        do {
            return try body()
        } catch {
            throw HostStateFileError(.malformed(error.description))
        }
    }

    /// Writes `bytes` to `path` atomically: to `PATH.tmp` (`open`, `write`), flushed to disk
    /// (`fsync`), then `rename`d over `path`.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents (``encode(_:schemaFingerprint:encodeWorld:)``).
    ///   - path: The file.
    /// - Throws: ``HostStateFileError`` naming the C call that failed (`open`, `write`, `fsync`,
    ///   `close`, `rename`); the temporary file is removed and `path` left as it was.
    public static func write(_ bytes: [UInt8], to path: String) throws(HostStateFileError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HostStateFileError(.system(path: temporary, operation: "open", errno: errno)) }
        var failure: HostStateFileError?
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
                failure = HostStateFileError(.system(path: temporary, operation: "write", errno: count < 0 ? errno : EIO))
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = HostStateFileError(.system(path: temporary, operation: "fsync", errno: errno))
        }
        if close(descriptor) != 0, failure == nil {
            failure = HostStateFileError(.system(path: temporary, operation: "close", errno: errno))
        }
        if failure == nil, rename(temporary, path) != 0 {
            failure = HostStateFileError(.system(path: path, operation: "rename", errno: errno))
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Reads the bytes of a file written by ``write(_:to:)``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - maximumBytes: The largest file to read; a larger one is refused before it is read.
    /// - Returns: The bytes, or `nil` when there is no file at `path`.
    /// - Throws: ``HostStateFileError`` naming the C call that failed (`open`, `fstat`, `read`),
    ///   or when the file is over `maximumBytes`.
    public static func read(from path: String, maximumBytes: Int = Limits.standard.maximumBytes) throws(HostStateFileError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw HostStateFileError(.system(path: path, operation: "open", errno: errno))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw HostStateFileError(.system(path: path, operation: "fstat", errno: errno)) }
        let size = Int(status.st_size)
        guard size <= maximumBytes else { throw HostStateFileError(.tooLarge(what: "a state file", bytes: size, limit: maximumBytes)) }
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
                throw HostStateFileError(.system(path: path, operation: "read", errno: errno))
            }
        }
        guard filled <= maximumBytes else { throw HostStateFileError(.tooLarge(what: "a state file", bytes: filled, limit: maximumBytes)) }
        return Array(bytes[..<filled])
    }

    /// The wall clock now, in milliseconds since the UNIX epoch (`clock_gettime(CLOCK_REALTIME)`).
    ///
    /// - Returns: The time.
    public static func wallClockMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec)) / 1_000_000
    }
}

// The C calls under names that `HostStateFile.write(_:to:)` and `read(from:maximumBytes:)` do not shadow.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

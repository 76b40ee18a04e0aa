import Tickwire

/// The arena server's saved state (`arena serve --state FILE`): every room's world and the
/// clients that may resume in it, so that a server restarted within the grace period gives
/// returning players their places back.
///
/// The file is Tickwire's host state file (``HostStateFile``), written and read by the same
/// calls any game's ``Host/saveState(to:)`` makes: the arena only adds its own limits on each
/// world (``Limits/world``) and keeps the file's time for the age check. Each room's world is
/// ``ArenaWorld/encoded()``.
///
/// A file is refused before it is read when it is larger than ``Limits/maximumBytes``.
/// ``write(to:)`` writes a temporary file beside the target, flushes it to disk (`fsync`) and
/// `rename`s it over the target, so a process killed mid-write leaves the previous file whole.
package struct ArenaStateFile: Sendable {
    /// Size and count limits a file must respect to be read.
    package struct Limits: Hashable, Sendable {
        /// The most bytes of a file.
        package var maximumBytes = 16 << 20
        /// The most rooms.
        package var maximumRooms = 256
        /// The most resumable clients per room.
        package var maximumClientsPerRoom = 10_000
        /// The most UTF-8 bytes of a room name.
        package var maximumRoomNameBytes = 256
        /// The most bytes of a resume token (the protocol's limit).
        package var maximumTokenBytes = 64
        /// The limits of each room's world.
        package var world = ArenaWorld.EncodingLimits.standard

        /// The defaults: 16 MiB, 256 rooms, 10000 clients per room, 256-byte names, 64-byte tokens.
        package static let standard = Limits()

        /// Creates the default limits.
        package init() {}

        /// The same limits as Tickwire's host state file takes them.
        var hostStateFile: HostStateFile.Limits {
            var limits = HostStateFile.Limits()
            limits.maximumBytes = maximumBytes
            limits.maximumRooms = maximumRooms
            limits.room.maximumBytes = maximumBytes
            limits.room.maximumWorldBytes = world.maximumBytes
            limits.room.maximumClients = maximumClientsPerRoom
            limits.room.maximumRoomNameBytes = maximumRoomNameBytes
            limits.room.maximumTokenBytes = maximumTokenBytes
            return limits
        }
    }

    /// The first eight bytes of every file (``HostStateFile/magic``).
    package static var magic: [UInt8] { HostStateFile.magic }
    /// The format version this code writes and reads (``HostStateFile/version``).
    package static var version: UInt16 { HostStateFile.version }

    /// The server's state.
    package var state: HostState<ArenaWorld>
    /// When it was saved, in milliseconds since the UNIX epoch.
    package var savedAt: UInt64

    /// Creates a file's contents.
    ///
    /// - Parameters:
    ///   - state: The host's state.
    ///   - savedAt: When, in milliseconds since the UNIX epoch (see ``wallClockMilliseconds()``).
    package init(state: HostState<ArenaWorld>, savedAt: UInt64) {
        self.state = state
        self.savedAt = savedAt
    }

    /// The file's bytes.
    ///
    /// - Returns: The encoding (``HostStateFile/encode(_:schemaFingerprint:encodeWorld:)``).
    package func encoded() -> [UInt8] {
        HostStateFile.encode(SavedHostState(state: state, savedAt: savedAt), schemaFingerprint: ArenaSchema.schema.fingerprint) {
            $0.encoded()
        }
    }

    /// Reads a file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: The file.
    ///   - limits: Size and count limits.
    /// - Throws: ``ArenaStateError`` when the bytes are over a limit, not a state file, of
    ///   another format version or schema, damaged (checksum), cut short or malformed.
    package init(decoding bytes: [UInt8], limits: Limits = .standard) throws(ArenaStateError) {
        let world = limits.world
        do throws(HostStateFileError) {
            let saved = try HostStateFile.decode(bytes, schemaFingerprint: ArenaSchema.schema.fingerprint, limits: limits.hostStateFile) {
                (encoded: [UInt8]) throws(RoomStateError) -> ArenaWorld in try Self.world(encoded, limits: world)
            }
            self.init(state: saved.state, savedAt: saved.savedAt)
        } catch {
            throw ArenaStateError(.file(error))
        }
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
    package func checkAge(now: UInt64, maximumAge: Double) throws(ArenaStateError) {
        do throws(HostStateFileError) {
            try saved.checkAge(now: now, maximumAge: .seconds(maximumAge))
        } catch {
            throw ArenaStateError(.file(error))
        }
    }

    /// The state and its save time as the library's saved host state, whose age rules the arena shares.
    private var saved: SavedHostState<ArenaWorld> { SavedHostState(state: state, savedAt: savedAt) }

    /// The file's age at `now`, in seconds.
    ///
    /// - Parameter now: Milliseconds since the UNIX epoch.
    /// - Returns: Seconds since ``savedAt`` (negative when saved after `now`).
    package func age(now: UInt64) -> Double {
        saved.age(now: now)
    }

    /// Writes the file atomically with ``HostStateFile/write(_:to:)``: to `PATH.tmp`, flushed
    /// with `fsync`, then `rename`d to `path`.
    ///
    /// - Parameter path: The file.
    /// - Throws: ``ArenaStateError`` naming the C call that failed (`open`, `write`, `fsync`,
    ///   `close`, `rename`); the temporary file is removed and `path` left as it was.
    package func write(to path: String) throws(ArenaStateError) {
        do throws(HostStateFileError) {
            try HostStateFile.write(encoded(), to: path)
        } catch {
            throw ArenaStateError(.file(error))
        }
    }

    /// Reads a file written by ``write(to:)`` (``HostStateFile/read(from:maximumBytes:)``).
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limits: Size and count limits; a larger file is refused before it is read.
    /// - Returns: The file's contents, or `nil` when there is no file at `path`.
    /// - Throws: ``ArenaStateError`` when the file cannot be read (naming the C call) or decoded.
    package static func read(from path: String, limits: Limits = .standard) throws(ArenaStateError) -> ArenaStateFile? {
        let bytes: [UInt8]?
        do throws(HostStateFileError) {
            bytes = try HostStateFile.read(from: path, maximumBytes: limits.maximumBytes)
        } catch {
            throw ArenaStateError(.file(error))
        }
        guard let bytes else { return nil }
        return try ArenaStateFile(decoding: bytes, limits: limits)
    }

    /// The wall clock now, in milliseconds since the UNIX epoch (``HostStateFile/wallClockMilliseconds()``).
    ///
    /// - Returns: The time.
    package static func wallClockMilliseconds() -> UInt64 {
        HostStateFile.wallClockMilliseconds()
    }

    /// 64-bit FNV-1a, the file's checksum (as each room's ``RoomStateEncoding``).
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 { RoomStateEncoding.checksum(bytes) }
}

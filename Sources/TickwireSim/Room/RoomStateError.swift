/// Why bytes could not be read as a room's state (``RoomStateEncoding``).
public struct RoomStateError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case tooLarge(what: String, bytes: Int, limit: Int)
        case tooMany(what: String, count: UInt64, limit: Int)
        case notARoomState
        case unsupportedVersion(UInt8)
        case otherSchema(found: UInt64, expected: UInt64)
        case checksumMismatch
        case malformed(String)
        case invalidClientID(room: String)
        case duplicateClient(room: String, id: UInt32)
        case invalidIdentity(room: String, client: UInt32, reason: String)
        case trailingBytes(Int)
        case world(String)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// An error for a game's ``PersistableGame/decodeWorld(_:)``: the bytes are not a world.
    ///
    /// - Parameter words: What is wrong, in plain words.
    /// - Returns: The error.
    public static func invalidWorld(_ words: String) -> RoomStateError {
        RoomStateError(.world(words))
    }

    /// Whether the bytes broke a size or count limit (``RoomStateEncoding/Limits``).
    public var isOverLimit: Bool {
        switch reason {
        case .tooLarge, .tooMany: true
        default: false
        }
    }

    /// What is wrong with the bytes, in plain words.
    public var description: String {
        switch reason {
        case let .tooLarge(what, bytes, limit):
            "\(what) is \(bytes) bytes, over the limit of \(limit)"
        case let .tooMany(what, count, limit):
            "\(count) \(what), over the limit of \(limit)"
        case .notARoomState:
            "the bytes are not a Tickwire room state (no TWRS magic)"
        case let .unsupportedVersion(version):
            "room state format version \(version); this build reads versions \(RoomStateEncoding.oldestReadableVersion) to \(RoomStateEncoding.version)"
        case let .otherSchema(found, expected):
            "the room state was saved by a game with schema fingerprint \(found), not this game's \(expected)"
        case .checksumMismatch:
            "the room state is damaged: its checksum does not match"
        case let .malformed(words):
            "the room state is malformed: \(words)"
        case let .invalidClientID(room):
            "room '\(room)' lists a client with id 0, which is never handed out"
        case let .duplicateClient(room, id):
            "room '\(room)' lists client \(id) twice, or two clients with one resume token"
        case let .invalidIdentity(room, client, reason):
            "room '\(room)' saves client \(client)'s identity in Tickwire's user data layout, but its user data no longer reads as it: \(reason)"
        case let .trailingBytes(count):
            "\(count) bytes follow the room state"
        case let .world(words):
            "the game cannot read the room's world: \(words)"
        }
    }
}

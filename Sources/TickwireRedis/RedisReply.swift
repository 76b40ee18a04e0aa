/// One RESP2 reply: what Redis answers to a command.
///
/// A top-level error reply reaches a command's completion as a ``RedisError`` (its
/// ``RedisError/serverMessage``); errors nested in an array (a script's or a transaction's
/// results) stay ``error(_:)`` values.
public enum RedisReply: Hashable, Sendable {
    /// A simple string (`+OK`).
    case simpleString(String)
    /// An error reply (`-ERR …`), nested in an array.
    case error(String)
    /// An integer (`:1`).
    case integer(Int64)
    /// A bulk string: binary-safe bytes (`$3\r\nabc`).
    case bulkString([UInt8])
    /// The null bulk string or null array (`$-1`, `*-1`): no value.
    case null
    /// An array of replies (`*2\r\n…`).
    case array([RedisReply])

    /// The reply as text: a simple string, or a bulk string decoded as UTF-8; `nil` otherwise.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The reply's bytes when it is a bulk string, else `nil`.
    public var bytes: [UInt8]? {
        if case .bulkString(let bytes) = self { return bytes }
        return nil
    }

    /// The reply's value when it is an integer, else `nil`.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The reply's elements when it is an array, else `nil`.
    public var elements: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether the reply is ``null``.
    public var isNull: Bool { self == .null }
}

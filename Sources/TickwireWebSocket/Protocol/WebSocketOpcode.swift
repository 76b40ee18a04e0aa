/// The four-bit opcode of a WebSocket frame (RFC 6455 section 5.2).
///
/// A `struct` with `static let` members rather than a closed enum, so that the reserved
/// values can be represented (and refused) and new opcodes are not breaking changes.
public struct WebSocketOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode's value, 0...15.
    public let rawValue: UInt8

    /// Creates an opcode from its four-bit value.
    ///
    /// - Parameter rawValue: The value, 0...15.
    /// - Returns: `nil` when the value does not fit in four bits.
    public init?(rawValue: UInt8) {
        guard rawValue < 16 else { return nil }
        self.rawValue = rawValue
    }

    @usableFromInline
    init(uncheckedValue: UInt8) { rawValue = uncheckedValue }

    /// A continuation frame of a fragmented message (`0x0`).
    public static let continuation = WebSocketOpcode(uncheckedValue: 0x0)
    /// The first frame of a text message (`0x1`).
    public static let text = WebSocketOpcode(uncheckedValue: 0x1)
    /// The first frame of a binary message (`0x2`).
    public static let binary = WebSocketOpcode(uncheckedValue: 0x2)
    /// A close frame (`0x8`).
    public static let close = WebSocketOpcode(uncheckedValue: 0x8)
    /// A ping frame (`0x9`).
    public static let ping = WebSocketOpcode(uncheckedValue: 0x9)
    /// A pong frame (`0xA`).
    public static let pong = WebSocketOpcode(uncheckedValue: 0xA)

    /// Whether this is a control opcode (close, ping, pong or a reserved `0xB...0xF`).
    @inlinable
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// Whether RFC 6455 reserves this opcode (`0x3...0x7`, `0xB...0xF`): receiving one fails the connection.
    @inlinable
    public var isReserved: Bool {
        switch rawValue {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: false
        default: true
        }
    }

    /// A plain-words description for logs and error messages.
    public var description: String {
        switch rawValue {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        case 0xA: "pong"
        default: "reserved opcode 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// The kind of a message: the low seven bits of a frame's type byte.
///
/// An extensible value: `Protocol/PROTOCOL.md` section 5 assigns 1...63 to Tickwire (a decoder
/// refuses the ones it does not know), leaves 64...127 to applications (passed through as
/// opaque bodies), and reserves 0.
public struct MessageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's number, 0...127.
    public let rawValue: UInt8

    /// Creates a type from its number.
    ///
    /// - Parameter rawValue: The number; `nil` unless it is in 0...127.
    public init?(rawValue: UInt8) {
        guard rawValue < 0x80 else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Client → server, first frame: protocol version, schema fingerprint, room, resume token.
    public static let hello = MessageType(0x01)
    /// Server → client, accepting a hello: client id, tick rate, clock, compression, resume token.
    public static let welcome = MessageType(0x02)
    /// Server → client, refusing a hello: reason code and text. The server then closes.
    public static let reject = MessageType(0x03)
    /// Server → client: one world snapshot, delta-encoded against a baseline the client holds.
    public static let snapshot = MessageType(0x04)
    /// Client → server: the newest inputs (with redundancy) and the snapshot acknowledgement.
    public static let input = MessageType(0x05)
    /// Client → server: a clock-sync probe carrying the client's send time.
    public static let ping = MessageType(0x06)
    /// Server → client: the answer to a ping, echoing its time and adding the server's.
    public static let pong = MessageType(0x07)
    /// Either direction: the sender is leaving, with a reason code and text.
    public static let disconnect = MessageType(0x08)
    /// Server → client or tool: server statistics (tick duration percentiles, CPU, clients, bandwidth).
    public static let stats = MessageType(0x09)

    /// The application range, 64...127: types a game defines for its own messages.
    public static let applicationRange: ClosedRange<UInt8> = 0x40...0x7F

    /// Whether the type is in the application range.
    public var isApplication: Bool { Self.applicationRange.contains(rawValue) }

    /// Whether messages of this type are part of the handshake (hello, welcome, reject), which is
    /// never compressed and never enters a streaming compression context.
    var isHandshake: Bool { self == .hello || self == .welcome || self == .reject }

    /// The type's name, such as `snapshot` or `application(64)`.
    public var description: String {
        switch self {
        case .hello: "hello"
        case .welcome: "welcome"
        case .reject: "reject"
        case .snapshot: "snapshot"
        case .input: "input"
        case .ping: "ping"
        case .pong: "pong"
        case .disconnect: "disconnect"
        case .stats: "stats"
        default: isApplication ? "application(\(rawValue))" : "type(\(rawValue))"
        }
    }
}

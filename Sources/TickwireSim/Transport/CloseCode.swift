/// Why a connection ended, as a number a program acts on: the close codes of
/// `Protocol/PROTOCOL.md` section 1.3, for every transport.
///
/// The game layer's own type: over WebSocket it travels in the close frame (the adapter maps it
/// to and from `WebSocketCloseCode` one to one); over the simulated network it reaches the
/// peer's ``TransportEvent/closed(_:)`` as it is. The values are RFC 6455's range (1000–4999):
/// the registered codes a game host uses (1000, 1001, 1008, 1011, …) and Tickwire's own
/// 4000–4007. A `struct` with static members, so that a transport or a game can name codes of
/// its own (3000–3999, 4008–4999) without breaking anyone.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's value, 1000...4999.
    public let rawValue: UInt16

    /// Creates a close code.
    ///
    /// - Parameter rawValue: The code.
    /// - Returns: `nil` outside 1000...4999, the range a close code may take (RFC 6455 section 7.4).
    public init?(rawValue: UInt16) {
        guard (1000...4999).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(known rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the connection ended as intended (a client left, a replaced session).
    public static let normalClosure = CloseCode(known: 1000)
    /// 1001: the endpoint is going away (the server shuts down, the page closed).
    public static let goingAway = CloseCode(known: 1001)
    /// 1002: the peer broke the transport's protocol.
    public static let protocolError = CloseCode(known: 1002)
    /// 1003: the peer sent a kind of message this side cannot take (a text message over WebSocket).
    public static let unsupportedData = CloseCode(known: 1003)
    /// 1007: a message's data did not match its type (invalid UTF-8 in a text).
    public static let invalidFramePayloadData = CloseCode(known: 1007)
    /// 1008: a message broke the server's policy (an unknown room, a bad token, too slow).
    public static let policyViolation = CloseCode(known: 1008)
    /// 1009: a message was too big to take.
    public static let messageTooBig = CloseCode(known: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = CloseCode(known: 1011)
    /// 4000: the client's schema fingerprint differs from the server's.
    public static let schemaMismatch = CloseCode(known: 4000)
    /// 4001: the room is full.
    public static let roomFull = CloseCode(known: 4001)
    /// 4002: the client was kicked.
    public static let kicked = CloseCode(known: 4002)
    /// 4003: the hello asked for a protocol version the server does not speak.
    public static let unsupportedVersion = CloseCode(known: 4003)
    /// 4004: a frame could not be decoded (a malformed frame, an invalid hello, a protocol error).
    public static let malformedFrame = CloseCode(known: 4004)
    /// 4005: the connection was idle past its timeout (no hello, no input).
    public static let idleTimeout = CloseCode(known: 4005)
    /// 4006: the room closed.
    public static let roomClosed = CloseCode(known: 4006)
    /// 4007: the room is on another process; the reason text is the URL to reconnect to.
    public static let moved = CloseCode(known: 4007)

    /// The number and its name: `4001 room full`; `3100` for a code without a name here.
    public var description: String {
        switch rawValue {
        case 1000: "1000 normal closure"
        case 1001: "1001 going away"
        case 1002: "1002 protocol error"
        case 1003: "1003 unsupported data"
        case 1007: "1007 invalid frame payload data"
        case 1008: "1008 policy violation"
        case 1009: "1009 message too big"
        case 1011: "1011 internal server error"
        case 4000: "4000 schema mismatch"
        case 4001: "4001 room full"
        case 4002: "4002 kicked"
        case 4003: "4003 unsupported version"
        case 4004: "4004 malformed frame"
        case 4005: "4005 idle timeout"
        case 4006: "4006 room closed"
        case 4007: "4007 moved"
        default: "\(rawValue)"
        }
    }
}

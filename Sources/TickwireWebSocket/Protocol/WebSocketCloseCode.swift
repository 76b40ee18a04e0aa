/// A WebSocket close status code (RFC 6455 section 7.4).
///
/// A `struct` with `static let` members, so that registered, library and application codes
/// all fit. Codes that must never appear on the wire (``noStatusReceived``,
/// ``abnormalClosure``, ``tlsHandshakeFailure``) exist to report what happened locally.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's value.
    public let rawValue: UInt16

    /// Creates a close code.
    ///
    /// - Parameter rawValue: The code, 1000...4999.
    /// - Returns: `nil` for values RFC 6455 does not use as status codes (0...999 and 5000 and up).
    public init?(rawValue: UInt16) {
        guard (1000...4999).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A code without the range check, for the `static let` members (here and in the game layer).
    package init(uncheckedValue: UInt16) { rawValue = uncheckedValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(uncheckedValue: 1000)
    /// 1001: the endpoint is going away (server shutting down, page closed).
    public static let goingAway = WebSocketCloseCode(uncheckedValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(uncheckedValue: 1002)
    /// 1003: the peer sent a kind of data this endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(uncheckedValue: 1003)
    /// 1005: a close frame arrived without a status code. Never sent on the wire.
    public static let noStatusReceived = WebSocketCloseCode(uncheckedValue: 1005)
    /// 1006: the connection closed without a close frame. Never sent on the wire.
    public static let abnormalClosure = WebSocketCloseCode(uncheckedValue: 1006)
    /// 1007: a message's data was inconsistent with its type (invalid UTF-8 in a text message).
    public static let invalidFramePayloadData = WebSocketCloseCode(uncheckedValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(uncheckedValue: 1008)
    /// 1009: a frame or message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(uncheckedValue: 1009)
    /// 1010: the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = WebSocketCloseCode(uncheckedValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(uncheckedValue: 1011)
    /// 1012: the service is restarting (IANA registry).
    public static let serviceRestart = WebSocketCloseCode(uncheckedValue: 1012)
    /// 1013: try again later (IANA registry).
    public static let tryAgainLater = WebSocketCloseCode(uncheckedValue: 1013)
    /// 1014: a gateway got an invalid response upstream (IANA registry).
    public static let badGateway = WebSocketCloseCode(uncheckedValue: 1014)
    /// 1015: the TLS handshake failed. Never sent on the wire.
    public static let tlsHandshakeFailure = WebSocketCloseCode(uncheckedValue: 1015)

    /// Whether an endpoint may accept this code in a received close frame.
    ///
    /// Valid: the registered codes 1000...1003 and 1007...1014, and the library and
    /// application ranges 3000...4999. Invalid: 1004 (reserved), 1005, 1006 and 1015
    /// (local-only), the unassigned rest of 1016...2999, and anything outside 1000...4999.
    ///
    /// - Parameter code: The two-byte code as read from a close frame.
    /// - Returns: Whether the code is acceptable on the wire.
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Whether this code may be sent in a close frame (see ``isValidOnWire(_:)``).
    public var isValidOnWire: Bool { Self.isValidOnWire(rawValue) }

    /// A plain-words description for logs and error messages.
    public var description: String {
        switch rawValue {
        case 1000: "1000 normal closure"
        case 1001: "1001 going away"
        case 1002: "1002 protocol error"
        case 1003: "1003 unsupported data"
        case 1005: "1005 no status received"
        case 1006: "1006 abnormal closure"
        case 1007: "1007 invalid frame payload data"
        case 1008: "1008 policy violation"
        case 1009: "1009 message too big"
        case 1010: "1010 mandatory extension"
        case 1011: "1011 internal server error"
        case 1012: "1012 service restart"
        case 1013: "1013 try again later"
        case 1014: "1014 bad gateway"
        case 1015: "1015 TLS handshake failure"
        default: "\(rawValue)"
        }
    }
}

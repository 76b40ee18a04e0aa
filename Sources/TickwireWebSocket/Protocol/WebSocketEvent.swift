/// What a ``WebSocketProtocolMachine`` reports from received bytes.
///
/// Data reaches the user whole: fragmented messages are reassembled, compressed ones
/// inflated, text validated. Pings are answered by the machine before the event is
/// reported; the ping and pong events are informational (keepalive, round-trip time).
public enum WebSocketEvent: Hashable, Sendable {
    /// A complete text message, valid UTF-8.
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// A ping arrived; the machine has already written the pong (unless closing).
    case ping([UInt8])
    /// A pong arrived (see ``WebSocketKeepalive`` to match it against a ping).
    case pong([UInt8])
    /// The peer's close frame arrived; the close handshake is complete and the state is
    /// ``WebSocketConnectionState/closed``. If the peer started it, the machine has
    /// written the close reply.
    case close(WebSocketCloseFrame)
}

/// The content of a close frame: an optional status code and a reason.
public struct WebSocketCloseFrame: Hashable, Sendable, CustomStringConvertible {
    /// The status code, or `nil` for a close frame with an empty body.
    public var code: WebSocketCloseCode?
    /// The reason text (at most 123 UTF-8 bytes on the wire); empty when none was given.
    public var reason: String

    /// Creates a close frame's content.
    ///
    /// - Parameters:
    ///   - code: The status code, or `nil` for an empty body.
    ///   - reason: The reason text.
    public init(code: WebSocketCloseCode?, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// The code to report to the user: ``code``, or 1005 (no status received) when the frame had none.
    public var effectiveCode: WebSocketCloseCode { code ?? .noStatusReceived }

    /// A plain-words description for logs and error messages.
    public var description: String {
        reason.isEmpty ? "close \(effectiveCode)" : "close \(effectiveCode): \(reason)"
    }
}

/// Where a connection stands in the close handshake (RFC 6455 section 7).
public enum WebSocketConnectionState: Hashable, Sendable {
    /// Messages flow both ways.
    case open
    /// This endpoint sent a close frame and waits for the peer's. Nothing more may be
    /// sent; received messages are still delivered. The I/O layer owns the clock: if the
    /// reply does not come within its close timeout, it closes the socket.
    case closing
    /// The close handshake is complete, or the connection failed. Flush the output, then
    /// close the socket (a server at once; a client may first wait briefly for the server
    /// to close, as RFC 6455 section 7.1.1 prefers). Further received bytes are ignored.
    case closed
}

extension WebSocketClient {
    /// Why the last connection attempt's upgrade handshake failed, or `nil` once a connection
    /// opens (and when the last attempt failed before or after the handshake).
    ///
    /// A server's refusal (a status other than 101: 429 for a per-address budget, 503 at the
    /// connection limit, …) is in ``WebSocketHandshakeError/refusal``, with the body's words and
    /// the budget and value a ``WebSocketServer`` names in ``WebSocketRefusal/headerName``. It
    /// is set before the attempt's ``WebSocketClientEvent/disconnected(_:)`` is published.
    public var lastHandshakeError: WebSocketHandshakeError? { shared.withLock { $0.handshakeError } }
}

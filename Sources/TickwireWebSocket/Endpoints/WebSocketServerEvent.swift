/// What a ``WebSocketServer`` reports to its handler, on its loop thread, or through ``WebSocketServer/events``.
public enum WebSocketServerEvent: Sendable {
    /// A client completed the handshake.
    case opened(WebSocketConnection)
    /// A complete message arrived.
    case message(WebSocketConnection, WebSocketMessage)
    /// The connection's send buffer fell back to its low-water mark after being over its high-water mark.
    case writable(WebSocketConnection)
    /// The connection ended: the peer's close frame, or code 1006 with the local reason (timeout, reset).
    case closed(WebSocketConnection, WebSocketCloseFrame)
}

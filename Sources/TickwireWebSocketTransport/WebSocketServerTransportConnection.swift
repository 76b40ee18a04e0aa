import TickwireSim
import TickwireWebSocket

/// One WebSocket connection accepted by a ``WebSocketTransportServer``, seen as a
/// ``TransportConnection``: binary messages in and out, one frame per message.
///
/// Thread-safe: the inbox is Mutex-protected and the wrapped connection is Sendable.
final class WebSocketServerTransportConnection: TransportConnection, Sendable {
    let connection: WebSocketConnection
    let inbox = TransportInbox()

    init(_ connection: WebSocketConnection) {
        self.connection = connection
    }

    /// The WebSocket connection's id.
    public var connectionID: UInt64 { connection.id }

    /// Sends `frame` as one binary message.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: The WebSocket connection's ``SendResult`` as a ``TransportSendResult``:
    ///   ``TransportSendResult/backedUp`` when its send buffer is at its hard limit,
    ///   ``TransportSendResult/closed`` once either side closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        return TransportSendResult(connection.send(binary: frame))
    }

    /// Bytes queued in the WebSocket send buffer.
    public var bufferedBytes: Int { connection.bufferedByteCount }

    /// Whether a frame sent now would be taken: `backedUp` when more than `budgetBytes` are
    /// queued or the send buffer is at its hard limit (``SendBufferLimits/hardLimit``).
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now.
    public func readiness(budgetBytes: Int) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        return TransportSendResult(buffered: connection.bufferedByteCount, budgetBytes: budgetBytes, limits: connection.sendBufferLimits)
    }

    /// Takes the events received since the last call.
    ///
    /// - Returns: The frames, and `.closed` once the connection ended.
    public func drain() -> [TransportEvent] { inbox.drain() }

    /// Takes the events received since the last call, each with how long it waited since the
    /// socket loop took it off the socket.
    ///
    /// - Returns: The frames and their waits, and `.closed` once the connection ended.
    public func drainArrivals() -> [TransportArrival] { inbox.drainArrivals() }

    /// Starts the WebSocket close handshake with `code` and `reason`.
    ///
    /// - Parameters:
    ///   - code: The close code (PROTOCOL.md section 1.3).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: CloseCode, reason: String) {
        inbox.closeLocally()
        connection.close(code: WebSocketCloseCode(code), reason: reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes))
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { inbox.isClosed }
}

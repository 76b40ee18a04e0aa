/// One ``TransportListener`` over several: a host that serves WebSocket and UDP clients in the
/// same rooms takes its new connections from every transport alike.
///
/// ```swift
/// let listener = CombinedTransportListener([webSocketServer, udpServer])
/// let host = Host(game: game, listener: listener, clock: clock)
/// ```
///
/// Thread-safe as its listeners are: it holds nothing but the immutable list.
public final class CombinedTransportListener: TransportListener, Sendable {
    /// The listeners, in the order their connections are taken.
    public let listeners: [any TransportListener]

    /// Creates a listener over `listeners`.
    ///
    /// - Parameter listeners: The transports' listeners; their connections are taken in this
    ///   order each time (every connection of the first, then of the second, …).
    public init(_ listeners: [any TransportListener]) {
        self.listeners = listeners
    }

    /// Takes the connections every listener accepted since the last call.
    ///
    /// - Returns: The first listener's new connections, then the second's, and so on.
    public func acceptPending() -> [any TransportConnection] {
        listeners.flatMap { $0.acceptPending() }
    }

    /// Runs `body` inside every listener's batching, nested, so that each transport hands on
    /// the frames `body` sends in one batch.
    ///
    /// - Parameter body: The sending.
    public func batchingSends(_ body: () -> Void) {
        batching(from: 0, body)
    }

    private func batching(from index: Int, _ body: () -> Void) {
        guard index < listeners.count else { return body() }
        listeners[index].batchingSends { batching(from: index + 1, body) }
    }
}

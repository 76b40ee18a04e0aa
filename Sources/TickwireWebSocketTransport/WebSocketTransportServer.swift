import Synchronization
import TickwireSim
import TickwireWebSocket

/// The subprotocol Tickwire speaks over WebSocket (PROTOCOL.md section 1.1).
public let tickwireWebSocketSubprotocol = "tickwire.v1"

/// A ``TransportListener`` on a ``WebSocketServer``: accepts connections that offer the
/// `tickwire.v1` subprotocol and turns their binary messages into frames.
///
/// The server's loop thread fills Mutex-protected inboxes; the host drains them once per
/// tick. The pending list and the connection map live in a `Mutex`.
public final class WebSocketTransportServer: TransportListener, Sendable {
    /// The connections, shared with the server's handler; its state is in the `Mutex`.
    private final class Registry: Sendable {
        struct State {
            var pending: [WebSocketServerTransportConnection] = []
            var byID: [UInt64: WebSocketServerTransportConnection] = [:]
        }
        let state = Mutex(State())
    }

    private let registry = Registry()
    let server: WebSocketServer

    /// Creates and starts a server.
    ///
    /// - Parameter configuration: Address, limits and compression; the subprotocol is set to
    ///   `tickwire.v1` and required. Everything else passes through as it is, among it
    ///   ``WebSocketServerConfiguration/httpHandler`` for plain HTTP requests on the same port.
    /// - Returns: The transport; read the bound port from ``address``.
    /// - Throws: ``SystemError`` when the socket cannot be opened.
    public init(configuration: WebSocketServerConfiguration = WebSocketServerConfiguration()) throws(SystemError) {
        var configuration = configuration
        configuration.subprotocols = [tickwireWebSocketSubprotocol]
        configuration.requiresSubprotocol = true
        let registry = self.registry
        let server = try WebSocketServer(configuration: configuration) { event in
            switch event {
            case .opened(let connection):
                let transport = WebSocketServerTransportConnection(connection)
                registry.state.withLock { state in
                    state.pending.append(transport)
                    state.byID[connection.id] = transport
                }
            case .message(let connection, let message):
                guard let transport = registry.state.withLock({ $0.byID[connection.id] }) else { return }
                if case .binary(let bytes) = message {
                    transport.inbox.push(.frame(bytes))
                } else {
                    // Tickwire frames are binary messages only (PROTOCOL.md section 1).
                    connection.close(code: .unsupportedData, reason: "Tickwire frames are binary messages")
                }
            case .closed(let connection, let frame):
                let transport = registry.state.withLock { $0.byID.removeValue(forKey: connection.id) }
                transport?.inbox.push(.closed(TransportCloseReason(frame)))
            case .writable:
                break
            }
        }
        self.server = server
        _ = try server.start()
    }

    /// The address the server listens on (with the port the kernel chose for port 0).
    public var address: SocketAddress? { server.address }

    /// The WebSocket server's connection figures (``WebSocketServer/statistics``), readable from
    /// any thread; a ``MetricsSource``.
    public var statistics: WebSocketServerStatistics { server.statistics }

    /// Takes the connections opened since the last call.
    ///
    /// - Returns: The new connections, in the order they opened.
    public func acceptPending() -> [any TransportConnection] {
        registry.state.withLock { state in
            let accepted = state.pending
            state.pending.removeAll()
            return accepted
        }
    }

    /// Runs `body` with the server loop's wake-ups held (``EventLoop/withHeldWakeups(_:)``):
    /// the frames `body` sends reach the loop in one turn, for one wake-up.
    ///
    /// - Parameter body: The sending.
    public func batchingSends(_ body: () -> Void) {
        server.loop.withHeldWakeups(body)
    }

    /// Closes every connection and stops the server.
    ///
    /// - Parameter timeout: How long to wait for close handshakes.
    public func shutdown(timeout: Duration = .seconds(2)) {
        server.shutdown(timeout: timeout)
    }
}

import Synchronization
import TickwireFoundation
import TickwireWebSocket

/// The subprotocol Tickwire speaks over WebSocket (PROTOCOL.md section 1.1).
public let tickwireWebSocketSubprotocol = "tickwire.v1"

/// An inbox of transport events filled on a WebSocket loop thread and drained on the tick
/// thread; every field lives in the `Mutex`.
final class TransportInbox: Sendable {
    private struct State {
        var events: [TransportEvent] = []
        var isClosed = false
    }

    private let state = Mutex(State())

    func push(_ event: TransportEvent) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.events.append(event)
            if case .closed = event { state.isClosed = true }
        }
    }

    func drain() -> [TransportEvent] {
        state.withLock { state in
            let events = state.events
            state.events.removeAll()
            return events
        }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Marks the inbox closed without an event (this side closed).
    func closeLocally() {
        state.withLock { $0.isClosed = true }
    }
}

extension TransportSendResult {
    /// The transport's view of a WebSocket ``SendResult``: accepted (over the high-water mark
    /// or not) is taken; a full buffer is backed up; a connection not open is closed.
    init(_ result: SendResult) {
        if result.isAccepted {
            self = .taken
        } else if result == .droppedBufferFull {
            self = .backedUp
        } else {
            self = .closed
        }
    }

    /// Readiness from a WebSocket send buffer: backed up over the sender's budget or at the
    /// buffer's hard limit (where ``WebSocketConnection/send(_:)`` refuses).
    init(buffered: Int, budgetBytes: Int, limits: SendBufferLimits) {
        self = buffered > budgetBytes || buffered >= limits.hardLimit ? .backedUp : .taken
    }
}

extension TransportCloseReason {
    /// The transport's view of how a WebSocket connection ended: a close frame that carried a
    /// code the peer may send (RFC 6455 7.4) is ``closedByPeer(code:text:)`` with that code
    /// and reason; anything else (no close frame, 1006, a close without a code) is
    /// ``connectionLost`` (no code), with the words the WebSocket layer reported.
    init(_ frame: WebSocketCloseFrame) {
        if let code = frame.code, code.isValidOnWire {
            self = .closedByPeer(code: code, text: frame.reason)
        } else {
            self = TransportCloseReason(TransportCloseReason.connectionLost.name, code: nil, text: frame.reason)
        }
    }
}

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

    /// Starts the WebSocket close handshake with `code` and `reason`.
    ///
    /// - Parameters:
    ///   - code: The close code (PROTOCOL.md section 1.3).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: WebSocketCloseCode, reason: String) {
        inbox.closeLocally()
        connection.close(code: code, reason: reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes))
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { inbox.isClosed }
}

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

/// A client-side ``TransportConnection`` over a ``WebSocketClient`` to a `ws://` URL.
///
/// One instance is one connection: it does not reconnect on its own (the session layer
/// resumes over a new connection, with its token). Frames sent before the socket opens are
/// queued and go out once it does. Thread-safe: the inbox is Mutex-protected and
/// the client is Sendable.
public final class WebSocketClientTransportConnection: TransportConnection, Sendable {
    let inbox = TransportInbox()
    private let client: WebSocketClient
    private static let nextID = Atomic<UInt64>(1)
    /// A number for logs (client connections are numbered in the order they were made).
    public let connectionID: UInt64
    /// The URL's path (`/main` for `ws://host:7777/main`): the room a ``ClientSession`` joins
    /// when its ``ClientConfiguration/room`` is `nil`.
    public let requestPath: String?

    /// Connects to `url`, offering the `tickwire.v1` subprotocol. The URL's path names the
    /// room a ``ClientSession`` over this connection joins (``requestPath``, ``ClientSession/room``).
    ///
    /// - Parameters:
    ///   - url: The server's URL, for example `ws://127.0.0.1:7000/play`.
    ///   - configuration: Compression, keepalive and buffers; reconnection is turned off.
    ///   - loop: The event loop to run on (share one among many connections, as a load tool
    ///     should), or `nil` for a loop of its own, stopped by ``close()``.
    /// - Throws: ``SystemError`` when the client's loop cannot be started.
    public init(
        url: WebSocketURL, configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(), loop: EventLoop? = nil
    ) throws(SystemError) {
        var configuration = configuration
        configuration.subprotocols = [tickwireWebSocketSubprotocol]
        configuration.reconnect = ReconnectPolicy(isEnabled: false)
        connectionID = WebSocketClientTransportConnection.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        requestPath = url.path
        let inbox = self.inbox
        client = try WebSocketClient(url: url, configuration: configuration, loop: loop) { event in
            switch event {
            case .message(.binary(let bytes)):
                inbox.push(.frame(bytes))
            case .disconnected(let frame):
                inbox.push(.closed(TransportCloseReason(frame)))
            case .stateChanged(.closed(let frame)):
                inbox.push(.closed(TransportCloseReason(frame)))
            default:
                break
            }
        }
        client.connect()
    }

    /// Sends `frame` as one binary message (queued while the connection is opening).
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: The WebSocket client's ``SendResult`` as a ``TransportSendResult``:
    ///   ``TransportSendResult/backedUp`` when its send buffer (or, while opening, its queue) is
    ///   full, ``TransportSendResult/closed`` once either side closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        return TransportSendResult(client.send(binary: frame))
    }

    /// Bytes queued in the WebSocket send buffer.
    public var bufferedBytes: Int { client.connection?.bufferedByteCount ?? 0 }

    /// Whether a frame sent now would be taken: `backedUp` when more than `budgetBytes` are
    /// queued or the send buffer is at its hard limit (``SendBufferLimits/hardLimit``).
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now (while the socket is still
    ///   opening, `taken`: the client queues the frame).
    public func readiness(budgetBytes: Int) -> TransportSendResult {
        guard !inbox.isClosed else { return .closed }
        guard let connection = client.connection else { return .taken }
        return TransportSendResult(buffered: connection.bufferedByteCount, budgetBytes: budgetBytes, limits: connection.sendBufferLimits)
    }

    /// Takes the events received since the last call.
    ///
    /// - Returns: The frames, and `.closed` once the connection ended.
    public func drain() -> [TransportEvent] { inbox.drain() }

    /// How long ``close()`` waits for the server's close reply before dropping the socket.
    public static let closeWait: Duration = .milliseconds(500)

    /// Closes the connection (close handshake with `code` and `reason`) and stops the client's loop.
    ///
    /// A connection on a loop of its own (made without `loop:`, as a game client's is) waits
    /// for the server's close reply, at most ``closeWait``, so that the frames sent just before,
    /// such as a session's disconnect message, reach the server even when the process exits
    /// right after. A connection on a shared loop (a load tool's thousand) does not block its
    /// caller: it drops the socket at once, and what was still queued may be lost.
    ///
    /// - Parameters:
    ///   - code: The close code (1000 for a normal end, 1001 when the app exits).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: WebSocketCloseCode, reason: String) {
        guard !inbox.isClosed else { return }
        inbox.closeLocally()
        client.close(code: code, reason: reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes))
        if client.hasOwnLoop && !client.loop.isInLoopThread {
            client.shutdown(afterClosingWithin: Self.closeWait)
        } else {
            client.shutdown()
        }
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { inbox.isClosed }

    deinit {
        client.shutdown()
    }
}

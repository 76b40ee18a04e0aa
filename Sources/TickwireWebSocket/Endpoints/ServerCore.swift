import TickwireIO

/// The loop-thread state of a ``WebSocketServer``: listener, handshakes in progress, open channels.
///
/// Not thread-safe: loop thread only.
final class ServerCore {
    let configuration: WebSocketServerConfiguration
    let handshakeConfiguration: WebSocketServerHandshake.Configuration
    private let loop: EventLoop
    private let handler: @Sendable (WebSocketServerEvent) -> Void
    private let publishCount: (Int) -> Void
    private var listener: Listener?
    private var handshakes: [ObjectIdentifier: ServerHandshake] = [:]
    private var channels: [UInt64: WebSocketChannel] = [:]
    private var isShuttingDown = false
    private var shutdownCompletions: [() -> Void] = []
    private var shutdownTimer: TimerHandle?

    init(
        configuration: WebSocketServerConfiguration, loop: EventLoop,
        handler: @escaping @Sendable (WebSocketServerEvent) -> Void, publishCount: @escaping (Int) -> Void
    ) {
        self.configuration = configuration
        handshakeConfiguration = WebSocketServerHandshake.Configuration(
            subprotocols: configuration.subprotocols, requiresSubprotocol: configuration.requiresSubprotocol,
            compression: configuration.compression
        )
        self.loop = loop
        self.handler = handler
        self.publishCount = publishCount
    }

    /// Connections handshaking or open.
    var connectionCount: Int { handshakes.count + channels.count }

    /// Binds and listens.
    func listen(on address: SocketAddress) throws(SystemError) -> SocketAddress {
        let listener = try Listener(address: address, loop: loop) { [weak self] socket, peer in
            guard let self else { return }
            self.accept(socket, peer: peer)
        }
        self.listener = listener
        return listener.address
    }

    private func accept(_ socket: Socket, peer: SocketAddress?) {
        guard let tcp = try? TCPChannel(socket: socket, peer: peer, loop: loop) else { return }
        if isShuttingDown || connectionCount >= configuration.maximumConnections {
            let detail =
                isShuttingDown
                ? "the server is shutting down" : "the server is at its limit of \(configuration.maximumConnections) connections"
            tcp.write(ServerHandshake.errorResponse(status: 503, reason: "Service Unavailable", detail: detail))
            tcp.closeAfterFlush()
            return
        }
        let handshake = ServerHandshake(tcp: tcp, core: self)
        handshakes[ObjectIdentifier(handshake)] = handshake
        publishCount(connectionCount)
    }

    func handshakeEnded(_ handshake: ServerHandshake) {
        handshakes[ObjectIdentifier(handshake)] = nil
        publishCount(connectionCount)
        checkShutdownComplete()
    }

    func handshakeSucceeded(
        _ handshake: ServerHandshake, tcp: TCPChannel, machine: WebSocketProtocolMachine,
        connection: WebSocketConnection, initialBytes: [UInt8]
    ) {
        handshakes[ObjectIdentifier(handshake)] = nil
        let handler = self.handler
        let channel = WebSocketChannel(
            tcp: tcp, machine: machine, connection: connection, closeTimeout: configuration.closeTimeout,
            keepalive: configuration.keepalive
        ) { [weak self] event in
            switch event {
            case .message(let message): handler(.message(connection, message))  // no weak load per message
            case .writable: handler(.writable(connection))
            case .closed(let frame):
                guard let self else { return }
                self.channels[connection.id] = nil
                self.publishCount(self.connectionCount)
                handler(.closed(connection, frame))
                self.checkShutdownComplete()
            }
        }
        channels[connection.id] = channel
        publishCount(connectionCount)
        handler(.opened(connection))
        channel.start(initialBytes: initialBytes)
    }

    /// Stops listening, closes every connection with 1001 and calls `completion` once all have
    /// closed or `timeout` has passed (then the rest are cut off).
    func shutdown(timeout: Duration, completion: @escaping () -> Void) {
        shutdownCompletions.append(completion)
        if !isShuttingDown {
            isShuttingDown = true
            listener?.close()
            listener = nil
            for handshake in Array(handshakes.values) {
                handshake.reject(status: 503, reason: "Service Unavailable", detail: "the server is shutting down")
            }
            for channel in Array(channels.values) {
                channel.close(code: .goingAway, reason: "server shutting down")
            }
            shutdownTimer = loop.schedule(after: timeout) { [weak self] in
                guard let self else { return }
                for channel in Array(self.channels.values) { channel.abort(reason: "shutdown timeout") }
                self.checkShutdownComplete()
            }
        }
        checkShutdownComplete()
    }

    private func checkShutdownComplete() {
        guard isShuttingDown, channels.isEmpty, handshakes.isEmpty, !shutdownCompletions.isEmpty else { return }
        if let shutdownTimer { loop.cancel(shutdownTimer) }
        shutdownTimer = nil
        let completions = shutdownCompletions
        shutdownCompletions = []
        for completion in completions { completion() }
    }
}

@available(*, unavailable)
extension ServerCore: Sendable {}

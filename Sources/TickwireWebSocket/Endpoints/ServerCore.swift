import TickwireFoundation
import TickwireIO

/// The loop-thread state of a ``WebSocketServer``: listener, handshakes in progress, open
/// channels, and the connection budgets of ``WebSocketServerConfiguration``: open connections,
/// handshakes (the oldest evicted when full), both per address, and buffered output.
///
/// Not thread-safe: loop thread only.
final class ServerCore {
    let configuration: WebSocketServerConfiguration
    let handshakeConfiguration: WebSocketServerHandshake.Configuration
    private let loop: EventLoop
    private let handler: @Sendable (WebSocketServerEvent) -> Void
    private let publishCount: (Int) -> Void
    /// What the server has done with its connections, for ``WebSocketServer/statistics``.
    let counters: ServerCounters
    /// The listening socket (internal for tests, which give it a failing `accept`).
    private(set) var listener: Listener?
    private var handshakes: [ObjectIdentifier: ServerHandshake] = [:]
    /// Handshakes in the order they started, for evicting the oldest; finished ones are skipped
    /// and dropped lazily (from `handshakeQueueStart`, and by compaction).
    private var handshakeQueue: [ServerHandshake] = []
    private var handshakeQueueStart = 0
    /// Connections (handshaking or open) and handshakes per address group.
    private var addressCounts: [PeerAddressGroup: AddressCount] = [:]
    let outputBudget: OutputBudget
    private var channels: [UInt64: WebSocketChannel] = [:]
    private var isShuttingDown = false
    private var shutdownCompletions: [() -> Void] = []
    private var shutdownTimer: TimerHandle?
    /// The TLS context for new connections (replaced by ``WebSocketServer/reloadCertificates()``).
    lazy var tlsContext: TLSServerContext? = configuration.tls
    /// Hears of every connection whose TLS failed before its upgrade completed (set by ``WebSocketServer``).
    var onTLSFailure: (TLSError, SocketAddress?) -> Void = { _, _ in }

    init(
        configuration: WebSocketServerConfiguration, loop: EventLoop,
        handler: @escaping @Sendable (WebSocketServerEvent) -> Void, counters: ServerCounters = ServerCounters(),
        publishCount: @escaping (Int) -> Void
    ) {
        self.counters = counters
        self.configuration = configuration
        handshakeConfiguration = WebSocketServerHandshake.Configuration(
            subprotocols: configuration.subprotocols, requiresSubprotocol: configuration.requiresSubprotocol,
            compression: configuration.compression
        )
        self.loop = loop
        self.handler = handler
        self.publishCount = publishCount
        outputBudget = OutputBudget(limitBytes: configuration.outputBudgetBytes, loop: loop)
        outputBudget.enforce = { [weak self] in self?.enforceOutputBudget() }
    }

    struct AddressCount {
        var connections = 0
        var handshakes = 0
    }

    /// Connections handshaking or open.
    var connectionCount: Int { handshakes.count + channels.count }

    /// Publishes the connection count (``WebSocketServer/connectionCount``) and the gauges of
    /// ``WebSocketServer/statistics``.
    private func publishCounts() {
        publishCount(connectionCount)
        counters.handshakesInProgress.store(handshakes.count, ordering: .relaxed)
        counters.openConnections.store(channels.count, ordering: .relaxed)
    }

    /// Binds and listens.
    func listen(on address: SocketAddress) throws(SystemError) -> SocketAddress {
        let counters = self.counters
        let logSink = configuration.logSink
        let listener = try Listener(
            address: address, loop: loop, logSink: logSink,
            onEvent: { event in
                switch event {
                case .acceptFailed:
                    counters.acceptErrors.wrappingAdd(1, ordering: .relaxed)
                case .registrationFailed:
                    counters.listenerRegistrationFailures.wrappingAdd(1, ordering: .relaxed)
                case .failed(let error):
                    counters.listenerFailure.withLock { $0 = error }
                    logSink.log(
                        .critical, "the server accepts no more connections", metadata: ["address": "\(address)", "error": "\(error)"],
                        source: "websocket-server")
                case .acceptingChanged(let isAccepting):
                    counters.listenerAccepting.store(isAccepting ? 1 : 0, ordering: .relaxed)
                }
            }
        ) { [weak self] socket, peer in
            guard let self else { return }
            self.accept(socket, peer: peer)
        }
        self.listener = listener
        counters.listenerAccepting.store(1, ordering: .relaxed)
        logSink.log(.info, "listening", metadata: ["address": "\(listener.address)"], source: "websocket-server")
        return listener.address
    }

    /// Counts and logs an accepted connection that could not be set up (it is dropped).
    private func setupFailed(peer: SocketAddress?, what: String, error: any Error) {
        counters.connectionSetupFailures.wrappingAdd(1, ordering: .relaxed)
        configuration.logSink.log(
            .error, "dropped an accepted connection: \(what)", metadata: ["peer": peer.map { "\($0)" } ?? "unknown", "error": "\(error)"],
            source: "websocket-server")
    }

    /// Logs a connection refused by a budget at `notice`: the `count`-th of its kind (the
    /// caller's counter, just incremented) when it is the 1st, 2nd, 4th, 8th…, so that a flood
    /// writes a few lines while the counter in ``WebSocketServer/statistics`` counts every one.
    func logRefusal(peer: SocketAddress?, status: Int, count: Int, detail: String) {
        guard count > 0, count & (count - 1) == 0 else { return }
        configuration.logSink.log(
            .notice, "refused a connection: \(detail)",
            metadata: ["peer": peer.map { "\($0)" } ?? "unknown", "status": "\(status)", "refused_so_far": "\(count)"],
            source: "websocket-server")
    }

    private func accept(_ socket: Socket, peer: SocketAddress?) {
        let tls: TLSSession?
        switch tlsSession(for: socket) {
        case .success(let session): tls = session
        case .failure(let error): return setupFailed(peer: peer, what: "no TLS session could be made for it", error: error)
        }
        let tcp: TCPChannel
        do {
            tcp = try TCPChannel(socket: socket, peer: peer, loop: loop, tls: tls)
        } catch {
            return setupFailed(peer: peer, what: "the event loop would not watch its socket", error: error)
        }
        if isShuttingDown || channels.count >= configuration.maximumConnections {
            let detail =
                isShuttingDown
                ? "the server is shutting down" : "the server is at its limit of \(configuration.maximumConnections) connections"
            let count =
                isShuttingDown
                ? counters.refusedShuttingDown.wrappingAdd(1, ordering: .relaxed).newValue
                : counters.refusedAtConnectionLimit.wrappingAdd(1, ordering: .relaxed).newValue
            logRefusal(peer: peer, status: 503, count: count, detail: detail)
            tcp.write(
                ServerHandshake.errorResponse(
                    status: 503, reason: "Service Unavailable", detail: detail,
                    budget: isShuttingDown ? .shuttingDown : .connectionLimit,
                    limit: isShuttingDown ? nil : configuration.maximumConnections))
            // Over TLS the 503 follows the TLS handshake, within the channel's linger timeout.
            tcp.closeAfterFlush(awaitingTLSHandshake: true)
            return
        }
        let group = peer.flatMap { PeerAddressGroup($0, ipv6PrefixLength: configuration.ipv6PrefixLength) }
        if let group {
            let count = addressCounts[group] ?? AddressCount()
            if count.connections >= configuration.maximumConnectionsPerAddress {
                let refused = counters.refusedPerAddressConnections.wrappingAdd(1, ordering: .relaxed).newValue
                logRefusal(
                    peer: peer, status: 429, count: refused,
                    detail:
                        "too many connections from one address (maximumConnectionsPerAddress \(configuration.maximumConnectionsPerAddress))"
                )
                Self.refuseAtOnce(
                    tcp, status: 429,
                    detail: "too many connections from your address (limit \(configuration.maximumConnectionsPerAddress))",
                    budget: .addressConnectionLimit, limit: configuration.maximumConnectionsPerAddress)
                return
            }
            if count.handshakes >= configuration.maximumHandshakesPerAddress {
                let refused = counters.refusedPerAddressHandshakes.wrappingAdd(1, ordering: .relaxed).newValue
                logRefusal(
                    peer: peer, status: 429, count: refused,
                    detail:
                        "too many handshakes from one address (maximumHandshakesPerAddress \(configuration.maximumHandshakesPerAddress))")
                Self.refuseAtOnce(
                    tcp, status: 429,
                    detail: "too many handshakes in progress from your address (limit \(configuration.maximumHandshakesPerAddress))",
                    budget: .addressHandshakeLimit, limit: configuration.maximumHandshakesPerAddress)
                return
            }
        }
        while handshakes.count >= max(configuration.maximumHandshakes, 1), let oldest = oldestHandshake() {
            let evicted = counters.handshakesEvicted.wrappingAdd(1, ordering: .relaxed).newValue
            logRefusal(
                peer: nil, status: 503, count: evicted,
                detail: "evicted the oldest handshake (maximumHandshakes \(configuration.maximumHandshakes))")
            oldest.evict(
                detail: "the server's \(configuration.maximumHandshakes) handshake places are full and this one was the oldest",
                limit: configuration.maximumHandshakes)
        }
        let handshake = ServerHandshake(tcp: tcp, core: self, addressGroup: group)
        handshakes[ObjectIdentifier(handshake)] = handshake
        handshakeQueue.append(handshake)
        if let group {
            addressCounts[group, default: AddressCount()].connections += 1
            addressCounts[group, default: AddressCount()].handshakes += 1
        }
        publishCounts()
    }

    /// Answers with an HTTP error and closes at once, without waiting for the peer's end of
    /// stream (a peer over a per-address limit is likely flooding; the answer may be lost to a reset).
    static func refuseAtOnce(_ tcp: TCPChannel, status: Int, detail: String, budget: WebSocketRefusal.Budget, limit: Int?) {
        let response = ServerHandshake.errorResponse(
            status: status, reason: HTTPResponse.reasonPhrase(for: status), detail: detail, budget: budget, limit: limit)
        response.withUnsafeBytes {
            tcp.writeNow($0)
        }
        tcp.close()
    }

    /// The oldest handshake still in progress, dropping finished ones from the front of the queue.
    private func oldestHandshake() -> ServerHandshake? {
        while handshakeQueueStart < handshakeQueue.count {
            let handshake = handshakeQueue[handshakeQueueStart]
            handshakeQueueStart += 1
            if handshakes[ObjectIdentifier(handshake)] != nil { return handshake }
        }
        return nil
    }

    /// Whether the open connections leave room for one more (checked before answering 101).
    var hasRoomForConnection: Bool { channels.count < configuration.maximumConnections }

    private func forget(_ handshake: ServerHandshake, opened: Bool) {
        handshakes[ObjectIdentifier(handshake)] = nil
        if let group = handshake.addressGroup, var count = addressCounts[group] {
            count.handshakes -= 1
            if !opened { count.connections -= 1 }
            addressCounts[group] = count.connections <= 0 ? nil : count
        }
        // Finished handshakes wait in the queue until the front passes them; compact when they dominate.
        let queued = handshakeQueue.count - handshakeQueueStart
        if queued > 2 * handshakes.count + 64 {
            handshakeQueue = handshakeQueue[handshakeQueueStart...].filter { handshakes[ObjectIdentifier($0)] != nil }
            handshakeQueueStart = 0
        }
    }

    private func connectionClosed(group: PeerAddressGroup?) {
        guard let group, var count = addressCounts[group] else { return }
        count.connections -= 1
        addressCounts[group] = count.connections <= 0 ? nil : count
    }

    func handshakeEnded(_ handshake: ServerHandshake) {
        forget(handshake, opened: false)
        publishCounts()
        checkShutdownComplete()
    }

    /// Closes the connections with the fullest send buffers until the server's buffered output
    /// is within ``WebSocketServerConfiguration/outputBudgetBytes`` again.
    private func enforceOutputBudget() {
        let fullest = channels.values.filter { $0.outputBudgetBytes > 0 }.sorted { $0.outputBudgetBytes > $1.outputBudgetBytes }
        for channel in fullest {
            guard outputBudget.isExceeded else { break }
            counters.closedForOutputBudget.wrappingAdd(1, ordering: .relaxed)
            configuration.logSink.log(
                .warning, "closed the connection holding the most output: the server's output budget is spent",
                metadata: ["budget_bytes": "\(outputBudget.limitBytes)", "held_bytes": "\(channel.outputBudgetBytes)"],
                source: "websocket-server")
            channel.closeDroppingOutput(
                reason: "the server's output budget of \(outputBudget.limitBytes) bytes is spent; this connection held the most")
        }
    }

    func handshakeSucceeded(
        _ handshake: ServerHandshake, tcp: TCPChannel, machine: WebSocketProtocolMachine,
        connection: WebSocketConnection, initialBytes: [UInt8]
    ) {
        forget(handshake, opened: true)
        counters.connectionsOpened.wrappingAdd(1, ordering: .relaxed)
        let handler = self.handler
        let group = handshake.addressGroup
        let channel = WebSocketChannel(
            tcp: tcp, machine: machine, connection: connection, closeTimeout: configuration.closeTimeout,
            keepalive: configuration.keepalive, writeTimeout: configuration.writeTimeout, outputBudget: outputBudget,
            inflationStepBytes: configuration.inflationStepBytes
        ) { [weak self] event in
            switch event {
            case .message(let message): handler(.message(connection, message))  // no weak load per message
            case .writable: handler(.writable(connection))
            case .closed(let frame):
                guard let self else { return }
                self.channels[connection.id] = nil
                self.connectionClosed(group: group)
                self.publishCounts()
                handler(.closed(connection, frame))
                self.checkShutdownComplete()
            }
        }
        channels[connection.id] = channel
        publishCounts()
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
            counters.listenerAccepting.store(0, ordering: .relaxed)
            listener = nil
            for handshake in Array(handshakes.values) {
                handshake.reject(status: 503, reason: "Service Unavailable", detail: "the server is shutting down", budget: .shuttingDown)
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

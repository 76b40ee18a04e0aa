import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// The loop-thread state of a ``WebSocketClient``: connecting, handshaking, the open channel,
/// and the reconnect timer.
///
/// Not thread-safe: loop thread only.
final class ClientCore {
    /// What the core tells its ``WebSocketClient`` (on the loop thread).
    struct Callbacks {
        var setState: (WebSocketClientState) -> Void
        var publish: (WebSocketClientEvent) -> Void
        /// A connection opened: the client makes it current and sends what it queued.
        var opened: (WebSocketConnection) -> Void
        /// The current connection ended.
        var lost: () -> Void
        /// A `wss://` attempt failed in TLS (set before the attempt's disconnect is published).
        var tlsFailed: (TLSError) -> Void = { _ in }
        /// The upgrade was refused or its answer broke the handshake (set before the attempt's
        /// disconnect is published).
        var handshakeFailed: (WebSocketHandshakeError) -> Void = { _ in }
    }

    let url: WebSocketURL
    let configuration: WebSocketClientConfiguration
    private let loop: EventLoop
    let callbacks: Callbacks
    private var random: SplitMix64
    private var attempt = 0
    private var isStopped = false
    private var userCloseFrame = WebSocketCloseFrame(code: .normalClosure, reason: "closed by the client")
    private var tcp: TCPChannel?
    private var handshake: WebSocketClientHandshake?
    private var received: [UInt8] = []
    /// A refusal's head (a status other than 101) and its length in `received`, while its body arrives.
    private var refusalHead: (head: HTTPResponseHead, byteCount: Int)?
    private var handshakeTimer: TimerHandle?
    private var reconnectTimer: TimerHandle?
    private var channel: WebSocketChannel?
    /// Counts name resolutions, so that an answer for an abandoned attempt is ignored.
    private var resolution: UInt64 = 0
    private var isResolving = false
    /// The client's TLS context for `wss://`, made at the first attempt.
    var tlsContext: TLSClientContext?

    init(url: WebSocketURL, configuration: WebSocketClientConfiguration, loop: EventLoop, callbacks: Callbacks) {
        self.url = url
        self.configuration = configuration
        self.loop = loop
        self.callbacks = callbacks
        random = SplitMix64(jitterSeed: configuration.jitterSeed)
    }

    // MARK: Connecting

    /// Starts a connection attempt; after a user's close has finished, starts afresh.
    func connect() {
        if isStopped && channel == nil && tcp == nil && !isResolving && reconnectTimer == nil {
            isStopped = false
            attempt = 0
        }
        guard !isStopped, tcp == nil, channel == nil, !isResolving, handshakeTimer == nil else { return }
        reconnectTimer = nil
        attempt += 1
        callbacks.setState(.connecting(attempt: attempt))
        let timeout = configuration.handshakeTimeout
        handshakeTimer = loop.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            if self.refusalHead != nil { return self.failRefused() }
            self.fail("no open connection within \(timeout)")
        }
        if let numeric = SocketAddress(numericHost: url.host, port: url.port) {
            return connect(to: [numeric], index: 0)
        }
        // Resolved off the loop thread (EventLoop.resolve); the answer is ignored if the attempt
        // was abandoned meanwhile.
        resolution += 1
        let ticket = resolution
        isResolving = true
        loop.resolve(host: url.host, port: url.port, for: self) { core, result in core.resolved(result, ticket: ticket) }
    }

    private func resolved(_ result: Result<[SocketAddress], SystemError>, ticket: UInt64) {
        guard ticket == resolution, isResolving, !isStopped else { return }
        isResolving = false
        switch result {
        case .success(let addresses) where !addresses.isEmpty: connect(to: addresses, index: 0)
        case .success: fail("\(url.host) has no address")
        case .failure(let error): fail("cannot resolve \(url.host): \(error)")
        }
    }

    private func connect(to addresses: [SocketAddress], index: Int) {
        if index == 0, let source = configuration.localAddress {
            // A source address of one family reaches only peers of that family.
            let reachable = addresses.filter { $0.family == source.family }
            guard !reachable.isEmpty else {
                return fail("\(url.host) has no address of the source address \(source.host)'s family")
            }
            if reachable.count < addresses.count { return connect(to: reachable, index: 0) }
        }
        let address = addresses[index]
        let tryNext: (String) -> Void = { [weak self] reason in
            guard let self else { return }
            if index + 1 < addresses.count { self.connect(to: addresses, index: index + 1) } else { self.fail(reason) }
        }
        do throws(SystemError) {
            let socket = try Socket(family: address.family)
            let tls: TLSSession?
            switch tlsSession(for: socket) {
            case .success(let session): tls = session
            case .failure(let error): return failTLS(error)
            }
            let isConnected = try socket.connect(to: address, from: configuration.localAddress)
            let tcp = try TCPChannel(socket: socket, peer: address, loop: loop, isConnecting: !isConnected, tls: tls)
            self.tcp = tcp
            tcp.onClose = { [weak self, unowned tcp] error in
                guard let self else { return }
                self.tcp = nil
                if let failure = tcp.tlsFailure { return self.failTLS(failure) }
                // A refusal's body ends with the connection (or was cut by a reset): report what came.
                if self.refusalHead != nil { return self.failRefused() }
                self.fail("the connection closed during the handshake\(error.map { ": \($0)" } ?? "")")
            }
            if isConnected {
                do {
                    try socket.setNoDelay()
                } catch {
                    // It works without, only with Nagle's delays: a debug line, no more.
                    configuration.logSink.log(
                        .debug, "could not turn off Nagle's algorithm", metadata: ["error": "\(error)"], source: "websocket-client")
                }
                sendRequest(on: tcp)
            } else {
                tcp.onConnect = { [weak self] error in
                    guard let self else { return }
                    if let error {
                        self.tcp = nil
                        tryNext("\(error) (\(address))")
                    } else {
                        self.sendRequest(on: tcp)
                    }
                }
            }
        } catch {
            tcp = nil
            tryNext("\(error) (\(address))")
        }
    }

    private func sendRequest(on tcp: TCPChannel) {
        let handshake = WebSocketClientHandshake(
            host: url.hostHeader, path: url.requestTarget, subprotocols: configuration.subprotocols,
            compression: configuration.compression, extraHeaders: configuration.headers
        )
        self.handshake = handshake
        received = []
        refusalHead = nil
        tcp.onRead = { [weak self] bytes in self?.receiveResponse(bytes) }
        tcp.write(handshake.request.encoded())
    }

    private func receiveResponse(_ bytes: UnsafeRawBufferPointer) {
        guard let tcp, let handshake else { return }
        let limits = configuration.responseLimits
        if let refusalHead {
            let room = max(refusalHead.byteCount + WebSocketRefusal.maximumBodyBytes - received.count, 0)
            received.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, room)]))
            if isRefusalBodyComplete { failRefused() }
            return
        }
        let previousCount = received.count
        let room = max(limits.maximumHeadBytes + 1 + WebSocketRefusal.maximumBodyBytes - received.count, 0)
        received.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, room)]))
        let parsed: (head: HTTPResponseHead, byteCount: Int)?
        let agreement: WebSocketClientHandshake.Agreement
        let machine: WebSocketProtocolMachine
        do throws(WebSocketHandshakeError) {
            parsed = try HTTPResponseHead.parse(received, limits: limits)
            guard let (head, byteCount) = parsed else {
                if received.count > limits.maximumHeadBytes { fail("the handshake response is over \(limits.maximumHeadBytes) bytes") }
                return
            }
            if head.status != 101 {
                // Refused: read its body (why, in the server's words) before failing.
                refusalHead = (head, byteCount)
                if isRefusalBodyComplete { failRefused() }
                return
            }
            agreement = try handshake.validate(head)
        } catch {
            callbacks.handshakeFailed(error)
            return fail("handshake refused: \(error)")
        }
        do {
            machine = try WebSocketProtocolMachine(
                role: .client, configuration: configuration.protocolConfiguration, compression: agreement.compression
            )
        } catch {
            return fail("cannot set up the connection: \(error)")
        }
        guard let (_, byteCount) = parsed else { return }
        let remainder = Array(bytes[max(byteCount - previousCount, 0)...])
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        handshakeTimer = nil
        self.tcp = nil
        self.handshake = nil
        received = []
        attempt = 0
        let connection = WebSocketConnection(
            loop: loop, remoteAddress: tcp.peer, requestTarget: url.requestTarget, subprotocol: agreement.subprotocol,
            compression: agreement.compression, sendBufferLimits: configuration.sendBuffer
        )
        let channel = WebSocketChannel(
            tcp: tcp, machine: machine, connection: connection, closeTimeout: configuration.closeTimeout,
            keepalive: configuration.keepalive
        ) { [weak self] event in
            guard let self else { return }
            switch event {
            case .message(let message): self.callbacks.publish(.message(message))
            case .writable: self.callbacks.publish(.writable)
            case .closed(let frame): self.channelClosed(frame)
            }
        }
        self.channel = channel
        callbacks.opened(connection)
        callbacks.setState(.open)
        channel.start(initialBytes: remainder)
    }

    /// Whether the refusal's body is all here: its `Content-Length` (without one, the bytes up to
    /// the close), at most ``WebSocketRefusal/maximumBodyBytes``.
    private var isRefusalBodyComplete: Bool {
        guard let refusalHead else { return false }
        let bodyCount = received.count - refusalHead.byteCount
        guard bodyCount < WebSocketRefusal.maximumBodyBytes else { return true }
        guard let declared = refusalHead.head.headers["Content-Length"].flatMap({ Int($0) }) else { return false }
        return bodyCount >= declared
    }

    /// Fails the attempt with the refusal read so far (its head and what came of its body).
    private func failRefused() {
        guard let refusalHead else { return }
        let refusal = WebSocketRefusal(head: refusalHead.head, body: received[min(refusalHead.byteCount, received.count)...])
        self.refusalHead = nil
        let error = WebSocketHandshakeError.refused(refusal)
        callbacks.handshakeFailed(error)
        fail("handshake refused: \(error)")
    }

    // MARK: Losing and reconnecting

    /// A connect or handshake attempt failed (1006, or 1015 for a failed TLS handshake).
    func fail(_ reason: String, code: WebSocketCloseCode = .abnormalClosure) {
        dropAttempt()
        let frame = WebSocketCloseFrame(code: code, reason: reason)
        callbacks.publish(.disconnected(frame))
        afterDisconnect(frame)
    }

    /// Forgets a connect or handshake in progress, closing its socket.
    private func dropAttempt() {
        isResolving = false
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        handshakeTimer = nil
        if let tcp {
            tcp.onClose = { _ in }
            tcp.onConnect = nil
            tcp.close()
        }
        tcp = nil
        handshake = nil
        refusalHead = nil
    }

    private func channelClosed(_ frame: WebSocketCloseFrame) {
        channel = nil
        callbacks.lost()
        callbacks.publish(.disconnected(frame))
        afterDisconnect(frame)
    }

    private func afterDisconnect(_ frame: WebSocketCloseFrame) {
        let policy = configuration.reconnect
        if isStopped { return callbacks.setState(.closed(frame)) }
        let metadata = [
            "url": "\(url)", "code": frame.code.map { "\($0.rawValue)" } ?? "none", "reason": frame.reason, "attempt": "\(attempt)",
        ]
        guard policy.isEnabled, policy.maximumAttempts.map({ attempt < $0 }) ?? true else {
            // Without a reconnect policy the owner decides what comes next (and logs it): a notice.
            configuration.logSink.log(
                policy.isEnabled ? .error : .notice,
                policy.isEnabled ? "connection lost; out of reconnection attempts, closed for good" : "connection closed",
                metadata: metadata, source: "websocket-client")
            return callbacks.setState(.closed(frame))
        }
        let next = attempt + 1
        let delay = policy.delay(forAttempt: next, unitRandom: Double.random(in: 0..<1, using: &random))
        configuration.logSink.log(
            .warning, "connection lost or attempt failed; reconnecting in \(delay)", metadata: metadata, source: "websocket-client")
        callbacks.setState(.waitingToReconnect(attempt: next, delay: delay))
        reconnectTimer = loop.schedule(after: delay) { [weak self] in self?.connect() }
    }

    /// Closes for good: the close handshake when open, otherwise at once; no reconnection after.
    func close(code: WebSocketCloseCode, reason: String) {
        guard !isStopped else { return }
        isStopped = true
        userCloseFrame = WebSocketCloseFrame(code: code, reason: reason)
        if let reconnectTimer {
            loop.cancel(reconnectTimer)
            self.reconnectTimer = nil
            return callbacks.setState(.closed(userCloseFrame))
        }
        if let channel {
            callbacks.setState(.closing)
            channel.close(code: code, reason: reason)
            return
        }
        dropAttempt()
        callbacks.setState(.closed(userCloseFrame))
    }

    /// Drops everything at once (loop thread; used when the client is shut down).
    func abort() {
        isStopped = true
        if let reconnectTimer { loop.cancel(reconnectTimer) }
        reconnectTimer = nil
        channel?.abort(reason: "client shut down")
        dropAttempt()
    }
}

@available(*, unavailable)
extension ClientCore: Sendable {}

extension SplitMix64 {
    /// A generator for reconnect jitter: seeded in tests, from the system generator otherwise.
    ///
    /// - Parameter seed: The seed, or `nil` for one drawn from `SystemRandomNumberGenerator`.
    init(jitterSeed seed: UInt64?) {
        var system = SystemRandomNumberGenerator()
        self.init(seed: seed ?? system.next())
    }
}

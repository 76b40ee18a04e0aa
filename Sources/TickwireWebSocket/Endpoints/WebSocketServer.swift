import Dispatch
import Synchronization
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket server on an ``EventLoop``: listens, runs upgrade handshakes within limits, and
/// reports connections and messages to a handler on the loop thread, or as an `AsyncSequence`.
///
/// ```swift
/// var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
/// configuration.compression = PerMessageDeflateConfiguration()
/// let server = try WebSocketServer(configuration: configuration) { event in
///     if case .message(let connection, let message) = event { connection.send(message) }
/// }
/// let address = try server.start()
/// // ...
/// server.shutdown()
/// ```
public final class WebSocketServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: WebSocketServerConfiguration
    /// The loop that serves every connection.
    public let loop: EventLoop
    private let ownsLoop: Bool
    // Thread safety: `core` is created, used and dropped on the loop thread only.
    let core = LoopBound<ServerCore?>(nil)
    private let handler: @Sendable (WebSocketServerEvent) -> Void
    private let state = Mutex<SocketAddress?>(nil)
    private let count = Atomic<Int>(0)
    private let counters = ServerCounters()
    private let stream: AsyncStream<WebSocketServerEvent>?
    private let continuation: AsyncStream<WebSocketServerEvent>.Continuation?

    /// Creates a server whose events go to `handler`, called on the loop thread.
    ///
    /// - Parameters:
    ///   - configuration: Address, limits, subprotocols, compression and hooks.
    ///   - loop: The loop to serve on, or `nil` to start one of its own (stopped by `shutdown(timeout:)`).
    ///   - handler: Receives every event, on the loop thread; keep it quick.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public convenience init(
        configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(), loop: EventLoop? = nil,
        handler: @escaping @Sendable (WebSocketServerEvent) -> Void
    ) throws(SystemError) {
        try self.init(configuration: configuration, loop: loop, handler: handler, stream: nil)
    }

    /// Creates a server whose events are read from ``events``.
    ///
    /// - Parameters:
    ///   - configuration: Address, limits, subprotocols, compression and hooks.
    ///   - loop: The loop to serve on, or `nil` to start one of its own.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public convenience init(
        configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(),
        loop: EventLoop? = nil
    ) throws(SystemError) {
        let (stream, continuation) = AsyncStream<WebSocketServerEvent>.makeStream()
        try self.init(
            configuration: configuration, loop: loop, handler: { continuation.yield($0) },
            stream: (stream, continuation))
    }

    private init(
        configuration: WebSocketServerConfiguration, loop: EventLoop?,
        handler: @escaping @Sendable (WebSocketServerEvent) -> Void,
        stream: (AsyncStream<WebSocketServerEvent>, AsyncStream<WebSocketServerEvent>.Continuation)?
    ) throws(SystemError) {
        self.configuration = configuration
        (self.loop, ownsLoop) = try EventLoop.sharedOrOwn(loop)
        self.handler = handler
        self.stream = stream?.0
        continuation = stream?.1
    }

    deinit {
        // A server dropped without `shutdown()` must not leave its own loop thread running.
        if ownsLoop { loop.stop() }
        continuation?.finish()
    }

    /// The events of a server created without a handler; empty for one created with a handler.
    ///
    /// It finishes after `shutdown(timeout:)`.
    public var events: AsyncStream<WebSocketServerEvent> {
        stream ?? AsyncStream { $0.finish() }
    }

    /// Listens on the configured address.
    ///
    /// - Returns: The address bound; with port 0, its `port` is the one the kernel chose.
    /// - Throws: ``SystemError`` when the host is not a numeric address or `bind`/`listen` fail.
    @discardableResult
    public func start() throws(SystemError) -> SocketAddress {
        guard let address = SocketAddress(numericHost: configuration.host, port: configuration.port) else {
            throw SystemError(call: "inet_pton(\(configuration.host))", code: EINVAL)
        }
        let result = loop.runAndWait { [self] () -> Result<SocketAddress, SystemError> in
            let core = ServerCore(configuration: configuration, loop: loop, handler: handler, counters: counters) { [weak self] value in
                self?.count.store(value, ordering: .relaxed)
            }
            core.onTLSFailure = { [counters, handler = configuration.tlsFailureHandler] error, peer in
                counters.tlsFailures.add(1, ordering: .relaxed)
                handler?(error, peer)
            }
            self.core.value = core
            return Result { () throws(SystemError) in try core.listen(on: address) }
        }
        guard let result else { throw SystemError(call: "EventLoop.execute", code: ESHUTDOWN) }
        let bound = try result.get()
        state.withLock { $0 = bound }
        return bound
    }

    /// The bound address, once started.
    public var address: SocketAddress? { state.withLock { $0 } }

    /// Connections handshaking or open right now.
    public var connectionCount: Int { count.load(ordering: .relaxed) }

    /// What the server has done with its connections since it started: open connections,
    /// handshakes, and those its budgets refused or closed. Readable from any thread; a
    /// `MetricsSource` for a `MetricsRegistry`.
    public var statistics: WebSocketServerStatistics { counters.statistics }
    /// Why the server's listener gave up accepting connections, or `nil` while it accepts (or
    /// retries: a failed `accept(2)` or registration is retried on a backoff, and only after
    /// repeated failures does the listener give up). Once set, the server takes no new
    /// connection until it is restarted; it was logged at `critical` to
    /// ``WebSocketServerConfiguration/logSink``, and `tickwire_websocket_listener_accepting` reads 0.
    public var listenerFailure: SystemError? { counters.listenerFailure.withLock { $0 } }
    /// Connections whose TLS failed before their upgrade completed, since the server started
    /// (see ``WebSocketServerConfiguration/tlsFailureHandler``); 0 for a plain server.
    public var tlsFailureCount: Int { counters.tlsFailures.load(ordering: .relaxed) }

    /// Stops listening, closes every connection with 1001 (going away) and waits until their close
    /// handshakes finish or `timeout` passes; then cuts off the rest. Stops a loop of its own.
    ///
    /// Called from the loop thread (an event handler), it starts the same shutdown and returns at
    /// once, since waiting there would block the loop that runs the close handshakes.
    ///
    /// - Parameter timeout: The longest wait for the close handshakes. Default 5 s.
    public func shutdown(timeout: Duration = .seconds(5)) {
        if loop.isInLoopThread {
            beginShutdown(timeout: timeout) { [self] in finishShutdown() }
            return
        }
        let done = DispatchSemaphore(value: 0)
        beginShutdown(timeout: timeout) { done.signal() }
        // The loop's own timer ends the wait at `timeout`; the margin covers scheduling only.
        _ = done.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max / 2)))) + .seconds(2))
        finishShutdown()
    }

    /// Like ``shutdown(timeout:)`` without blocking a thread.
    ///
    /// - Parameter timeout: The longest wait for the close handshakes.
    public func shutdown(timeout: Duration = .seconds(5)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            beginShutdown(timeout: timeout) { continuation.resume() }
        }
        finishShutdown()
    }

    private func beginShutdown(timeout: Duration, completion: @escaping @Sendable () -> Void) {
        let isAccepted = loop.enqueue { [core] in
            guard let server = core.value else { return completion() }
            server.shutdown(timeout: timeout, completion: completion)
        }
        // A loop that has already stopped has no connections left to close.
        if !isAccepted { completion() }
    }

    private func finishShutdown() {
        loop.runAndWait { [core] in core.value = nil }
        if ownsLoop { loop.stop() }
        continuation?.finish()
    }
}

import Dispatch
import Synchronization
@_spi(LoopThread) import TickwireIO

/// A WebSocket client that connects to a `ws://` URL, keeps the connection alive with pings, and
/// reconnects with exponential backoff and jitter when it drops.
///
/// Events (state changes, messages, drain) go to a handler on the loop thread, or to ``events``.
/// ``send(_:)`` works from any thread; while disconnected, messages wait in a bounded queue and
/// go out in order once a connection opens.
///
/// ```swift
/// let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:9000/game"))
/// client.connect()
/// for await event in client.events {
///     if case .message(let message) = event { print(message) }
/// }
/// ```
public final class WebSocketClient: Sendable {
    /// Where the client connects.
    public let url: WebSocketURL
    /// The configuration it was created with.
    public let configuration: WebSocketClientConfiguration
    /// The loop that serves the client.
    public let loop: EventLoop
    private let ownsLoop: Bool
    /// Whether the client runs on a loop of its own (made for it), rather than one it shares.
    public var hasOwnLoop: Bool { ownsLoop }
    // Thread safety: `core` is created, used and dropped on the loop thread only.
    private let core = LoopBound<ClientCore?>(nil)
    private let handler: @Sendable (WebSocketClientEvent) -> Void
    private let stream: AsyncStream<WebSocketClientEvent>?
    private let continuation: AsyncStream<WebSocketClientEvent>.Continuation?
    let shared = Mutex(Shared())
    /// Signalled once the client is closed for good (``WebSocketClientState/closed(_:)``).
    private let closedForGood = DispatchSemaphore(value: 0)

    struct Shared: ~Copyable {
        var state: WebSocketClientState = .idle
        var connection: WebSocketConnection?
        var queue: [WebSocketMessage] = []
        var queuedBytes = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
        /// The TLS failure of the last `wss://` attempt, until a connection opens.
        var tlsError: TLSError?
        /// The handshake failure of the last attempt (a refusal such as HTTP 429), until a connection opens.
        var handshakeError: WebSocketHandshakeError?
    }

    /// Someone suspended in an `async` method until an event satisfies `isSatisfied`.
    struct Waiter {
        var isSatisfied: @Sendable (WebSocketClientEvent) -> Bool
        var continuation: CheckedContinuation<WebSocketClientEvent?, Never>
    }

    /// Creates a client whose events go to `handler`, called on the loop thread.
    ///
    /// - Parameters:
    ///   - url: The server's `ws://` URL.
    ///   - configuration: Subprotocols, compression, keepalive, reconnection and buffers.
    ///   - loop: The loop to run on, or `nil` to start one of its own (stopped by ``shutdown()``).
    ///   - handler: Receives every event on the loop thread; keep it quick.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public convenience init(
        url: WebSocketURL, configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        loop: EventLoop? = nil, handler: @escaping @Sendable (WebSocketClientEvent) -> Void
    ) throws(SystemError) {
        try self.init(url: url, configuration: configuration, loop: loop, handler: handler, stream: nil)
    }

    /// Creates a client whose events are read from ``events``.
    ///
    /// - Parameters:
    ///   - url: The server's `ws://` URL.
    ///   - configuration: Subprotocols, compression, keepalive, reconnection and buffers.
    ///   - loop: The loop to run on, or `nil` to start one of its own.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public convenience init(
        url: WebSocketURL, configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
        loop: EventLoop? = nil
    ) throws(SystemError) {
        let (stream, continuation) = AsyncStream<WebSocketClientEvent>.makeStream()
        try self.init(
            url: url, configuration: configuration, loop: loop, handler: { continuation.yield($0) },
            stream: (stream, continuation))
    }

    private init(
        url: WebSocketURL, configuration: WebSocketClientConfiguration, loop: EventLoop?,
        handler: @escaping @Sendable (WebSocketClientEvent) -> Void,
        stream: (AsyncStream<WebSocketClientEvent>, AsyncStream<WebSocketClientEvent>.Continuation)?
    ) throws(SystemError) {
        self.url = url
        self.configuration = configuration
        (self.loop, ownsLoop) = try EventLoop.sharedOrOwn(loop)
        self.handler = handler
        self.stream = stream?.0
        continuation = stream?.1
    }

    deinit {
        // A client dropped without `shutdown()` must not leave its own loop thread running.
        if ownsLoop { loop.stop() }
        continuation?.finish()
    }

    /// The events of a client created without a handler (empty for one with a handler).
    /// It finishes after ``shutdown()``.
    public var events: AsyncStream<WebSocketClientEvent> {
        stream ?? AsyncStream { $0.finish() }
    }

    /// The current state.
    public var state: WebSocketClientState { shared.withLock { $0.state } }

    /// The open connection, if any.
    public var connection: WebSocketConnection? { shared.withLock { $0.connection } }

    /// Starts connecting (and, by the reconnect policy, reconnecting); returns at once.
    ///
    /// Does nothing while connecting or open; after ``close(code:reason:)`` has finished, connects again.
    public func connect() {
        loop.execute { [self] in
            if core.value == nil { core.value = makeCore() }
            core.value?.connect()
        }
    }

    private func makeCore() -> ClientCore {
        ClientCore(
            url: url, configuration: configuration, loop: loop,
            callbacks: ClientCore.Callbacks(
                setState: { [weak self] state in
                    self?.shared.withLock { shared in
                        shared.state = state
                        // A new attempt: the last one's handshake failure is history.
                        if case .connecting = state { shared.handshakeError = nil }
                    }
                    self?.publish(.stateChanged(state))
                },
                publish: { [weak self] event in self?.publish(event) },
                opened: { [weak self] connection in
                    self?.shared.withLock { shared in
                        shared.connection = connection
                        shared.tlsError = nil
                        shared.handshakeError = nil
                        let queued = shared.queue
                        shared.queue = []
                        shared.queuedBytes = 0
                        // Sent under the lock so that no other send can slip in ahead of the queue.
                        for message in queued { connection.send(message) }
                    }
                },
                lost: { [weak self] in self?.shared.withLock { $0.connection = nil } },
                tlsFailed: { [weak self] error in self?.shared.withLock { $0.tlsError = error } },
                handshakeFailed: { [weak self] error in self?.shared.withLock { $0.handshakeError = error } }
            ))
    }

    /// Sends a text message (see ``send(_:)``).
    ///
    /// - Parameter text: The message.
    /// - Returns: What became of it.
    @discardableResult
    public func send(text: String) -> SendResult { send(.text(text)) }

    /// Sends a binary message (see ``send(_:)``).
    ///
    /// - Parameter bytes: The message.
    /// - Returns: What became of it.
    @discardableResult
    public func send(binary bytes: [UInt8]) -> SendResult { send(.binary(bytes)) }

    /// Sends a message on the open connection, or queues it while (re)connecting; safe from any thread.
    ///
    /// - Parameter message: The message.
    /// - Returns: The connection's ``SendResult`` when open; while disconnected ``SendResult/accepted``
    ///   when queued, ``SendResult/droppedBufferFull`` past ``WebSocketClientConfiguration/maximumQueuedBytesWhileDisconnected``,
    ///   ``SendResult/droppedNotOpen`` once closed for good.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> SendResult { sendNow(message) }

    func sendNow(_ message: WebSocketMessage) -> SendResult {
        let limit = configuration.maximumQueuedBytesWhileDisconnected
        return shared.withLock { shared -> SendResult in
            if let connection = shared.connection { return connection.send(message) }
            if case .closed = shared.state { return .droppedNotOpen }
            if case .closing = shared.state { return .droppedNotOpen }
            guard shared.queuedBytes + message.byteCount <= limit else { return .droppedBufferFull }
            shared.queue.append(message)
            shared.queuedBytes += message.byteCount
            return .accepted
        }
    }

    /// Closes for good: runs the close handshake if open, stops reconnecting, drops queued messages.
    ///
    /// - Parameters:
    ///   - code: The status code, 1000 by default.
    ///   - reason: Up to 123 UTF-8 bytes.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") { closeNow(code: code, reason: reason) }

    func closeNow(code: WebSocketCloseCode, reason: String) {
        shared.withLock { shared in
            shared.queue = []
            shared.queuedBytes = 0
        }
        loop.execute { [self] in
            if core.value == nil { core.value = makeCore() }
            core.value?.close(code: code, reason: reason)
        }
    }

    /// Waits up to `timeout` for a close handshake started with ``close(code:reason:)`` to
    /// finish, then shuts down (``shutdown()``): what was sent before the close, and the close
    /// frame itself, reach the peer unless the wait runs out. Blocks the calling thread, never
    /// the loop's.
    ///
    /// - Parameter timeout: The longest wait, for a peer that does not answer.
    public func shutdown(afterClosingWithin timeout: Duration) {
        precondition(!loop.isInLoopThread, "waiting for the close on the loop thread would deadlock")
        let milliseconds = Int(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        _ = closedForGood.wait(timeout: .now() + .milliseconds(milliseconds))
        shutdown()
    }

    /// Drops the connection at once without a close handshake, stops reconnecting, finishes
    /// ``events`` and stops a loop of its own. Use ``close(code:reason:)`` first for a clean close.
    public func shutdown() {
        loop.runAndWait { [core] in
            core.value?.abort()
            core.value = nil
        }
        if ownsLoop { loop.stop() }
        let waiters = shared.withLock { shared in
            defer { shared.waiters = [:] }
            return shared.waiters.values.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        continuation?.finish()
    }

    private func publish(_ event: WebSocketClientEvent) {
        if case .stateChanged(.closed) = event { closedForGood.signal() }
        handler(event)
        let ready = shared.withLock { shared -> [CheckedContinuation<WebSocketClientEvent?, Never>] in
            let ids = shared.waiters.filter { $0.value.isSatisfied(event) }.map(\.key)
            return ids.compactMap { shared.waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in ready { continuation.resume(returning: event) }
    }
}

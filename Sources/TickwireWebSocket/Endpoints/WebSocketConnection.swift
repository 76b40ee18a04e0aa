import Synchronization
@_spi(LoopThread) import TickwireIO

/// One open WebSocket connection, seen from either end: send messages and close it from any thread.
///
/// Sends from the connection's loop thread are framed at once; sends from other threads go to a
/// `Mutex`-protected queue that the loop thread drains. Either way ``send(_:)`` answers at once
/// with a ``SendResult`` that carries the backpressure signal. Ping, pong and the close handshake
/// are handled by the library.
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// A number unique among this process's connections.
    public let id: UInt64
    /// The loop that serves this connection.
    public let loop: EventLoop
    /// The peer's address, when known.
    public let remoteAddress: SocketAddress?
    /// The request target of the handshake (`/path?query`).
    public let requestTarget: String
    /// The subprotocol agreed in the handshake, if any.
    public let subprotocol: String?
    /// The permessage-deflate parameters agreed in the handshake, if any.
    public let compression: PerMessageDeflateParameters?
    /// The send buffer bounds.
    public let sendBufferLimits: SendBufferLimits

    private let pending = Mutex<[WebSocketMessage]>([])
    /// Messages in `pending`, changed under its lock: the loop thread's sends read it without
    /// the lock to see whether they may frame at once.
    private let pendingCount = Atomic<Int>(0)
    /// Payload bytes in `pending`, not yet framed.
    private let pendingBytes = Atomic<Int>(0)
    /// Framed bytes waiting for the socket, mirrored from the loop side after every write.
    let wireBytes = Atomic<Int>(0)
    /// Set once the close handshake starts or the socket closes; sends are refused from then on.
    let isClosing = Atomic<Bool>(false)
    /// The last keepalive round trip in nanoseconds, or -1 before the first matched pong.
    let lastRoundTripNanoseconds = Atomic<Int64>(-1)
    // Thread safety: `channel` is set, read and cleared on the loop thread only.
    let channel = LoopBound<WebSocketChannel?>(nil)

    private static let nextID = Atomic<UInt64>(1)

    init(
        loop: EventLoop, remoteAddress: SocketAddress?, requestTarget: String, subprotocol: String?,
        compression: PerMessageDeflateParameters?, sendBufferLimits: SendBufferLimits
    ) {
        id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.loop = loop
        self.remoteAddress = remoteAddress
        self.requestTarget = requestTarget
        self.subprotocol = subprotocol
        self.compression = compression
        self.sendBufferLimits = sendBufferLimits
    }

    /// Bytes waiting to go out: queued messages plus framed bytes the socket has not taken yet.
    public var bufferedByteCount: Int {
        pendingBytes.load(ordering: .relaxed) + wireBytes.load(ordering: .relaxed)
    }

    /// The round trip of the last keepalive ping, or `nil` before one was answered (or with keepalive off).
    public var roundTripTime: Duration? {
        let nanoseconds = lastRoundTripNanoseconds.load(ordering: .relaxed)
        return nanoseconds < 0 ? nil : .nanoseconds(nanoseconds)
    }

    /// Whether the send buffer is over its high-water mark.
    public var isOverHighWaterMark: Bool { bufferedByteCount > sendBufferLimits.highWaterMark }

    /// Sends a text message.
    ///
    /// - Parameter text: The message.
    /// - Returns: Whether it was queued and whether the buffer is now over its high-water mark.
    @discardableResult
    public func send(text: String) -> SendResult { send(.text(text)) }

    /// Sends a binary message.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: Whether it was queued and whether the buffer is now over its high-water mark.
    @discardableResult
    public func send(binary bytes: [UInt8]) -> SendResult { send(.binary(bytes)) }

    /// Sends a message; safe from any thread.
    ///
    /// - Parameter message: The text or binary message.
    /// - Returns: ``SendResult/accepted`` or ``SendResult/acceptedOverHighWaterMark`` when queued;
    ///   ``SendResult/droppedBufferFull`` when the buffer already holds its hard limit;
    ///   ``SendResult/droppedNotOpen`` once the connection is closing.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> SendResult {
        guard !isClosing.load(ordering: .acquiring) else { return .droppedNotOpen }
        guard bufferedByteCount < sendBufferLimits.hardLimit else { return .droppedBufferFull }
        if loop.isInLoopThread, pendingCount.load(ordering: .acquiring) == 0 {
            guard let channel = channel.value else { return .droppedNotOpen }
            channel.send(message)
        } else {
            pendingBytes.wrappingAdd(message.byteCount, ordering: .relaxed)
            let isFirst = pending.withLock { queue in
                queue.append(message)
                pendingCount.store(queue.count, ordering: .releasing)
                return queue.count == 1
            }
            if isFirst { loop.execute { [self] in drainPending() } }
        }
        return isOverHighWaterMark ? .acceptedOverHighWaterMark : .accepted
    }

    /// Frames every queued message on the loop thread.
    private func drainPending() {
        let messages = pending.withLock { queue in
            defer {
                queue.removeAll()
                pendingCount.store(0, ordering: .releasing)
            }
            return queue
        }
        for message in messages {
            channel.value?.send(message)
            pendingBytes.wrappingSubtract(message.byteCount, ordering: .relaxed)
        }
        // The kernel may have taken everything at once, with no writable event to follow.
        channel.value?.checkDrain()
    }

    /// Starts the close handshake; safe from any thread. Later calls do nothing.
    ///
    /// The connection's closed event follows when the peer answers, or after the close timeout.
    ///
    /// - Parameters:
    ///   - code: The status code, 1000 (normal closure) by default.
    ///   - reason: Up to 123 UTF-8 bytes of explanation.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        loop.execute { [self] in
            drainPending()
            channel.value?.close(code: code, reason: reason)
        }
    }

    /// A plain-words rendering for logs and test failures.
    public var description: String {
        "WebSocketConnection #\(id) \(remoteAddress.map { "\($0)" } ?? "?") \(requestTarget)"
    }

    /// Identity: two handles are equal when they are the same connection.
    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool { lhs === rhs }

    /// Hashes the identity (see ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

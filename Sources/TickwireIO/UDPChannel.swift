import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, non-blocking UDP socket on an ``EventLoop``: datagrams in to a handler on the loop
/// thread, datagrams out from any thread through a bounded send queue.
///
/// Receiving: when the socket is readable the channel reads until `EAGAIN`, at most
/// ``Limits/datagramsPerTurn`` datagrams per loop turn (`recvmmsg(2)` in batches of
/// ``batchCount`` on Linux, `recvmsg(2)` one at a time elsewhere), and hands each to
/// ``onDatagram`` with its source address. A datagram over ``Limits/maximumDatagramBytes`` is
/// truncated by the kernel (`MSG_TRUNC`): it is counted and dropped, never delivered cut short.
///
/// Sending: ``send(_:to:)-(UnsafeRawBufferPointer,_)`` is safe from any thread. On the loop
/// thread, with nothing queued, the datagram goes out at once (`sendto(2)`); from another thread
/// it joins the send queue and the loop sends the queue in batches (`sendmmsg(2)` on Linux). When
/// the kernel answers `EAGAIN` the datagram waits in the queue for writability. The queue is
/// bounded (``Limits/maximumQueuedDatagrams``, ``Limits/maximumQueuedBytes``): UDP is lossy by
/// contract, so past the bound a datagram is dropped and counted, and the sender is told.
///
/// Every drop and failure is counted in ``statistics``, and the last failure is kept there.
///
/// ```swift
/// let channel = try UDPChannel(address: SocketAddress(numericHost: "::", port: 0)!, loop: loop) { bytes, source in
///     // on the loop thread; `bytes` is valid only during the call
/// }
/// channel.send([1, 2, 3], to: peer)  // from any thread
/// channel.close()
/// ```
package final class UDPChannel: EventLoopHandler, @unchecked Sendable {
    // Thread safety: `shared` (the send queue, the closed flag and the statistics) is guarded by
    // its `Mutex`; `loop`, `limits`, `descriptor` and `localAddress` are immutable. Everything
    // else (`socket`, `onDatagram`, `isClosedOnLoop`, `interest`, `usesBatchCalls` and the
    // buffers) is touched only on the loop thread: thread confinement, not a lock, makes those safe.

    /// The loop that serves the socket.
    package let loop: EventLoop
    /// The address actually bound (with the kernel's port when port 0 was asked for).
    package let localAddress: SocketAddress
    /// The channel's limits, fixed when it is created.
    package let limits: Limits
    /// The descriptor, kept after close for logging.
    package let descriptor: Int32
    let socket: Socket

    /// A datagram arrived from `source`; `bytes` is valid only during the call. Loop thread only.
    ///
    /// Unchecked exclusivity: read once per datagram; loop thread only, copied out before it is called.
    @exclusivity(unchecked) package var onDatagram: (_ bytes: UnsafeRawBufferPointer, _ source: SocketAddress) -> Void

    /// Whether the channel reads and sends in batches (`recvmmsg(2)`, `sendmmsg(2)`): `true` on
    /// Linux, `false` elsewhere. Tests turn it off on Linux to run the one-at-a-time path
    /// (`recvmsg(2)`, `sendto(2)`) that Darwin takes. Loop thread only.
    package var usesBatchCalls: Bool = UDPChannel.hasBatchCalls

    /// A test seam: while it returns `true`, every send acts as if the kernel had refused it with
    /// `EAGAIN`, without calling the kernel. Loopback never refuses a datagram (the kernel frees
    /// its buffer as soon as it is handed over), so this is how tests reach the send queue's wait
    /// for writability. Loop thread only.
    package var simulatesFullSendBuffer: () -> Bool = { false }

    /// `true` once ``close()`` has run on the loop thread. Loop thread only.
    var isClosedOnLoop = false
    /// What the poller watches for: read, and write while the kernel refuses sends. Loop thread only.
    var interest: PollInterest = .read
    /// The receive slots and the send batch's scratch space. Loop thread only.
    let buffers: UDPBuffers
    /// The send queue, the closed flag and the statistics, shared with the sending threads.
    let shared = Mutex(SharedState())

    /// What the sending threads and the loop thread share (under ``shared``'s lock).
    struct SharedState {
        /// Datagrams waiting to be sent, oldest first, from ``queueStart``.
        var queue: [OutgoingDatagram] = []
        /// The index of the oldest queued datagram in ``queue``.
        var queueStart = 0
        /// Payload bytes queued.
        var queuedBytes = 0
        /// Set by ``UDPChannel/close()``: no datagram is accepted after it.
        var isClosed = false
        /// A loop turn will send the queue (work handed to the loop, not yet run).
        var isFlushScheduled = false
        /// The kernel refused a send (`EAGAIN`): the queue waits for writability.
        var isWaitingForWritable = false
        /// The counters.
        var statistics = Statistics()

        /// Datagrams queued.
        var queuedCount: Int { queue.count - queueStart }
    }

    /// One datagram waiting in the send queue, with its destination already in `sockaddr` form.
    struct OutgoingDatagram {
        var bytes: [UInt8]
        var destination: sockaddr_storage
        var destinationLength: socklen_t
    }

    /// Whether this platform has `recvmmsg(2)` and `sendmmsg(2)` (Linux).
    package static var hasBatchCalls: Bool {
        #if os(Linux) && canImport(CEpoll)
        true
        #else
        false
        #endif
    }

    /// Opens a UDP socket, binds it to `address` and registers it on `loop` (call on the loop thread).
    ///
    /// `SO_REUSEADDR` is not set: on Linux it would let a second UDP socket bind the same port and
    /// take part of its datagrams. An IPv6 address also takes IPv4 peers when it is `::`
    /// (`IPV6_V6ONLY` off); they appear as IPv4-mapped addresses (`::ffff:127.0.0.1`), which
    /// ``send(_:to:)-(UnsafeRawBufferPointer,_)`` takes back.
    ///
    /// - Parameters:
    ///   - address: Where to bind, IPv4 or IPv6; port 0 lets the kernel choose (read it back from ``localAddress``).
    ///   - loop: The loop that serves the socket; this initializer must run on its thread.
    ///   - limits: The datagram size, the reads per turn and the send queue's bounds.
    ///   - onDatagram: Receives each datagram and its source, on the loop thread.
    /// - Throws: ``SystemError`` from `socket`, `fcntl`, `setsockopt`, `bind`, `getsockname` or `epoll_ctl`.
    package init(
        address: SocketAddress, loop: EventLoop, limits: Limits = .standard,
        onDatagram: @escaping (_ bytes: UnsafeRawBufferPointer, _ source: SocketAddress) -> Void
    ) throws(SystemError) {
        let socket = try Socket(family: address.family, kind: .datagram)
        try socket.bind(to: address, reusesAddress: false)
        self.localAddress = try socket.localAddress()
        self.socket = socket
        self.descriptor = socket.descriptor
        self.loop = loop
        self.limits = limits
        self.onDatagram = onDatagram
        self.buffers = UDPBuffers(slotCount: Self.batchCount, slotBytes: limits.maximumDatagramBytes + 1)
        try loop.register(socket.descriptor, interest: .read, handler: self)
    }

    /// The counters so far, and the send queue's current length; safe from any thread.
    package var statistics: Statistics {
        shared.withLock { state in
            var statistics = state.statistics
            statistics.queuedDatagrams = state.queuedCount
            statistics.queuedBytes = state.queuedBytes
            return statistics
        }
    }

    /// Whether ``close()`` has been called; safe from any thread.
    package var isClosed: Bool { shared.withLock { $0.isClosed } }

    func handle(_ event: PollEvent) {
        guard !isClosedOnLoop else { return }
        if event.isWritable {
            shared.withLock { $0.isWaitingForWritable = false }
            sendQueued()
        }
        if event.isReadable || event.isHangup { receiveAvailable() }
    }

    /// Stops receiving and sending, drops the queued datagrams (counted in
    /// ``Statistics/droppedAtClose``) and closes the socket; safe from any thread, and later calls
    /// do nothing.
    ///
    /// From the loop thread the socket is deregistered and closed (`close(2)`) at once; from
    /// another thread no datagram is accepted once this returns, and the loop closes the socket
    /// in its next turn. ``onDatagram`` is not called after the socket is closed. When the loop
    /// has already stopped, the descriptor is closed when the channel is released.
    package func close() {
        let isFirst = shared.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.isClosed = true
            state.statistics.droppedAtClose += state.queuedCount
            state.queue = []
            state.queueStart = 0
            state.queuedBytes = 0
            return true
        }
        guard isFirst else { return }
        if loop.isInLoopThread {
            closeOnLoop()
        } else if !loop.enqueue({ self.closeOnLoop() }) {
            // The loop has finished and is releasing its handlers (it may still be doing so on
            // its thread, so neither its registrations nor the descriptor are touched from here):
            // the descriptor is closed when the channel is released (`Socket`'s `deinit`).
            return
        }
    }

    /// Deregisters and closes the socket. Loop thread only (or after the loop has finished).
    private func closeOnLoop() {
        guard !isClosedOnLoop else { return }
        isClosedOnLoop = true
        loop.deregister(descriptor)
        socket.close()
        onDatagram = { _, _ in }
    }

    /// Watches for writability while the kernel refuses sends, and stops when the queue is sent.
    /// Loop thread only.
    func setWatchesWritable(_ watches: Bool) {
        guard !isClosedOnLoop else { return }
        let wanted: PollInterest = watches ? [.read, .write] : .read
        guard wanted != interest else { return }
        do {
            try loop.reregister(descriptor, interest: wanted)
            interest = wanted
        } catch {
            // Without write interest the queue would wait for ever: count the failure and try
            // again on the next turn, where a send that is refused again comes back here.
            shared.withLock { state in
                state.statistics.pollErrors += 1
                state.statistics.lastError = error
                state.isWaitingForWritable = false
                state.isFlushScheduled = true
            }
            loop.schedule(after: .milliseconds(1)) { [weak self] in self?.flushScheduled() }
        }
    }

    deinit {
        buffers.deallocate()
    }
}

extension UDPChannel {
    /// What a ``UDPChannel`` has done and dropped, since it was created.
    package struct Statistics: Hashable, Sendable {
        /// Datagrams handed to ``UDPChannel/onDatagram``.
        package var datagramsReceived = 0
        /// Their payload bytes.
        package var bytesReceived = 0
        /// Datagrams the kernel took.
        package var datagramsSent = 0
        /// Their payload bytes.
        package var bytesSent = 0
        /// Datagrams received over ``Limits/maximumDatagramBytes`` (`MSG_TRUNC`), dropped.
        package var receivedTooLarge = 0
        /// Sends over ``Limits/maximumDatagramBytes``, refused.
        package var sendsTooLarge = 0
        /// Sends dropped because the send queue was at one of its bounds.
        package var sendQueueFull = 0
        /// Datagrams the kernel refused with an error other than `EAGAIN` (`EMSGSIZE`,
        /// `ENETUNREACH`, …), dropped.
        package var sendErrors = 0
        /// Failed receive calls (other than `EAGAIN`), and datagrams from an address family
        /// other than IPv4 and IPv6.
        package var receiveErrors = 0
        /// Failed changes of what the poller watches (`epoll_ctl`).
        package var pollErrors = 0
        /// Datagrams queued when the channel closed, or sent after it closed: dropped.
        package var droppedAtClose = 0
        /// Datagrams in the send queue now.
        package var queuedDatagrams = 0
        /// Payload bytes in the send queue now.
        package var queuedBytes = 0
        /// The last failure counted above, if any.
        package var lastError: SystemError?
    }
}

/// The memory a ``UDPChannel`` reads and sends through, allocated once: per slot a payload
/// buffer, an address, an `iovec` and a message header, for receiving and for sending.
///
/// Not thread-safe: it belongs to its channel's loop thread.
final class UDPBuffers {
    /// The number of slots (``UDPChannel/batchCount``).
    let slotCount: Int
    /// The bytes of one slot's payload buffer.
    let slotBytes: Int
    /// The received payloads, `slotBytes` apart.
    let receivePayloads: UnsafeMutableRawPointer
    /// The sources of the received datagrams.
    let receiveNames: UnsafeMutablePointer<sockaddr_storage>
    /// The received datagrams' vectors, each over its slot.
    let receiveVectors: UnsafeMutablePointer<iovec>
    /// The payloads of the batch being sent, `slotBytes` apart.
    let sendPayloads: UnsafeMutableRawPointer
    /// The destinations of the batch being sent.
    let sendNames: UnsafeMutablePointer<sockaddr_storage>
    /// The batch's vectors.
    let sendVectors: UnsafeMutablePointer<iovec>

    /// Allocates `slotCount` slots of `slotBytes`, for receiving and for sending.
    init(slotCount: Int, slotBytes: Int) {
        self.slotCount = slotCount
        self.slotBytes = slotBytes
        receivePayloads = .allocate(byteCount: slotCount * slotBytes, alignment: 16)
        receiveNames = .allocate(capacity: slotCount)
        receiveNames.initialize(repeating: sockaddr_storage(), count: slotCount)
        receiveVectors = .allocate(capacity: slotCount)
        sendPayloads = .allocate(byteCount: slotCount * slotBytes, alignment: 16)
        sendNames = .allocate(capacity: slotCount)
        sendNames.initialize(repeating: sockaddr_storage(), count: slotCount)
        sendVectors = .allocate(capacity: slotCount)
        for slot in 0..<slotCount {
            receiveVectors[slot] = iovec(iov_base: receivePayloads + slot * slotBytes, iov_len: slotBytes)
            sendVectors[slot] = iovec(iov_base: sendPayloads + slot * slotBytes, iov_len: 0)
        }
    }

    /// Frees the memory; called once, by the channel's `deinit`.
    func deallocate() {
        receivePayloads.deallocate()
        receiveNames.deallocate()
        receiveVectors.deallocate()
        sendPayloads.deallocate()
        sendNames.deallocate()
        sendVectors.deallocate()
    }
}

@available(*, unavailable)
extension UDPBuffers: Sendable {}

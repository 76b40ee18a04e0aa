/// A connected non-blocking TCP socket on an ``EventLoop`` with a bounded outbound buffer.
///
/// Reads go through the loop's shared scratch buffer to ``onRead``; writes are tried at once and
/// whatever the kernel does not take waits in the outbound buffer until the socket is writable.
/// The owner decides the backpressure policy from ``bufferedByteCount`` and may pause reading
/// (``isReadPaused``) so a peer that never reads cannot make it buffer without bound.
///
/// Not thread-safe: every member is for the loop thread.
package final class TCPChannel: EventLoopHandler {
    package let loop: EventLoop
    let socket: Socket
    /// The TLS session under this channel, or `nil` for plain TCP (see `TCPChannel+TLS.swift`).
    let tls: TLSSession?
    /// Why TLS failed, when it did: set before ``close(error:)`` reports the failing `SSL_*` call.
    package internal(set) var tlsFailure: TLSError?
    var isPendingTLSReadScheduled = false
    /// The descriptor, kept after close for logging.
    package let descriptor: Int32
    /// The peer's address, when known.
    package let peer: SocketAddress?

    // The callbacks, `isClosed` and `readPaused` are read on every readiness event. Unchecked
    // exclusivity: being `package`, the optimizer can no longer prove (as it did when they were
    // internal) that no access to them overlaps another, so it would check each read at run time;
    // loop thread only, and no access to them overlaps another (a callback is copied out, then called).

    /// Bytes arrived; the buffer is valid only during the call.
    @exclusivity(unchecked) package var onRead: (UnsafeRawBufferPointer) -> Void = { _ in }
    /// The reads of one readiness event are done (after one or more ``onRead`` calls): the
    /// moment to write the replies to all of them in one `send`.
    @exclusivity(unchecked) package var onReadsDone: () -> Void = {}
    /// The connection ended: `nil` for end of stream or a local close, else the failing call.
    @exclusivity(unchecked) package var onClose: (SystemError?) -> Void = { _ in }
    /// The kernel took bytes from the outbound buffer: it emptied, or at least shrank (so an
    /// owner can tell a peer that reads slowly from one that stopped reading).
    @exclusivity(unchecked) package var onWritable: () -> Void = {}
    /// A non-blocking connect finished: `nil` on success, else why it failed.
    @exclusivity(unchecked) package var onConnect: ((SystemError?) -> Void)?
    /// How many more bytes the owner needs to reach a boundary in what it reads (the end of a
    /// message), or 0 when it is at one or cannot tell: the last read of a readiness event reads
    /// only those (see ``readLength(index:bufferBytes:bytesToBoundary:)``).
    @exclusivity(unchecked) package var bytesToBoundary: () -> Int = { 0 }

    // Unchecked exclusivity: every send reads them (``bufferedByteCount``) and the dynamic checks
    // cost more than the reads; loop thread only, and no access to them overlaps another.
    @exclusivity(unchecked) private var outbound: [UInt8] = []
    @exclusivity(unchecked) private var outboundStart = 0
    private var interest: PollInterest = []
    @exclusivity(unchecked) package private(set) var isClosed = false
    private var isFlushRequested = false
    private var isClosingAfterFlush = false

    /// Bytes accepted by ``write(_:)`` and not yet taken by the kernel: over TLS, the encrypted
    /// records of a large write that wait in the session's queue count too.
    package var bufferedByteCount: Int { outbound.count - outboundStart + (tls?.queuedByteCount ?? 0) }

    /// While `true` the channel does not read from the socket (backpressure towards the peer).
    ///
    /// Computed over private storage: the WebSocket layer reads it on every drain check, and a
    /// read of a stored property from another module would be checked for exclusivity at run time.
    package var isReadPaused: Bool {
        get { readPaused }
        set {
            guard newValue != readPaused else { return }
            readPaused = newValue
            updateInterest()
            if !newValue && tls != nil { scheduleTLSPendingRead() }
        }
    }
    @exclusivity(unchecked) private var readPaused = false

    /// Wraps an accepted or connecting socket and registers it on `loop` (loop thread only).
    ///
    /// With `tls`, the channel runs the TLS handshake first (writes wait for it) and then reads
    /// and writes through the session; ``onRead`` and ``write(_:)`` see plain bytes either way.
    ///
    /// - Parameters:
    ///   - isConnecting: `true` for a socket whose non-blocking connect is in progress.
    ///   - tls: A TLS session over `socket`, or `nil` for plain TCP.
    package init(
        socket: Socket, peer: SocketAddress?, loop: EventLoop, isConnecting: Bool = false,
        tls: TLSSession? = nil
    ) throws(SystemError) {
        self.socket = socket
        self.descriptor = socket.descriptor
        self.peer = peer
        self.loop = loop
        self.tls = tls
        interest = isConnecting ? .write : .read
        try loop.register(socket.descriptor, interest: interest, handler: self)
        if let tls, !tls.isServer, !isConnecting {
            // The client speaks first (ClientHello); the owner sets its callbacks before then.
            loop.schedule(after: .zero) { [weak self] in self?.continueTLSHandshake() }
        }
    }

    func updateInterest() {
        guard !isClosed else { return }
        var wanted: PollInterest = []
        if onConnect != nil || bufferedByteCount > 0 { wanted.insert(.write) }
        if onConnect == nil && !readPaused { wanted.insert(.read) }
        if let tls, onConnect == nil { wanted = Self.tlsInterest(tls, otherwise: wanted) }
        guard wanted != interest else { return }
        interest = wanted
        do {
            try loop.reregister(descriptor, interest: wanted)
        } catch {
            // Reported on the next loop turn, like write errors: callers may hold their owner's lock.
            isClosingAfterFlush = true
            loop.schedule(after: .zero) { [weak self] in self?.close(error: error) }
        }
    }

    func handle(_ event: PollEvent) {
        if let onConnect {
            guard event.isWritable || event.isHangup else { return }
            self.onConnect = nil
            let error = socket.connectionError()
            if let error {
                onClose = { _ in }  // the owner hears about the failure through onConnect only
                close(error: nil)
                onConnect(error)
                return
            }
            try? socket.setNoDelay()
            updateInterest()
            onConnect(nil)
            if tls != nil { continueTLSHandshake() }
            return
        }
        if let tls, !tls.isHandshakeComplete {
            continueTLSHandshake()
            return
        }
        if event.isWritable {
            flush()
            if tls?.readWantsWrite == true { readAvailable() }
        }
        if event.isHangup && readPaused && !isClosed {
            // EPOLLHUP/EPOLLERR arrive whatever the interest: a paused channel would be woken
            // again and again without reading, so a dead connection closes here.
            close(error: socket.connectionError())
            return
        }
        if event.isReadable || event.isHangup { readAvailable() }
    }

    func readAvailable() {
        let buffer = loop.readBuffer
        defer {
            onReadsDone()
            if let tls {
                scheduleTLSPendingRead()
                if tls.readWantsWrite { updateInterest() }  // a TLS answer (KeyUpdate) waits for writability
            }
        }
        var index = 0
        while let length = Self.readLength(index: index, bufferBytes: buffer.count, bytesToBoundary: bytesToBoundary) {
            guard !isClosed, !readPaused else { return }
            index += 1
            do {
                guard let count = try transportRead(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])) else { return }
                if count == 0 {
                    close(error: nil)
                    return
                }
                onRead(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                // The socket is drained (a TLS read stops there too, unless it keeps an end to report).
                if count < length && tls?.hasDeferredReadEnd != true { return }
            } catch {
                close(error: error)
                return
            }
        }
    }

    /// Full reads per readiness event: enough for throughput, bounded for fairness between connections.
    package static let fullReadsPerEvent = 4

    /// How many bytes read number `index` (from 0) of one readiness event asks for, or `nil`
    /// when the event's reads are done.
    ///
    /// ``fullReadsPerEvent`` reads of the whole buffer, then one read of just the bytes the owner
    /// needs to reach a boundary (``bytesToBoundary``), when they fit in the buffer. A message
    /// left half-read would wait for this connection's next turn, after the other connections'
    /// traffic has pushed its first part out of the cache; the copies that finish and echo it
    /// would then read from memory. At 64 KiB × 100 connections × 16 in flight, where nearly
    /// every read ends inside a message, the server echoed 7–14% more messages per second with
    /// this last read than without it, in alternated runs (BENCHMARKS.md).
    ///
    /// - Parameters:
    ///   - index: The read about to be made, 0 for the first of the event.
    ///   - bufferBytes: The size of the read buffer.
    ///   - bytesToBoundary: Asked only for the last read.
    package static func readLength(index: Int, bufferBytes: Int, bytesToBoundary: () -> Int) -> Int? {
        if index < fullReadsPerEvent { return bufferBytes }
        guard index == fullReadsPerEvent else { return nil }
        let needed = bytesToBoundary()
        return needed > 0 && needed <= bufferBytes ? needed : nil
    }

    /// Writes at least this large go to the kernel at once when nothing is buffered; smaller ones
    /// are gathered and sent once at the end of the loop iteration.
    package static let directWriteBytes = 64 * 1024

    /// Sends `bytes`: small writes are gathered until the end of the loop iteration (one `send`
    /// for many messages), large ones go out at once; what the kernel does not take waits for writability.
    package func write(_ bytes: UnsafeRawBufferPointer) {
        write(bytes, immediately: false)
    }

    /// Sends `bytes` at once when nothing is buffered, whatever their size; what the kernel does
    /// not take is kept like any other write.
    ///
    /// For a reply to what was just read: it leaves while its bytes are still in the cache, and
    /// the caller's buffer is free again when this returns.
    package func writeNow(_ bytes: UnsafeRawBufferPointer) {
        write(bytes, immediately: true)
    }

    /// Sends `first` then `second` at once in one call when nothing is buffered, without joining
    /// them first; what the kernel does not take is kept, in order, like any other write.
    package func writeNow(_ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) {
        write(first, then: second, immediately: true)
    }

    /// The one write path: tries the kernel at once when nothing is buffered and the write is
    /// immediate or large (one `send`, or one `sendmsg` when `second` is not empty), keeps what
    /// it does not take, in order, and arranges the flush.
    private func write(
        _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer = .init(start: nil, count: 0),
        immediately: Bool
    ) {
        let total = first.count + second.count
        guard !isClosed, !isClosingAfterFlush, total > 0 else { return }
        var written = 0
        if bufferedByteCount == 0 && onConnect == nil && (immediately || total >= Self.directWriteBytes) && isTransportReady {
            do {
                let taken =
                    first.isEmpty || second.isEmpty
                    ? try transportWrite(from: first.isEmpty ? second : first)
                    : try transportWrite(from: first, then: second)
                written = taken ?? 0
            } catch {
                // Report the failure on the next loop turn, not inside the caller's write: the
                // owner's close handling must not re-enter code that is in the middle of sending.
                isClosingAfterFlush = true
                loop.schedule(after: .zero) { [weak self] in self?.close(error: error) }
                return
            }
        }
        if written < first.count {
            outbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: first[written...]))
            outbound.append(contentsOf: second)
        } else if written < total {
            outbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: second[(written - first.count)...]))
        } else if bufferedByteCount == 0 {
            return
        }
        if interest.contains(.write) || onConnect != nil {
            return  // a writable event will flush
        }
        if written > 0 {
            // The kernel's buffer is full (over TLS, encrypted records may wait in the queue
            // though every byte was taken): wait for writability.
            updateInterest()
        } else if !isFlushRequested {
            isFlushRequested = true
            loop.requestFlush(self)
        }
    }

    /// The loop's end-of-iteration flush (see ``EventLoop/requestFlush(_:)``).
    func flushRequested() {
        isFlushRequested = false
        guard !isClosed, bufferedByteCount > 0, !interest.contains(.write), isTransportReady else { return }
        flush()
    }

    /// Sends `bytes` (see ``write(_:)-(UnsafeRawBufferPointer)``).
    package func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends `bytes` like ``write(_:)-(UnsafeRawBufferPointer)``, taking the array's storage
    /// rather than copying it when nothing is buffered: `bytes` comes back empty, holding the
    /// channel's previous (empty) buffer, so the caller and the channel trade buffers.
    package func write(taking bytes: inout [UInt8]) {
        guard outbound.isEmpty, bytes.count < Self.directWriteBytes, !isClosed, !isClosingAfterFlush else {
            write(bytes)
            bytes.removeAll(keepingCapacity: true)
            return
        }
        swap(&outbound, &bytes)
        outboundStart = 0
        if interest.contains(.write) || onConnect != nil { return }  // a writable event will flush
        if !isFlushRequested {
            isFlushRequested = true
            loop.requestFlush(self)
        }
    }

    func flush() {
        let startBytes = bufferedByteCount
        while bufferedByteCount > 0 {
            let start = outboundStart
            let result = outbound.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try transportWrite(from: UnsafeRawBufferPointer(rebasing: raw[start...])) }
            }
            guard case .success(let count) = result else {
                if case .failure(let error) = result { close(error: error) }
                return
            }
            guard let written = count else { break }
            outboundStart += written
        }
        if bufferedByteCount == 0 {
            outbound.removeAll(keepingCapacity: outbound.capacity <= 1 << 20)
            outboundStart = 0
        } else if outboundStart >= 1 << 20 && outboundStart * 2 >= outbound.count {
            // Compact once the sent prefix dominates, so the array does not grow forever.
            outbound.removeFirst(outboundStart)
            outboundStart = 0
        }
        if isClosingAfterFlush && bufferedByteCount == 0 {
            finishClosing()
            return
        }
        updateInterest()
        if bufferedByteCount < startBytes { onWritable() }
    }

    /// Closes once every buffered byte has been sent (or at once when none is buffered).
    ///
    /// Before a TLS handshake completes nothing can be sent, so the channel closes at once,
    /// unless `awaitingTLSHandshake`: then it finishes the handshake first and sends what is
    /// buffered, all within ``lingerTimeout`` (a refusal such as HTTP 503 that the client
    /// should read, as a plain client does).
    ///
    /// - Parameter awaitingTLSHandshake: Whether a TLS channel still handshaking finishes the
    ///   handshake to send its buffered bytes. Default `false`.
    package func closeAfterFlush(awaitingTLSHandshake: Bool = false) {
        guard !isClosed, !isClosingAfterFlush else { return }
        if tls?.isHandshakeComplete == false {
            guard awaitingTLSHandshake, bufferedByteCount > 0 else {
                close(error: nil)  // nothing can be sent before the TLS handshake: close at once
                return
            }
            isClosingAfterFlush = true  // `continueTLSHandshake` flushes, then `flush` finishes closing
            loop.schedule(after: Self.lingerTimeout) { [weak self] in self?.close(error: nil) }
            return
        }
        isClosingAfterFlush = true
        if bufferedByteCount == 0 { finishClosing() }
    }

    /// How long a closing channel waits for the peer's end of stream after its own.
    package static let lingerTimeout: Duration = .seconds(2)

    /// Sends our end of stream, then reads and discards until the peer's (bounded by ``lingerTimeout``):
    /// closing with unread input would send a reset that can destroy the bytes just sent.
    private func finishClosing() {
        tls?.shutdown()  // close_notify
        socket.shutdownWrite()
        onRead = { _ in }
        onReadsDone = {}
        bytesToBoundary = { 0 }
        isReadPaused = false
        updateInterest()
        loop.schedule(after: Self.lingerTimeout) { [weak self] in self?.close(error: nil) }
    }

    /// Closes now, dropping buffered bytes, and calls ``onClose`` once.
    package func close(error: SystemError? = nil) {
        guard !isClosed else { return }
        isClosed = true
        loop.deregister(descriptor)
        socket.close()
        outbound = []
        outboundStart = 0
        let onClose = self.onClose
        self.onClose = { _ in }
        onRead = { _ in }
        onReadsDone = {}
        bytesToBoundary = { 0 }
        onWritable = {}
        onClose(error)
    }
}

@available(*, unavailable)
extension TCPChannel: Sendable {}

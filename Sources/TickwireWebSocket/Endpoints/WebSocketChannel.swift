import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// The loop-thread side of one open WebSocket connection: the protocol machine between a
/// ``TCPChannel`` and the user, with the close timer, keepalive and send-buffer accounting.
///
/// It shares its loop's reply buffer with the other connections on the loop
/// (``WebSocketLoopState``): it holds the buffer while it handles its reads and sends its
/// replies at the end of the loop turn.
///
/// It bounds what a peer can cost the loop: a send buffer over its high-water mark for longer
/// than the write timeout closes the connection (1008), its buffered bytes count against its
/// server's ``OutputBudget``, and it inflates at most ``inflationStepBytes`` per loop turn,
/// going on in the next turn (``LoopPendingWork``) with reading paused meanwhile.
///
/// Not thread-safe: every member is for the loop thread. The public handle is ``WebSocketConnection``.
final class WebSocketChannel {
    /// What the channel reports to its owner (server or client), on the loop thread.
    enum Event {
        case message(WebSocketMessage)
        case writable
        case closed(WebSocketCloseFrame)
    }

    let tcp: TCPChannel
    /// What the connections on `tcp`'s loop share: the reply buffer, its holder, the spare message.
    let shared: WebSocketLoopState
    let machine: WebSocketProtocolMachine
    let connection: WebSocketConnection
    private let closeTimeout: Duration
    private let onEvent: (Event) -> Void
    /// Frames waiting for the next write. Unchecked exclusivity: every send borrows it `inout`
    /// (into the machine, whose masking-key closure the optimizer cannot see through), and the
    /// dynamic check cost as much as framing a small message. Sound because it is touched on the
    /// loop thread only and no code that borrows it can reach another borrow of it.
    @exclusivity(unchecked) private var output: [UInt8] = []
    private var closeTimer: TimerHandle?
    /// The sans-IO keepalive schedule; one loop timer follows its `nextDeadline`.
    private var keepaliveState: WebSocketKeepalive?
    private var keepaliveTimer: TimerHandle?
    private var isOverHighWaterMark = false
    /// ``WebSocketServerConfiguration/writeTimeout`` in nanoseconds, 0 for none.
    let writeTimeoutNanoseconds: UInt64
    /// Runs while the send buffer is over its high-water mark; closes the connection when it fires.
    /// Unchecked exclusivity, like `budgetedBytes`: read on every settling of the accounting
    /// (after each flush), loop thread only, and no access to it overlaps another.
    @exclusivity(unchecked) var writeTimer: TimerHandle?
    /// The server's budget for all its connections' buffered bytes (`nil` for a client), and
    /// this channel's bytes counted in it.
    private let outputBudget: OutputBudget?
    @exclusivity(unchecked) private var budgetedBytes = 0
    /// The most bytes inflated per loop turn (``WebSocketProtocolMachine/inflationBudget``).
    private let inflationStepBytes: Int
    /// Input read but not yet taken by the machine, whose inflation stopped at its budget; reading
    /// is paused until the pending work has fed it all.
    var unreadInput: [UInt8] = []
    var isInflationPending = false
    /// From the first read of a readiness event until ``writeReplies()``: `output` is then the
    /// loop's reply buffer, and sends (from the owner's event handlers) only frame into it,
    /// after ``replyStart``. The loop state's ``WebSocketLoopState/replyBufferHolder`` is the one record of it.
    private var isHoldingReplyBuffer: Bool { shared.replyBufferHolder === self }
    /// Where this channel's frames begin in the held reply buffer: the replies other
    /// connections made earlier in this loop turn come before them.
    private var replyStart = 0
    /// This channel's replies left in the loop's reply buffer for the end of the loop turn
    /// (``sendDeferredReplies()``); every other write on this channel sends them first.
    private var deferredReplies: Range<Int>?
    private(set) var isClosed = false

    /// Takes over `tcp` after a successful handshake (loop thread only). Call ``start(initialBytes:)`` next.
    init(
        tcp: TCPChannel, machine: WebSocketProtocolMachine, connection: WebSocketConnection,
        closeTimeout: Duration, keepalive: KeepalivePolicy?, writeTimeout: Duration? = nil, outputBudget: OutputBudget? = nil,
        inflationStepBytes: Int = WebSocketServerConfiguration().inflationStepBytes, onEvent: @escaping (Event) -> Void
    ) {
        self.tcp = tcp
        writeTimeoutNanoseconds = writeTimeout.map { max($0.nanoseconds, 1) } ?? 0
        self.outputBudget = outputBudget
        self.inflationStepBytes = max(inflationStepBytes, 1)
        shared = WebSocketLoopState.of(tcp.loop)
        self.machine = machine
        self.connection = connection
        self.closeTimeout = closeTimeout
        keepaliveState = keepalive.map {
            WebSocketKeepalive(interval: $0.interval.nanoseconds, timeout: $0.pongTimeout.nanoseconds, now: MonotonicTime.now())
        }
        self.onEvent = onEvent
        connection.channel.value = self
        machine.answersPings = false  // `handle(.ping)` answers, in order with the owner's sends
        // The machine holds a spare message buffer only while it reads (lent by the loop, see
        // `receive`), so it may be as large as the largest message worth reusing.
        machine.inbound.spareCapacityLimit = Self.loopSpareMessageBytes
        // Strong captures: the TCP channel clears its callbacks when it closes, which breaks the cycle.
        tcp.onRead = { bytes in self.receive(bytes) }
        tcp.onReadsDone = { self.writeReplies() }
        tcp.onClose = { error in self.transportClosed(error) }
        tcp.onWritable = { self.afterFlush() }
        tcp.bytesToBoundary = { [machine] in machine.bytesLeftInFinalFrame }
        tcp.isReadPaused = false
    }

    /// Starts keepalive and processes bytes that arrived together with the handshake.
    func start(initialBytes: [UInt8]) {
        scheduleKeepalive()
        if !initialBytes.isEmpty {
            initialBytes.withUnsafeBytes { receive($0) }
            writeReplies()
        }
    }

    // MARK: Sending

    func send(_ message: WebSocketMessage) {
        guard !isClosed, machine.state == .open else { return }
        do {
            switch message {
            case .text(let text): try machine.sendText(text, output: &output)
            case .binary(let bytes):
                // A server's plain frame is its header and the payload unchanged: the header
                // comes from the machine, and the payload is appended here, or for a large one
                // left where it is and written with the frames before it in one gathered write.
                if try machine.sendBinaryHeader(payloadCount: bytes.count, output: &output) {
                    if bytes.count >= Self.unjoinedPayloadBytes {
                        sendDeferredReplies()
                        let start = isHoldingReplyBuffer ? replyStart : 0
                        output.withUnsafeBytes { frames in
                            let head = UnsafeRawBufferPointer(rebasing: frames[start...])
                            bytes.withUnsafeBytes { tcp.writeNow(head, then: $0) }
                        }
                        output.removeSubrange(start...)
                    } else {
                        // Through a buffer pointer: `append(contentsOf:)` takes an array argument
                        // owned, a retain and a release per message (perf).
                        bytes.withUnsafeBufferPointer { output.append(contentsOf: $0) }
                    }
                } else {
                    try machine.sendBinary(bytes, output: &output)
                }
            }
        } catch {
            return  // only `connectionNotOpen`, checked above
        }
        if isHoldingReplyBuffer {
            // `writeReplies` writes once the reads are done and checks the limits then; the
            // count is kept current so that the caller's `SendResult` sees these bytes.
            connection.wireBytes.store(unsentByteCount, ordering: .relaxed)
        } else {
            flushOutput()
        }
    }

    /// Starts the close handshake; the close timer closes the socket if the peer never answers.
    func close(code: WebSocketCloseCode, reason: String) {
        guard !isClosed, machine.state == .open else { return }
        connection.isClosing.store(true, ordering: .releasing)
        let fitting = reason.utf8.count <= 123 ? reason : ""  // the protocol allows 123 bytes of reason
        let sent = (try? machine.close(code: code, reason: fitting, output: &output)) ?? false
        if !isHoldingReplyBuffer { flushOutput() }  // else `writeReplies` writes it after the events
        guard sent else { return }
        closeTimer = tcp.loop.schedule(after: closeTimeout) { [weak self] in
            guard let self, !self.isClosed else { return }
            self.finish(WebSocketCloseFrame(code: .abnormalClosure, reason: "no close reply within \(self.closeTimeout)"))
            self.tcp.close()
        }
    }

    private func flushOutput() {
        sendDeferredReplies()
        if !output.isEmpty {
            tcp.write(taking: &output)
            output.removeAll(keepingCapacity: output.capacity <= 1 << 16)
        }
        updateBufferAccounting()
    }

    private func updateBufferAccounting() {
        guard !isClosed else { return }
        let unsent = unsentByteCount
        connection.wireBytes.store(unsent, ordering: .relaxed)
        if let outputBudget, unsent != budgetedBytes {
            outputBudget.add(unsent &- budgetedBytes)
            budgetedBytes = unsent
        }
        let buffered = connection.bufferedByteCount
        let limits = connection.sendBufferLimits
        if buffered > limits.highWaterMark {
            isOverHighWaterMark = true
            if writeTimer == nil && writeTimeoutNanoseconds > 0 { startWriteTimer() }
        } else if let writeTimer {
            tcp.loop.cancel(writeTimer)
            self.writeTimer = nil
        }
        if buffered >= limits.pauseReadingThreshold { tcp.isReadPaused = true }
    }

    /// Bytes this channel holds in send buffers, as counted in its ``OutputBudget``.
    var outputBudgetBytes: Int { budgetedBytes }

    /// Bytes sent by the owner or the protocol and not yet taken by the kernel: the TCP
    /// channel's buffer, this channel's frames in `output`, and its deferred replies.
    private var unsentByteCount: Int {
        tcp.bufferedByteCount + (isHoldingReplyBuffer ? output.count - replyStart : output.count)
            + (deferredReplies?.count ?? 0)
    }

    private func afterFlush() {
        updateBufferAccounting()
        checkDrain()
    }

    /// Resumes reading and reports ``Event/writable`` once the buffer has drained enough.
    /// Called after the socket took bytes and after queued messages were framed, never from
    /// inside a user's `send` (so the event does not re-enter the caller).
    func checkDrain() {
        let buffered = connection.bufferedByteCount
        let limits = connection.sendBufferLimits
        if tcp.isReadPaused && buffered <= limits.highWaterMark && !isClosed && !isInflationPending { tcp.isReadPaused = false }
        if isOverHighWaterMark && buffered <= limits.lowWaterMark && !isClosed {
            isOverHighWaterMark = false
            onEvent(.writable)
        }
    }

    // MARK: Receiving

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        keepaliveState?.activityObserved(now: MonotonicTime.now())
        // Events reach the owner as the machine completes them, so a handler may send (framed
        // into `output`, like the pongs `handle` writes) while the machine writes its close reply
        // or failing close frame into `replies`. Those go out last: a failing close frame then
        // follows the echoes of the valid messages before it.
        var replies: [UInt8] = []  // allocates only when the machine writes a close frame
        // The frames sent while handling the reads of one readiness event go into the loop's
        // reply buffer, after the replies of the connections served before in this loop turn,
        // and out in one write per connection at the end of the turn (``writeReplies()``).
        // (`output` is empty before the first read: sends outside `receive` hand their frames
        // to the TCP channel at once.)
        if !isHoldingReplyBuffer {
            sendDeferredReplies()  // a second readiness event in one turn: keep the order
            swap(&output, &shared.replyBuffer)
            shared.replyBufferHolder = self
            replyStart = output.count
            machine.inbound.inflationBudget = inflationStepBytes  // a new turn for this connection
        }
        var failure: WebSocketError?
        swap(&machine.inbound.spareMessage, &shared.spareMessage)
        do {
            let taken = try machine.receive(bytes, output: &replies) { handle($0) }
            if machine.inbound.isInflationSuspended { suspendReading(keeping: UnsafeRawBufferPointer(rebasing: bytes[taken...])) }
        } catch {
            failure = error
        }
        swap(&machine.inbound.spareMessage, &shared.spareMessage)
        output.append(contentsOf: replies)
        if failure != nil || machine.state == .closed {
            writeReplies(deferring: false)  // before the socket closes
        } else if output.count - replyStart >= Self.replyWriteBytes {
            // Large replies go now rather than gathered over several reads: a send of a few
            // hundred KiB copies slower than several of 64 KiB (the bytes fall out of the cache).
            writeReplyBufferNow()
        }
        if let failure {
            connection.isClosing.store(true, ordering: .releasing)
            finish(WebSocketCloseFrame(code: failure.closeCode, reason: failure.description))
            tcp.closeAfterFlush()
        } else if machine.state == .closed {
            // The close handshake is complete: flush, then close the socket.
            tcp.closeAfterFlush()
        }
    }

    /// The largest message buffer the loop keeps for reuse between reads (one per loop).
    static let loopSpareMessageBytes = 1 << 20

    /// Binary messages at least this large are written from their own storage, not copied into
    /// the frame buffer, when nothing needs to change them (a server, not compressing).
    static let unjoinedPayloadBytes = 16 * 1024

    /// Replies of at least this many bytes are written at the end of the read that made them.
    static let replyWriteBytes = 64 * 1024

    /// How many reply bytes the loop gathers from its connections before it sends them, even
    /// within a turn: enough for the replies of many small-message connections, few enough that
    /// the buffer stays in the cache (at 1 MiB, copying into it and the kernel's copying out of
    /// it missed the cache: 1.50 against 1.36 µs per message at 1 KiB × 100 × 16).
    static let replyGatheringBytes = 128 * 1024

    /// Gives the loop its reply buffer back when the reads of one readiness event are done,
    /// leaving this channel's replies in it for the end of the loop turn.
    ///
    /// Deferring them gathers the `send`s of the connections served in one turn, as the TCP
    /// echo's gathered writes do: a peer woken by the first then finds the rest ready, rather
    /// than being woken once per connection between reads. With `deferring` false they are
    /// written now; once the buffer holds ``replyGatheringBytes``, the loop sends every
    /// connection's gathered replies and starts again.
    func writeReplies(deferring: Bool = true) {
        guard isHoldingReplyBuffer else { return }
        if !deferring { writeReplyBufferNow() }
        let end = output.count
        swap(&output, &shared.replyBuffer)
        shared.replyBufferHolder = nil
        if end > replyStart {
            deferredReplies = replyStart..<end
            shared.deferReplies(of: self)
        }
        updateBufferAccounting()
        if end >= Self.replyGatheringBytes { shared.sendDeferredReplies() }
    }

    /// Sends this channel's frames in the held reply buffer now, and removes them from it.
    private func writeReplyBufferNow() {
        guard output.count > replyStart else { return }
        output.withUnsafeBytes { tcp.writeNow(UnsafeRawBufferPointer(rebasing: $0[replyStart...])) }
        output.removeSubrange(replyStart...)
    }

    /// Sends the replies ``writeReplies(deferring:)`` left in the loop's reply buffer, if any:
    /// at the end of the loop turn (``WebSocketLoopState/sendDeferredReplies()``), or before any other
    /// write on this channel, which must follow them.
    private func sendDeferredReplies() {
        guard let range = deferredReplies else { return }
        deferredReplies = nil
        // Another connection may hold the buffer now (this one sending from its event handler);
        // the bytes before its own frames, these among them, stay where they are.
        let write = { [tcp] (replies: UnsafeRawBufferPointer) in tcp.writeNow(UnsafeRawBufferPointer(rebasing: replies[range])) }
        if let holder = shared.replyBufferHolder {
            holder.withReplyBuffer(write)
        } else {
            shared.replyBuffer.withUnsafeBytes(write)
        }
    }

    /// The loop's reply buffer while this channel holds it (``WebSocketLoopState/replyBufferHolder``).
    func withReplyBuffer(_ body: (UnsafeRawBufferPointer) -> Void) {
        output.withUnsafeBytes(body)
    }

    /// The end of the loop turn: sends the deferred replies, then settles the send-buffer
    /// accounting they were counted in (resuming reads or reporting the drain if due).
    func turnEnded() {
        sendDeferredReplies()
        afterFlush()
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .text(let text):
            if !isClosed { onEvent(.message(.text(text))) }
        case .binary(let bytes):
            if !isClosed { onEvent(.message(.binary(bytes))) }
        case .ping(let payload):
            if machine.state == .open { try? machine.sendPong(payload, output: &output) }
        case .pong(let payload):
            if keepaliveState?.pongReceived(payload, now: MonotonicTime.now()) == true,
                let roundTrip = keepaliveState?.lastRoundTrip
            {
                connection.lastRoundTripNanoseconds.store(Int64(clamping: roundTrip), ordering: .relaxed)
            }
        case .close(let frame):
            connection.isClosing.store(true, ordering: .releasing)
            finish(frame)
        }
    }

    private func transportClosed(_ error: SystemError?) {
        if isHoldingReplyBuffer {
            output.removeSubrange(replyStart...)
            swap(&output, &shared.replyBuffer)
            shared.replyBufferHolder = nil
        }
        deferredReplies = nil
        let frame = machine.transportClosed()
        if !isClosed {
            var reported = frame
            if let error, reported.code == .abnormalClosure { reported.reason = "\(error)" }
            if let tlsFailure = tcp.tlsFailure, reported.code == .abnormalClosure { reported.reason = "\(tlsFailure)" }
            finish(reported)
        }
    }

    // MARK: Keepalive

    private func scheduleKeepalive() {
        guard let deadline = keepaliveState?.nextDeadline, !isClosed else { return }
        if let keepaliveTimer { tcp.loop.cancel(keepaliveTimer) }
        let now = MonotonicTime.now()
        let delay = Duration.nanoseconds(Int64(clamping: deadline > now ? deadline - now : 0))
        keepaliveTimer = tcp.loop.schedule(after: delay) { [weak self] in self?.keepaliveDue() }
    }

    private func keepaliveDue() {
        keepaliveTimer = nil
        guard var state = keepaliveState, !isClosed, machine.state == .open else { return }
        let action = state.poll(now: MonotonicTime.now())
        keepaliveState = state
        switch action {
        case .idle: break
        case .sendPing(let payload):
            try? machine.sendPing(payload, output: &output)
            flushOutput()
        case .timedOut:
            let waited = Duration.nanoseconds(Int64(clamping: state.timeout))
            finish(WebSocketCloseFrame(code: .abnormalClosure, reason: "no pong within \(waited)"))
            tcp.close()
            return
        }
        scheduleKeepalive()
    }

    // MARK: Ending

    /// Reports the connection closed, once, and releases timers and the handle's link.
    func finish(_ frame: WebSocketCloseFrame) {
        guard !isClosed else { return }
        isClosed = true
        connection.isClosing.store(true, ordering: .releasing)
        for timer in [closeTimer, keepaliveTimer, writeTimer].compactMap({ $0 }) { tcp.loop.cancel(timer) }
        closeTimer = nil
        keepaliveTimer = nil
        writeTimer = nil
        if let outputBudget, budgetedBytes != 0 {
            outputBudget.add(-budgetedBytes)
            budgetedBytes = 0
        }
        connection.channel.value = nil
        onEvent(.closed(frame))
    }

    /// Closes the socket at once without a close handshake (loop thread only).
    func abort(reason: String) {
        finish(WebSocketCloseFrame(code: .abnormalClosure, reason: reason))
        tcp.close()
    }
}

@available(*, unavailable)
extension WebSocketChannel: Sendable {}

import Synchronization
import TickwireFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something the event loop tells when its descriptor is ready. Called on the loop thread only.
protocol EventLoopHandler: AnyObject {
    /// The registered descriptor is ready; `event` says how.
    func handle(_ event: PollEvent)
}

/// One thread that waits on many non-blocking sockets (`epoll` on Linux, `poll` elsewhere) and runs timers.
///
/// Sockets, timers and handlers belong to the loop thread. Other threads hand work to it with
/// ``execute(_:)``: the closure goes into a `Mutex`-protected inbox and an eventfd wakes the loop,
/// which drains the inbox once per iteration. Many connections share one loop.
///
/// ```swift
/// let loop = try EventLoop()
/// try loop.start()
/// loop.execute { print("on the loop thread") }
/// loop.stop()
/// ```
public final class EventLoop: @unchecked Sendable {
    // Thread safety: `inbox` is guarded by its `Mutex`; `poller.wake()` is a write(2) to an eventfd
    // (a pipe with `poll`), safe from any thread; `loopThread` is guarded by its `Mutex`. Every other stored property
    // (`poller` registrations, `handlers`, `timers`, `events`, `flushQueue`, `readBuffer`,
    // `turnObservers`, `loopLocals`) is touched only on the loop thread: thread confinement,
    // not a lock, makes those safe.
    private struct Inbox {
        var work: [@Sendable () -> Void] = []
        var isStopRequested = false
        var isStarted = false
        var isJoined = false
        /// Set by the loop thread when it has run its last work; later work is refused.
        var isFinished = false
        /// Open ``EventLoop/withHeldWakeups(_:)`` calls; while above zero, queued work wakes nobody.
        var heldWakeups = 0
        /// Open ``EventLoop/withHeldWakeups(_:)`` calls by thread (``EventLoop/currentThreadID``):
        /// a thread's outermost hold ending wakes the loop for what waits, whatever other threads
        /// hold (a host's tick threads each batch their own rooms' sends).
        var holdsByThread: [UInt: Int] = [:]
    }

    private let poller: any ReadinessPoller
    /// Wake-ups sent to the loop by ``execute(_:)`` and ``withHeldWakeups(_:)``, for tests and diagnostics.
    package let wakeupsSent = Atomic<Int>(0)
    private let inbox = Mutex(Inbox())
    private let loopThread = Mutex<pthread_t?>(nil)
    /// The loop thread's id (``currentThreadID``) once it runs, 0 before: what
    /// ``isInLoopThread`` compares with, without a lock (every send asks).
    @usableFromInline let loopThreadID = Atomic<UInt>(0)
    private var handlers: [Int32: any EventLoopHandler] = [:]
    private var timers = TimerQueue()
    private var events: [PollEvent] = []
    /// Channels with bytes written during this iteration, flushed once before the loop sleeps.
    private var flushQueue: [TCPChannel] = []
    /// Scratch space every socket read on this loop goes through (loop thread only).
    ///
    /// 64 KiB and 256 bytes: room for a 64 KiB message with its largest frame header (14 bytes),
    /// so that such a message, once it has arrived, takes one `read` rather than two.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Scratch space the TLS records of one large write are gathered in before their one `send`
    /// (loop thread only; see ``tlsWriteBuffer()``), allocated by the first such write.
    private var tlsWriteScratch: UnsafeMutableRawBufferPointer?
    /// Told at the end of every turn (``addTurnObserver(_:)``); one per protocol layer in use.
    /// Unchecked exclusivity: read twice per turn, on the loop thread only, and every access is
    /// instantaneous (``endTurn()`` indexes it, so an observer may add another meanwhile).
    @exclusivity(unchecked) private var turnObservers: [any LoopTurnObserver] = []
    /// State a protocol layer keeps once per loop, by its type (``loopLocal(_:create:)``).
    private var loopLocals: [ObjectIdentifier: AnyObject] = [:]
    /// Work to continue in the next turn (``requestPendingWork(_:)``), and the list being run,
    /// swapped each turn so that neither allocates once warm.
    private var pendingWork: [any LoopPendingWork] = []
    private var runningWork: [any LoopPendingWork] = []

    /// Creates a loop; call ``start()`` to run it on its own thread.
    ///
    /// - Throws: ``SystemError`` when `epoll_create1` or `eventfd` fails (`pipe` where `poll` is used).
    public convenience init() throws(SystemError) {
        try self.init(poller: Poller())
    }

    /// Creates a loop over `poller`: tests run the Darwin `poll(2)` path (``PortablePoller``) on Linux this way.
    package init(poller: any ReadinessPoller) {
        self.poller = poller
        readBuffer = .allocate(byteCount: 64 * 1024 + 256, alignment: 16)
        // SIGPIPE: every send uses MSG_NOSIGNAL (Linux) or the socket has SO_NOSIGPIPE (Darwin),
        // so a peer that resets the connection cannot kill the process; no global signal change.
    }

    deinit {
        readBuffer.deallocate()
        tlsWriteScratch?.deallocate()
    }

    /// The loop's scratch buffer for a burst of TLS records (loop thread only): room for
    /// `TCPChannel.tlsBurstRecords` full records, allocated on first use, so a loop that serves
    /// no TLS holds none.
    func tlsWriteBuffer() -> UnsafeMutableRawBufferPointer {
        if let tlsWriteScratch { return tlsWriteScratch }
        let scratch = UnsafeMutableRawBufferPointer.allocate(
            byteCount: TLSSession.burstScratchBytes(records: TCPChannel.tlsBurstRecords), alignment: 16)
        tlsWriteScratch = scratch
        return scratch
    }

    /// Starts the loop thread (`pthread_create`). Calling it again does nothing.
    ///
    /// - Throws: ``SystemError`` when the thread cannot be created.
    public func start() throws(SystemError) {
        let alreadyStarted = inbox.withLock { inbox in
            defer { inbox.isStarted = true }
            return inbox.isStarted
        }
        if alreadyStarted { return }
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t.init(bitPattern: 0)
        let status = loopThread.withLock { stored -> Int32 in
            #if canImport(Glibc)
            let status = pthread_create(
                &thread, nil,
                { argument in
                    guard let argument else { return nil }
                    Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue().run()
                    return nil
                }, box.toOpaque())
            #else
            var created: pthread_t?
            let status = pthread_create(
                &created, nil,
                { argument in
                    Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue().run()
                    return nil
                }, box.toOpaque())
            if let created { thread = created }
            #endif
            if status == 0 { stored = thread }
            return status
        }
        guard status == 0 else {
            box.release()
            throw SystemError(call: "pthread_create", code: status)
        }
    }

    /// Asks the loop to stop after its current iteration and waits for the thread to end (`pthread_join`).
    ///
    /// Registered sockets are released (and so closed) when the loop ends. Calling `stop` from the
    /// loop thread itself only requests the stop and returns.
    public func stop() {
        inbox.withLock { $0.isStopRequested = true }
        poller.wake()
        if isInLoopThread { return }
        let shouldJoin = inbox.withLock { inbox in
            defer { inbox.isJoined = true }
            return !inbox.isJoined
        }
        if shouldJoin, let thread = loopThread.withLock({ $0 }) { _ = pthread_join(thread, nil) }
    }

    /// Whether the caller runs on this loop's thread.
    ///
    /// Inlinable: every WebSocket send asks, from another module.
    @inlinable @inline(__always) public var isInLoopThread: Bool {
        let id = loopThreadID.load(ordering: .acquiring)
        return id != 0 && id == EventLoop.currentThreadID  // not `Self`: dynamic Self blocks inlining
    }

    /// The calling thread's `pthread_self()` as a number.
    @inlinable static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Runs `work` on the loop thread, soon; safe to call from any thread, including the loop's own.
    ///
    /// Work handed over before the loop finishes stopping still runs; work handed to a loop that
    /// has finished is dropped.
    ///
    /// - Parameter work: The closure to run. It runs after the current loop iteration's events.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        enqueue(work)
    }

    /// Queues `work` for the loop thread.
    ///
    /// - Returns: `false` when the loop has finished and `work` will never run.
    @discardableResult
    package func enqueue(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (isAccepted, shouldWake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.isFinished else { return (false, false) }
            inbox.work.append(work)
            return (true, inbox.work.count == 1 && inbox.heldWakeups == 0)
        }
        if shouldWake {
            wakeupsSent.wrappingAdd(1, ordering: .relaxed)
            poller.wake()
        }
        return isAccepted
    }

    /// Runs `body` with this loop's wake-ups held back: work queued meanwhile (``execute(_:)``,
    /// sends from other threads) does not wake a sleeping loop; one wake-up when `body`
    /// returns starts it all.
    ///
    /// For a thread that is about to hand the loop many small pieces of work, such as a game
    /// server's tick sending every client its snapshot: one system call and one loop turn
    /// instead of one each. Work queued by other threads meanwhile waits as well, so keep
    /// `body` short (one room's tick, not a whole second). Calls may nest.
    ///
    /// Several threads may hold at once (a host's tick threads, one room each): each thread's
    /// outermost hold, when it ends, wakes the loop for everything queued so far, even while
    /// another thread still holds; so a thread's batch never waits for another thread's.
    ///
    /// - Parameter body: The work that queues.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withHeldWakeups<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let thread = Self.currentThreadID
        inbox.withLock { inbox in
            inbox.heldWakeups += 1
            inbox.holdsByThread[thread, default: 0] += 1
        }
        defer {
            let shouldWake = inbox.withLock { inbox in
                inbox.heldWakeups -= 1
                let depth = (inbox.holdsByThread[thread] ?? 1) - 1
                inbox.holdsByThread[thread] = depth > 0 ? depth : nil
                return depth == 0 && !inbox.work.isEmpty
            }
            if shouldWake {
                wakeupsSent.wrappingAdd(1, ordering: .relaxed)
                poller.wake()
            }
        }
        return try body()
    }

    // MARK: Loop-thread API

    /// Registers `handler` for `descriptor`. Loop thread only.
    func register(_ descriptor: Int32, interest: PollInterest, handler: any EventLoopHandler) throws(SystemError) {
        try poller.add(descriptor, interest: interest)
        handlers[descriptor] = handler
    }

    /// Changes what `descriptor` is watched for. Loop thread only.
    func reregister(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        try poller.modify(descriptor, interest: interest)
    }

    /// Forgets `descriptor` and releases its handler. Call before closing the descriptor. Loop thread only.
    func deregister(_ descriptor: Int32) {
        poller.remove(descriptor)
        handlers[descriptor] = nil
    }

    /// Asks for `channel.flushRequested()` at the end of this loop iteration. Loop thread only.
    ///
    /// Writes made while handling one wake-up (many echoes of one read, one snapshot to each of
    /// many clients) then leave in one `send` per socket instead of one per message.
    func requestFlush(_ channel: TCPChannel) {
        flushQueue.append(channel)
    }

    /// Has `observer` told at the end of every turn from now on, until the loop ends. Loop thread only.
    package func addTurnObserver(_ observer: any LoopTurnObserver) {
        turnObservers.append(observer)
    }

    /// Has `work.continuePendingWork()` called once in the next turn, after that turn's readiness
    /// events (so every connection with input is served first), without waiting for readiness.
    /// Loop thread only.
    ///
    /// - Parameter work: What continues; it asks again to continue for another turn.
    package func requestPendingWork(_ work: any LoopPendingWork) {
        pendingWork.append(work)
    }

    /// The state of type `Value` that a protocol layer keeps once for this loop, created by
    /// `create` on first use and kept until the loop ends. Loop thread only.
    ///
    /// - Parameters:
    ///   - type: The state's type, its key.
    ///   - create: Makes the state the first time it is asked for.
    /// - Returns: This loop's instance.
    package func loopLocal<Value: AnyObject>(_ type: Value.Type, create: () -> Value) -> Value {
        let key = ObjectIdentifier(type)
        if let existing = loopLocals[key] as? Value { return existing }
        let value = create()
        loopLocals[key] = value
        return value
    }

    /// Tells the turn observers that the turn (or its timers and work) is over.
    private func endTurn() {
        var index = 0
        while index < turnObservers.count {
            turnObservers[index].loopTurnEnded()
            index += 1
        }
    }

    /// The number of registered descriptors (connections and listeners). Loop thread only.
    var registeredCount: Int { handlers.count }

    /// Runs `action` on the loop thread after `delay`. Loop thread only.
    ///
    /// - Returns: A handle for ``cancel(_:)``.
    @discardableResult
    package func schedule(after delay: Duration, _ action: @escaping () -> Void) -> TimerHandle {
        timers.schedule(at: MonotonicTime.now() &+ delay.nanoseconds, action)
    }

    /// Cancels a timer that has not run yet. Loop thread only.
    package func cancel(_ handle: TimerHandle) {
        timers.cancel(handle)
    }

    private func run() {
        // Wait until `start()` has published the thread id, so `isInLoopThread` is true from the first event.
        while loopThread.withLock({ $0 == nil }) && !inbox.withLock({ $0.isStopRequested }) { sched_yield() }
        loopThreadID.store(Self.currentThreadID, ordering: .releasing)
        while true {
            var timeout: Int32 = -1
            if let deadline = timers.nextDeadline() {
                let now = MonotonicTime.now()
                // Round up so a timer never fires early; cap so a far deadline fits in Int32 milliseconds.
                timeout = deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
            }
            if !pendingWork.isEmpty || inbox.withLock({ !$0.work.isEmpty || $0.isStopRequested }) { timeout = 0 }
            do {
                try poller.wait(timeoutMilliseconds: timeout, into: &events)
            } catch {
                // epoll_wait fails only on programming errors (EBADF, EINVAL); nothing sane to do but stop.
                break
            }
            for event in events {
                handlers[event.descriptor]?.handle(event)
            }
            endTurn()  // here, so that timers and work below see the replies sent
            for action in timers.popDue(now: MonotonicTime.now()) { action() }
            let (work, isStopRequested) = inbox.withLock { inbox in
                defer { inbox.work.removeAll(keepingCapacity: true) }
                return (inbox.work, inbox.isStopRequested)
            }
            for item in work { item() }
            if !pendingWork.isEmpty {
                swap(&pendingWork, &runningWork)
                for item in runningWork { item.continuePendingWork() }
                runningWork.removeAll(keepingCapacity: true)
            }
            endTurn()  // replies made by a timer, work item or pending work
            while !flushQueue.isEmpty {
                let channels = flushQueue
                flushQueue.removeAll(keepingCapacity: true)
                for channel in channels { channel.flushRequested() }
            }
            if isStopRequested { break }
        }
        // Run what was handed over before the stop, then refuse more (so `runAndWait` never hangs).
        while true {
            let work = inbox.withLock { inbox in
                defer { inbox.work.removeAll() }
                if inbox.work.isEmpty { inbox.isFinished = true }
                return inbox.work
            }
            if work.isEmpty { break }
            for item in work { item() }
        }
        for channel in flushQueue { channel.flushRequested() }
        flushQueue = []
        loopThreadID.store(0, ordering: .releasing)
        for descriptor in Array(handlers.keys) { deregister(descriptor) }
        timers = TimerQueue()
        turnObservers = []
        pendingWork = []
        loopLocals = [:]
    }
}

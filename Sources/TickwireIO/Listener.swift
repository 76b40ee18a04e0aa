import TickwireFoundation

/// A listening TCP socket registered on an ``EventLoop``: accepts every pending connection when readable.
///
/// When `accept(2)` fails for want of descriptors or memory (`EMFILE`, `ENFILE`, `ENOBUFS`,
/// `ENOMEM`), the pending connection stays in the backlog and level-triggered readiness would
/// report it again at once: the listener stops watching its socket, waits on the loop's timer
/// (``RetryPolicy``, backing off while the failures go on) and watches it again. Should
/// watching it again fail (`epoll_ctl`), it retries on the same backoff; past
/// ``RetryPolicy/registrationAttemptLimit`` failures in a row it gives up, logs at `critical`
/// and reports ``ListenerEvent/failed(_:)`` to its owner, which must make it seen. Every
/// failure is logged to the listener's ``LogSink`` and reported to its owner to count.
///
/// Not thread-safe: it belongs to its loop thread.
package final class Listener: EventLoopHandler {
    /// How a listener waits and retries after a failure.
    package struct RetryPolicy: Sendable {
        /// The pause after the first failure; each further failure in a row doubles it.
        package var initialDelay: Duration
        /// The longest pause.
        package var maximumDelay: Duration
        /// Failures in a row to watch the socket again after which the listener gives up.
        package var registrationAttemptLimit: Int

        /// Creates a policy.
        package init(initialDelay: Duration, maximumDelay: Duration, registrationAttemptLimit: Int) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.registrationAttemptLimit = registrationAttemptLimit
        }

        /// 100 ms doubling up to 5 s; gives up after 8 failed registrations in a row (about 17 s).
        package static let standard = RetryPolicy(
            initialDelay: Listener.acceptRetryDelay, maximumDelay: Listener.maximumRetryDelay,
            registrationAttemptLimit: Listener.registrationAttemptLimit)

        /// The pause after `failures` failures in a row (at least 1).
        package func delay(afterFailures failures: Int) -> Duration {
            var delay = initialDelay
            for _ in 1..<max(failures, 1) {
                delay = delay * 2
                if delay >= maximumDelay { return maximumDelay }
            }
            return min(delay, maximumDelay)
        }
    }

    /// How long accepting first pauses after `accept` fails for lack of descriptors or memory.
    package static let acceptRetryDelay: Duration = .milliseconds(100)
    /// The longest pause between retries, however long the failures go on.
    package static let maximumRetryDelay: Duration = .seconds(5)
    /// Failures in a row to watch the socket again (`epoll_ctl`) after which the listener stops for good.
    package static let registrationAttemptLimit = 8

    private let socket: Socket
    private let loop: EventLoop
    private let logSink: LogSink
    /// The address actually bound (with the kernel's port when port 0 was asked for).
    package let address: SocketAddress
    /// Called on the loop thread for each accepted socket.
    var onAccept: (Socket, SocketAddress?) -> Void
    /// Told, on the loop thread, of every failure and of every pause and resumption, to count.
    var onEvent: (ListenerEvent) -> Void
    /// How the listener waits and retries; tests shorten it.
    package var retryPolicy = RetryPolicy.standard
    /// The `accept(2)` call: a seam that tests replace with a fake that fails.
    package var acceptConnection: (Socket) throws(SystemError) -> (Socket, SocketAddress?)? = { socket throws(SystemError) in
        try socket.accept()
    }
    /// Whether the socket is watched for connections now: `false` while paused, after giving up and after ``close()``.
    package private(set) var isAccepting = true
    /// Why the listener gave up, once it has.
    package private(set) var failure: SystemError?
    private var acceptFailures = 0
    private var registrationFailures = 0
    private var retryTimer: TimerHandle?

    /// Binds, listens and registers on `loop` (call on the loop thread).
    ///
    /// - Parameters:
    ///   - address: Where to listen.
    ///   - backlog: The `listen(2)` backlog.
    ///   - loop: The loop that runs the listener.
    ///   - logSink: Where failures are logged (source `listener`).
    ///   - onEvent: Told of every failure, pause and resumption (loop thread).
    ///   - onAccept: Receives each accepted socket (loop thread).
    /// - Throws: ``SystemError`` from `socket`, `bind`, `listen`, `getsockname` or `epoll_ctl`.
    package init(
        address: SocketAddress, backlog: Int32 = 511, loop: EventLoop, logSink: LogSink = .disabled,
        onEvent: @escaping (ListenerEvent) -> Void = { _ in }, onAccept: @escaping (Socket, SocketAddress?) -> Void
    ) throws(SystemError) {
        socket = try Socket(family: address.family)
        try socket.bind(to: address)
        try socket.listen(backlog: backlog)
        self.address = try socket.localAddress()
        self.loop = loop
        self.logSink = logSink
        self.onEvent = onEvent
        self.onAccept = onAccept
        try loop.register(socket.descriptor, interest: .read, handler: self)
    }

    func handle(_ event: PollEvent) {
        // Bounded per wake-up so one busy listener cannot starve the connections on the same loop.
        for _ in 0..<64 {
            guard socket.descriptor >= 0, isAccepting else { return }
            let accepted: Socket
            let peer: SocketAddress?
            do {
                guard let connection = try acceptConnection(socket) else { return }
                (accepted, peer) = connection
            } catch {
                acceptFailed(error)
                return
            }
            acceptFailures = 0
            do {
                try accepted.setNoDelay()
            } catch {
                // The connection works without it, only with Nagle's delays: worth a debug line, no more.
                logSink.log(.debug, "could not turn off Nagle's algorithm", metadata: ["error": "\(error)"], source: "listener")
            }
            onAccept(accepted, peer)
        }
    }

    /// `accept(2)` failed (`EMFILE`, `ENFILE` and the like): the connection stays in the
    /// backlog; stop watching for a while rather than spin on the readiness it keeps reporting.
    private func acceptFailed(_ error: SystemError) {
        acceptFailures += 1
        let delay = retryPolicy.delay(afterFailures: acceptFailures)
        logSink.log(
            .warning, "accept failed; pausing accepting",
            metadata: [
                "address": "\(address)", "error": "\(error)", "failures_in_a_row": "\(acceptFailures)", "retry_in": "\(delay)",
            ], source: "listener")
        onEvent(.acceptFailed(error, retryDelay: delay))
        // Removing a registration cannot fail (only adding one can), so a pause never spins.
        loop.deregister(socket.descriptor)
        setAccepting(false)
        scheduleResume(after: delay)
    }

    private func scheduleResume(after delay: Duration) {
        retryTimer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            self.resume()
        }
    }

    /// Watches the socket again; on failure retries on the backoff, and past the limit gives up.
    private func resume() {
        guard socket.descriptor >= 0, failure == nil else { return }
        do {
            try loop.register(socket.descriptor, interest: .read, handler: self)
        } catch {
            registrationFailures += 1
            onEvent(.registrationFailed(error, attempt: registrationFailures))
            guard registrationFailures < retryPolicy.registrationAttemptLimit else {
                failure = error
                logSink.log(
                    .critical, "cannot watch the listening socket again; no longer accepting connections",
                    metadata: [
                        "address": "\(address)", "error": "\(error)", "attempts": "\(registrationFailures)",
                        "limit": "\(retryPolicy.registrationAttemptLimit)",
                    ], source: "listener")
                onEvent(.failed(error))
                return
            }
            let delay = retryPolicy.delay(afterFailures: registrationFailures)
            logSink.log(
                .warning, "cannot watch the listening socket again; retrying",
                metadata: [
                    "address": "\(address)", "error": "\(error)", "attempt": "\(registrationFailures)",
                    "limit": "\(retryPolicy.registrationAttemptLimit)", "retry_in": "\(delay)",
                ], source: "listener")
            scheduleResume(after: delay)
            return
        }
        if registrationFailures > 0 {
            logSink.log(
                .notice, "accepting again after failed registrations",
                metadata: ["address": "\(address)", "failed_attempts": "\(registrationFailures)"], source: "listener")
        }
        registrationFailures = 0
        setAccepting(true)
    }

    private func setAccepting(_ value: Bool) {
        guard isAccepting != value else { return }
        isAccepting = value
        onEvent(.acceptingChanged(value))
    }

    /// Stops listening and closes the socket (loop thread only).
    package func close() {
        guard socket.descriptor >= 0 else { return }
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = nil
        loop.deregister(socket.descriptor)
        socket.close()
        setAccepting(false)
    }
}

/// What a ``Listener`` tells its owner, on the loop thread: failures to count, and whether it accepts.
package enum ListenerEvent: Sendable {
    /// `accept(2)` failed; accepting pauses for `retryDelay`.
    case acceptFailed(SystemError, retryDelay: Duration)
    /// Watching the socket again after a pause failed, for the `attempt`-th time in a row.
    case registrationFailed(SystemError, attempt: Int)
    /// The listener gave up after ``Listener/RetryPolicy/registrationAttemptLimit`` failed
    /// registrations: it accepts no more connections. The owner must make this seen.
    case failed(SystemError)
    /// Accepting paused (`false`) or resumed (`true`).
    case acceptingChanged(Bool)
}

@available(*, unavailable)
extension Listener: Sendable {}

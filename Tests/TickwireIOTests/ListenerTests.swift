import Synchronization
import Testing
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fake poller: the real one underneath, except that the next `failingAdds` registrations
/// (`add`, what a paused listener calls to watch its socket again) fail with `ENOMEM`.
/// Thread-safe counters: the test reads them from its own thread.
final class FakeFailingPoller: ReadinessPoller, @unchecked Sendable {
    // Thread safety: `base` is used on the loop thread only (as any poller); the counters are in a `Mutex`.
    private let base: any ReadinessPoller
    private let counts = Mutex((failingAdds: 0, adds: 0, failedAdds: 0))

    init() throws {
        base = try Poller()
    }

    /// Makes the next `count` calls to `add` fail.
    func failNextAdds(_ count: Int) { counts.withLock { $0.failingAdds = count } }

    /// Calls to `add` so far, and how many of them failed.
    var addCalls: (all: Int, failed: Int) { counts.withLock { ($0.adds, $0.failedAdds) } }

    func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        let fails = counts.withLock { counts -> Bool in
            counts.adds += 1
            guard counts.failingAdds > 0 else { return false }
            counts.failingAdds -= 1
            counts.failedAdds += 1
            return true
        }
        if fails { throw SystemError(call: "epoll_ctl", code: ENOMEM) }
        try base.add(descriptor, interest: interest)
    }

    func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError) { try base.modify(descriptor, interest: interest) }
    func remove(_ descriptor: Int32) { base.remove(descriptor) }
    func wake() { base.wake() }
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError) {
        try base.wait(timeoutMilliseconds: timeoutMilliseconds, into: &events)
    }
}

/// Collects what a sink and a listener report, from the loop thread, for the test thread.
final class ListenerRecorder: Sendable {
    let records = Mutex<[LogRecord]>([])
    let events = Mutex<[String]>([])
    let accepted = TestSignal()
    let failed = TestSignal()

    var sink: LogSink {
        LogSink(minimumLevel: .trace) { [self] record in self.records.withLock { $0.append(record) } }
    }

    func levels(from source: String) -> [LogLevel] {
        records.withLock { $0.filter { $0.source == source }.map(\.level) }
    }
}

@Suite("Listener")
struct ListenerTests {
    /// Starts a loop over a fake poller and a listener on 127.0.0.1 whose `accept` fails with
    /// `EMFILE` the first `acceptFailures` times, with a 1 ms backoff and `attemptLimit`.
    private static func start(
        acceptFailures: Int, attemptLimit: Int, poller: FakeFailingPoller, recorder: ListenerRecorder
    ) throws -> (EventLoop, LoopBound<Listener?>, SocketAddress) {
        let loop = EventLoop(poller: poller)
        try loop.start()
        let box = LoopBound<Listener?>(nil)
        let sink = recorder.sink
        let created = loop.runAndWait { () -> Result<SocketAddress, SystemError> in
            Result { () throws(SystemError) -> SocketAddress in
                var remaining = acceptFailures
                let listener = try Listener(
                    address: SocketAddress(numericHost: "127.0.0.1", port: 0)!, loop: loop, logSink: sink,
                    onEvent: { event in
                        recorder.events.withLock { $0.append("\(event)") }
                        if case .failed = event { recorder.failed.signal() }
                    },
                    onAccept: { _, _ in recorder.accepted.signal() })
                listener.retryPolicy = Listener.RetryPolicy(
                    initialDelay: .milliseconds(1), maximumDelay: .milliseconds(8), registrationAttemptLimit: attemptLimit)
                listener.acceptConnection = { socket throws(SystemError) in
                    if remaining > 0 {
                        remaining -= 1
                        throw SystemError(call: "accept", code: EMFILE)  // the fake failure
                    }
                    return try socket.accept()
                }
                box.value = listener
                return listener.address
            }
        }
        let address = try #require(created, "the loop ran the set-up").get()
        return (loop, box, address)
    }

    @Test("after accept fails with EMFILE and two registrations fail, the listener retries, accepts again and logs each step")
    func recoversAfterInjectedFailures() throws {
        let poller = try FakeFailingPoller()
        let recorder = ListenerRecorder()
        let (loop, box, address) = try Self.start(acceptFailures: 1, attemptLimit: 5, poller: poller, recorder: recorder)
        defer {
            loop.runAndWait { box.value?.close() }
            loop.stop()
        }
        poller.failNextAdds(2)
        let client = try Socket(family: address.family)
        _ = try client.connect(to: address)
        #expect(
            recorder.accepted.wait(seconds: 10),
            "the connection waiting in the backlog is accepted once the listener watches its socket again")
        #expect(poller.addCalls.failed == 2, "both injected registration failures were met")
        #expect(
            recorder.levels(from: "listener") == [.warning, .warning, .warning, .notice],
            "one warning for the accept failure, one per failed registration, a notice on resuming: \(recorder.records.withLock { $0 })")
        let events = recorder.events.withLock { $0 }
        #expect(events.first?.hasPrefix("acceptFailed") == true, "the owner hears of the accept failure first: \(events)")
        #expect(events.filter { $0.hasPrefix("registrationFailed") }.count == 2, "and of both failed registrations: \(events)")
        #expect(events.last == "acceptingChanged(true)", "and last that the listener accepts again: \(events)")
        #expect(loop.runAndWait { box.value?.isAccepting ?? false } == true, "the listener says it accepts")
    }

    @Test("past its limit of failed registrations the listener gives up: a critical record, a failed event, no more retries")
    func failsLoudlyPastTheLimit() throws {
        let poller = try FakeFailingPoller()
        let recorder = ListenerRecorder()
        let (loop, box, address) = try Self.start(acceptFailures: 1, attemptLimit: 3, poller: poller, recorder: recorder)
        defer {
            loop.runAndWait { box.value?.close() }
            loop.stop()
        }
        poller.failNextAdds(1_000)
        let client = try Socket(family: address.family)
        _ = try client.connect(to: address)
        #expect(recorder.failed.wait(seconds: 10), "the listener reports that it gave up")
        let state = loop.runAndWait { (box.value?.isAccepting, box.value?.failure?.code) }
        #expect(state?.0 == false, "a listener that gave up does not say it accepts")
        #expect(state?.1 == ENOMEM, "it keeps the error it gave up on")
        #expect(poller.addCalls.failed == 3, "exactly the limit of registrations was tried before giving up")
        // A timer well past the longest retry delay (8 ms): no retry may have run by the time it fires.
        let later = TestSignal()
        loop.execute { loop.schedule(after: .milliseconds(50)) { later.signal() } }
        #expect(later.wait(seconds: 10), "the loop ran its timer")
        #expect(poller.addCalls.all == 4, "no registration was tried after giving up (1 at start, 3 retries)")
        let levels = recorder.levels(from: "listener")
        #expect(levels.last == .critical, "giving up is logged at critical: \(recorder.records.withLock { $0 })")
        #expect(levels.filter { $0 == .warning }.count == 3, "the accept failure and the first two failed registrations are warnings")
        let critical = try #require(recorder.records.withLock { $0.last })
        #expect(critical.metadata["limit"] == "3" && critical.metadata["attempts"] == "3", "the record names the limit it reached")
        #expect(recorder.accepted.wait(seconds: 0) == false, "nothing was accepted")
    }

    @Test("the retry delay doubles from its first value and stops at its maximum")
    func backoff() {
        let policy = Listener.RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(5), registrationAttemptLimit: 8)
        let delays = (1...8).map { policy.delay(afterFailures: $0) }
        #expect(
            delays == [100, 200, 400, 800, 1600, 3200, 5000, 5000].map { Duration.milliseconds($0) },
            "100 ms doubling, held at 5 s: \(delays)")
        #expect(Listener.RetryPolicy.standard.registrationAttemptLimit == Listener.registrationAttemptLimit)
    }
}

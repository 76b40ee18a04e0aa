import Synchronization
import Testing
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fake poller for the server's loop: the real one underneath, except that the next
/// `failingAdds` registrations fail with `ENOMEM` (what a paused listener meets when it
/// watches its socket again).
final class FakeFailingServerPoller: ReadinessPoller, @unchecked Sendable {
    // Thread safety: `base` is used on the loop thread only (as any poller); the count is in a `Mutex`.
    private let base: any ReadinessPoller
    private let failingAdds = Mutex(0)

    init() throws { base = try Poller() }

    func failNextAdds(_ count: Int) { failingAdds.withLock { $0 = count } }

    func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        let fails = failingAdds.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
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

/// Keeps the records a server logs, and signals the first one that matches.
final class ServerLogRecorder: Sendable {
    let records = Mutex<[LogRecord]>([])
    let matched = TestSignal()
    private let match: @Sendable (LogRecord) -> Bool

    init(signalling match: @escaping @Sendable (LogRecord) -> Bool) { self.match = match }

    var sink: LogSink {
        LogSink(minimumLevel: .trace) { [self] record in
            self.records.withLock { $0.append(record) }
            if self.match(record) { self.matched.signal() }
        }
    }

    var all: [LogRecord] { records.withLock { $0 } }
}

@Suite("WebSocket server logging")
struct WebSocketServerLoggingTests {
    static func metricsText(_ statistics: WebSocketServerStatistics) -> String {
        var writer = PrometheusWriter()
        statistics.writeMetrics(to: &writer)
        return writer.text
    }

    @Test("a listener that gives up shows in the server's state, its statistics and the Prometheus text, and is logged critical")
    func listenerFailureIsSeen() throws {
        let poller = try FakeFailingServerPoller()
        let loop = EventLoop(poller: poller)
        try loop.start()
        defer { loop.stop() }
        let recorder = ServerLogRecorder { $0.source == "websocket-server" && $0.level == .critical }
        var configuration = WebSocketServerConfiguration()
        configuration.logSink = recorder.sink
        let server = try WebSocketServer(configuration: configuration, loop: loop) { _ in }
        let address = try server.start()
        defer { server.shutdown(timeout: .seconds(1)) }
        #expect(server.statistics.isListenerAccepting, "a started server accepts")
        #expect(Self.metricsText(server.statistics).contains("tickwire_websocket_listener_accepting 1\n"))

        // The fake failures: accept fails once with EMFILE, then every registration fails.
        loop.runAndWait { [core = server.core] in
            guard let listener = core.value?.listener else { return }
            listener.retryPolicy = Listener.RetryPolicy(
                initialDelay: .milliseconds(1), maximumDelay: .milliseconds(4), registrationAttemptLimit: 2)
            var failAccept = true
            listener.acceptConnection = { socket throws(SystemError) in
                if failAccept {
                    failAccept = false
                    throw SystemError(call: "accept", code: EMFILE)
                }
                return try socket.accept()
            }
        }
        poller.failNextAdds(1_000)
        let client = try Socket(family: address.family)
        _ = try client.connect(to: address)

        #expect(recorder.matched.wait(seconds: 10), "the server logs at critical that it accepts no more: \(recorder.all)")
        #expect(server.listenerFailure?.code == ENOMEM, "the server keeps the error its listener gave up on")
        let statistics = server.statistics
        #expect(!statistics.isListenerAccepting, "a listener that gave up does not accept")
        #expect(statistics.acceptErrors == 1, "the one injected accept failure is counted")
        #expect(statistics.listenerRegistrationFailures == 2, "both failed registrations (the limit) are counted")
        let text = Self.metricsText(statistics)
        for line in [
            "tickwire_websocket_listener_accepting 0", "tickwire_websocket_accept_errors_total 1",
            "tickwire_websocket_listener_registration_failures_total 2", "tickwire_websocket_connection_setup_failures_total 0",
        ] {
            #expect(text.contains(line + "\n"), "the scrape shows '\(line)':\n\(text)")
        }
        let listenerLevels = recorder.all.filter { $0.source == "listener" }.map(\.level)
        #expect(listenerLevels == [.warning, .warning, .critical], "accept failure, one retry, then giving up: \(recorder.all)")
    }

    @Test("connections refused at the per-address limit are all counted; the 1st, 2nd and 4th are logged at notice")
    func refusalIsLogged() throws {
        let recorder = ServerLogRecorder { $0.source == "websocket-server" && $0.level == .notice }
        var configuration = WebSocketServerConfiguration()
        configuration.maximumConnectionsPerAddress = 0
        configuration.logSink = recorder.sink
        let server = try WebSocketServer(configuration: configuration) { _ in }
        let address = try server.start()
        defer { server.shutdown(timeout: .seconds(1)) }
        var clients: [Socket] = []
        for _ in 0..<4 {
            let client = try Socket(family: address.family)
            _ = try client.connect(to: address)
            clients.append(client)
        }
        for logged in 1...3 {
            #expect(recorder.matched.wait(seconds: 10), "refusal record \(logged) of 3 arrives: \(recorder.all)")
        }
        let records = recorder.all.filter { $0.level == .notice }
        #expect(records.map { $0.metadata["refused_so_far"] } == ["1", "2", "4"], "the 1st, 2nd and 4th refusals are logged: \(records)")
        let record = try #require(records.first)
        #expect(record.metadata["status"] == "429", "a 429 refusal: \(record)")
        #expect(
            record.message.contains("too many connections from one address (maximumConnectionsPerAddress 0)"),
            "the record names the limit and its value: \(record)")
        #expect(server.statistics.refusedPerAddressConnections == 4, "every refusal is counted")
    }
}

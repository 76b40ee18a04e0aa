import Synchronization
import Testing
import TickwireFoundation
import TickwireSim
import TickwireSimTestSupport
import TickwireWebSocket
import TickwireWebSocketTransport

/// An upgrade the server refuses with 401 or 403 (a token checked in `shouldAccept`) reaches a
/// ``ReconnectingSession`` as a final refusal with the status and the server's words, after one
/// attempt, over a real loopback WebSocket.
@Suite("Upgrade refusals")
struct UpgradeRefusalTests {
    /// Keeps the records a server logs.
    final class LogRecorder: Sendable {
        let records = Mutex<[LogRecord]>([])
        var sink: LogSink { LogSink(minimumLevel: .trace) { [self] record in self.records.withLock { $0.append(record) } } }
        var all: [LogRecord] { records.withLock { $0 } }
    }

    @Test("an upgrade refused with 401 or 403 stops the client after one attempt, with the status and the reason", arguments: [401, 403])
    func finalRefusal(status: Int) throws {
        let log = LogRecorder()
        var socket = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        socket.logSink = log.sink
        socket.shouldAccept = { request in
            request.header("Authorization") == "Bearer good" ? .accept : .reject(status: status, reason: "the token expired")
        }
        let server = try WebSocketTransportServer(configuration: socket)
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let clock = MonotonicClock()
        let host = Host(game: DotsGame(orbCount: 1), listener: server, clock: clock)
        let url = try WebSocketURL("ws://127.0.0.1:\(port)/")
        let opened = Mutex(0)
        let client = ReconnectingSession(
            game: DotsGame(orbCount: 1), clock: clock, policy: ReconnectPolicy(baseDelay: .milliseconds(10), jitter: 0)
        ) {
            opened.withLock { $0 += 1 }
            return try WebSocketClientTransportConnection(url: url)
        }
        defer { client.leave() }
        // A bound for a broken build, not a timing: the refusal comes back within milliseconds.
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline, !client.state.isFinal {
            host.advance()
            client.tick(input: nil)
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        guard case .refusedConnection(let refusal) = client.state else {
            Issue.record(
                "the client should stop, refused at the upgrade, not be \(client.state) (last failure: \(client.lastFailure ?? "none"))")
            return
        }
        #expect(refusal.status == status)
        #expect(refusal.text == "the token expired", "the server's words reach the client: \(refusal)")
        #expect(!refusal.reason.isEmpty, "the status line's reason phrase is kept: \(refusal)")
        // Final: the ticks after it open nothing, and none before it retried (one attempt in all).
        for _ in 0..<10 {
            host.advance()
            client.tick(input: nil)
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        #expect(opened.withLock { $0 } == 1, "exactly one attempt")
        #expect(client.failedAttempts == 0)
        let refusals = log.all.filter { $0.message == "refused a handshake: the token expired" }
        #expect(refusals.count == 1, "the server logs the refusal once: \(log.all)")
        #expect(refusals.first?.level == .info && refusals.first?.metadata["status"] == "\(status)")
    }
}

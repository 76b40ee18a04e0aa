import Synchronization
import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

@Suite("WebSocket client logging")
struct WebSocketClientLoggingTests {
    @Test("a client that cannot connect logs each failed attempt at warning, then giving up at error")
    func failedAttemptsAreLogged() throws {
        // A port nobody listens on: bind one, read it, close it.
        let probe = try TCPEchoServer()
        let port = try probe.start().port
        probe.stop()
        let recorder = ServerLogRecorder { $0.source == "websocket-client" && $0.level == .error }
        var configuration = WebSocketClientConfiguration()
        configuration.reconnect = ReconnectPolicy(baseDelay: .milliseconds(1), maximumDelay: .milliseconds(2), maximumAttempts: 3)
        configuration.jitterSeed = 1
        configuration.logSink = recorder.sink
        let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(port)/"), configuration: configuration) { _ in }
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.matched.wait(seconds: 10), "giving up is logged at error: \(recorder.all)")
        let records = recorder.all.filter { $0.source == "websocket-client" }
        #expect(records.dropLast().allSatisfy { $0.level == .warning } && records.count >= 2, "failed attempts are warnings: \(records)")
        let last = try #require(records.last)
        #expect(last.message.contains("out of reconnection attempts"), "the last record says why it stopped: \(last)")
        #expect(last.metadata["reason"]?.contains("refused") == true, "and what failed: \(last)")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation
import TickwireWebSocket

@Suite("WebSocket URL")
struct WebSocketURLTests {
    @Test(
        "parses host, port, path and query",
        arguments: [
            ("ws://127.0.0.1:9000/game?room=1", "127.0.0.1", 9000, "/game", "room=1" as String?),
            ("ws://example.com", "example.com", 80, "/", nil),
            ("ws://[::1]:8080/a/b", "::1", 8080, "/a/b", nil),
            ("WS://localhost:1?x", "localhost", 1, "/", "x"),
            ("ws://user@host:2/p#frag", "host", 2, "/p", nil),
        ])
    func parses(text: String, host: String, port: Int, path: String, query: String?) throws {
        let url = try WebSocketURL(text)
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.path == path)
        #expect(url.query == query)
    }

    @Test("builds the request target and Host header")
    func requestParts() throws {
        let url = try WebSocketURL("ws://[::1]:8080/game?room=2")
        #expect(url.requestTarget == "/game?room=2")
        #expect(url.hostHeader == "[::1]:8080")
        #expect(try WebSocketURL("ws://h/").hostHeader == "h", "the default port is left out of Host")
    }

    @Test("wss:// is secure, with port 443 by default and the scheme kept in its description")
    func secure() throws {
        let url = try WebSocketURL("wss://example.com/game?room=1")
        #expect(url.isSecure && url.port == 443 && url.hostHeader == "example.com")
        #expect(url.description == "wss://example.com/game?room=1")
        let other = try WebSocketURL("WSS://127.0.0.1:9443/")
        #expect(other.isSecure && other.port == 9443 && other.hostHeader == "127.0.0.1:9443")
        #expect(try !WebSocketURL("ws://h:443/").isSecure && WebSocketURL("ws://h:443/").hostHeader == "h:443")
    }

    @Test(
        "refuses what it cannot connect to",
        arguments: [
            "wss://", "http://example.com", "ws://", "ws://:80/", "ws://h:0", "ws://h:65536",
            "ws://h:port", "ws://[::1/x", "ws://h/a b",
        ])
    func refuses(text: String) {
        #expect(throws: WebSocketURL.ParseError.self, "'\(text)' should be refused") { try WebSocketURL(text) }
    }
}

@Suite("Reconnect policy")
struct ReconnectPolicyTests {
    @Test("delays double from the base up to the cap")
    func doubling() {
        let policy = ReconnectPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(30), jitter: 0)
        let delays = (1...8).map { policy.delay(forAttempt: $0, unitRandom: 0.5) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
        #expect(policy.delay(forAttempt: 10_000, unitRandom: 0) == .seconds(30), "huge attempt numbers must not overflow")
    }

    @Test("jitter keeps every delay within [ceiling × (1 − jitter), ceiling]")
    func jitterBounds() {
        let policy = ReconnectPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(2), jitter: 0.5)
        var random = SplitMix64(seed: 42)
        for attempt in 1...20 {
            let ceiling = min(Duration.milliseconds(100) * (1 << min(attempt - 1, 20)), .seconds(2))
            let delay = policy.delay(forAttempt: attempt, unitRandom: Double.random(in: 0..<1, using: &random))
            #expect(delay <= ceiling && delay >= ceiling / 2, "attempt \(attempt): \(delay) outside [\(ceiling / 2), \(ceiling)]")
        }
    }
}

import Synchronization
import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

@Suite("Metrics registry and GET /metrics")
struct MetricsRegistryTests {
    struct FixedSource: MetricsSource {
        let name: String
        func writeMetrics(to writer: inout PrometheusWriter) { writer.gauge(name, help: "Fixed.", value: 1) }
    }

    @Test("sources render in the order they were registered, a closure's and a published value's alike")
    func order() {
        let registry = MetricsRegistry()
        registry.register(FixedSource(name: "first"))
        registry.register { writer in writer.counter("second_total", help: "Second.", value: 2) }
        let published = PublishedMetrics(FixedSource(name: "third"))
        registry.register(published)
        let text = registry.render().text
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["first 1", "second_total 2", "third 1"])
        published.publish(FixedSource(name: "fourth"))
        #expect(registry.render().text.contains("fourth 1"), "a scrape reads the latest publication")
    }

    @Test("/metrics (with any query) answers 200 in format 0.0.4; other methods 405; other paths nil")
    func responses() throws {
        let registry = MetricsRegistry()
        registry.register(FixedSource(name: "up"))
        let response = try #require(registry.response(to: HTTPRequestHead(target: "/metrics?name[]=up")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "# HELP up Fixed.\n# TYPE up gauge\nup 1\n")
        #expect(registry.response(to: HTTPRequestHead(method: "HEAD", target: "/metrics"))?.status == 200)
        let post = try #require(registry.response(to: HTTPRequestHead(method: "POST", target: "/metrics")))
        #expect(post.status == 405 && post.headers["Allow"] == "GET, HEAD")
        #expect(registry.response(to: HTTPRequestHead(target: "/")) == nil)
        #expect(registry.response(to: HTTPRequestHead(target: "/metrics/x")) == nil)
        #expect(registry.response(to: HTTPRequestHead(target: "/metricsx")) == nil)
    }

    @Test("the handler passes other paths to the site behind it, or answers 404 without one")
    func handler() {
        let registry = MetricsRegistry()
        let site: @Sendable (HTTPRequestHead) -> HTTPResponse = { .text(status: 200, "page \($0.target)") }
        #expect(registry.httpHandler(otherwise: site)(HTTPRequestHead(target: "/index.html")).body == Array("page /index.html\n".utf8))
        #expect(
            registry.httpHandler(otherwise: site)(HTTPRequestHead(target: "/metrics")).headers["Content-Type"]
                == PrometheusWriter.contentType)
        #expect(registry.httpHandler(otherwise: nil)(HTTPRequestHead(target: "/")).status == 404)
    }

    /// GETs /metrics on 127.0.0.1:`port` with a raw socket; the status line and the body.
    private func scrape(port: Int) throws -> (status: String, headers: String, body: String) {
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        defer { client.close() }
        try client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let text = String(decoding: try client.receiveUntilClosed(limit: 1 << 20), as: UTF8.self)
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        let head = parts.first.map(String.init) ?? ""
        return (head.split(separator: "\r\n").first.map(String.init) ?? "", head, parts.count > 1 ? String(parts[1]) : "")
    }

    /// The value of the sample line that starts with `prefix` (name and labels), or `nil`.
    private func value(_ prefix: String, in body: String) -> Int? {
        for line in body.split(separator: "\n") where line.hasPrefix(prefix + " ") {
            return Int(line.dropFirst(prefix.count + 1))
        }
        return nil
    }

    @Test(
        "a real server on 127.0.0.1 answers GET /metrics with its own connection counters, which change as connections open and are refused"
    )
    func realServer() throws {
        let registry = MetricsRegistry()
        var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.httpHandler = registry.httpHandler(otherwise: nil)
        configuration.maximumConnectionsPerAddress = 2
        let server = try WebSocketServer(configuration: configuration) { _ in }
        let port = try server.start().port
        defer { server.shutdown(timeout: .seconds(1)) }
        registry.register { writer in server.statistics.writeMetrics(to: &writer) }

        let first = try scrape(port: port)
        #expect(first.status == "HTTP/1.1 200 OK", "got '\(first.status)'")
        #expect(first.headers.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
        #expect(value("tickwire_websocket_connections", in: first.body) == 0)
        #expect(value("tickwire_http_requests_total", in: first.body) == 0, "the request being answered is counted once it is sent")
        #expect(first.body.contains("# TYPE tickwire_websocket_connections_refused_total counter"))

        // One WebSocket open, then a third connection from this address over the limit of 2.
        let socket = try TestSocket(port: port, timeoutSeconds: 2)
        defer { socket.close() }
        try socket.send(TestSocket.upgradeRequest())
        #expect(try socket.receiveHead().hasPrefix("HTTP/1.1 101"))
        let holder = try TestSocket(port: port, timeoutSeconds: 2)
        defer { holder.close() }
        let refused = try TestSocket(port: port, timeoutSeconds: 2)
        // Refused at once: the 429 may be lost to the reset of the close.
        let answer = (try? refused.receiveUntilClosed(limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(
            answer.isEmpty || answer.hasPrefix("HTTP/1.1 429"), "a third connection from one address is refused: '\(answer.prefix(40))'")
        holder.close()

        // The holder's slot frees once the server sees its end: scrape until it does (bounded).
        var second: (status: String, headers: String, body: String) = ("", "", "")
        for _ in 0..<200 {
            // Until the server has seen the holder go, a scrape is refused (429, or a reset).
            if let answer = try? scrape(port: port), answer.status.hasPrefix("HTTP/1.1 200") {
                second = answer
                break
            }
            _ = socket.isReadable(waitingMilliseconds: 10)
        }
        try #require(second.status == "HTTP/1.1 200 OK", "the scrape got no answer within 2 s: '\(second.status)'")
        #expect(value("tickwire_websocket_connections", in: second.body) == 1, "one WebSocket is open")
        #expect(value("tickwire_websocket_connections_opened_total", in: second.body) == 1)
        #expect((value("tickwire_websocket_connections_refused_total{reason=\"address_connection_limit\"}", in: second.body) ?? 0) >= 1)
        #expect(value("tickwire_websocket_connections_refused_total{reason=\"connection_limit\"}", in: second.body) == 0)
        #expect((value("tickwire_http_requests_total", in: second.body) ?? 0) >= 1, "the first scrape is counted")
        #expect(server.statistics.openConnections == 1)
    }
}

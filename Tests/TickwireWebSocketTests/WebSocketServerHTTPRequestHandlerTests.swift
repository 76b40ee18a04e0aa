import Testing
import TickwireIO

@testable import TickwireWebSocket

/// `WebSocketServerConfiguration.httpRequestHandler`: plain HTTP requests read with their body
/// and answered in the handler's own time.
@Suite("WebSocket server HTTP request handler (bodies, async answers)")
struct WebSocketServerHTTPRequestHandlerTests {
    /// Echoes the method, the path and the body, after a suspension (as a matchmaker asking Redis would).
    static let echo: HTTPRequestHandler = { request in
        await Task.yield()
        return .text(status: 200, "\(request.method) \(request.path) \(String(decoding: request.body, as: UTF8.self))")
    }

    private func configuration(
        handler: @escaping HTTPRequestHandler = Self.echo, maximumBody: Int = 16, timeout: Duration = .seconds(5)
    ) -> WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration()
        configuration.httpRequestHandler = handler
        configuration.maximumHTTPBodyBytes = maximumBody
        configuration.handshakeTimeout = timeout
        configuration.httpHandler = { _ in .text(status: 418, "the synchronous handler must not be asked") }
        return configuration
    }

    /// Sends `parts` (each in its own write) and reads the answer until the server closes.
    private func exchange(_ parts: [String], configuration: WebSocketServerConfiguration) throws -> String {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 8)
        defer { client.close() }
        for part in parts { try client.send(part) }
        return String(decoding: try client.receiveUntilClosed(limit: 1 << 16), as: UTF8.self)
    }

    @Test("a POST's body, at the limit, reaches the handler whole, even split over several writes")
    func bodyAtTheLimit() throws {
        let body = String(repeating: "b", count: 16)
        let whole = try exchange(
            ["POST /matchmake HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n" + body], configuration: configuration())
        #expect(whole.hasPrefix("HTTP/1.1 200 OK\r\n") && whole.hasSuffix("POST /matchmake \(body)\n"), "got '\(whole)'")
        let split = try exchange(
            ["POST /m HTTP/1.1\r\nContent-Length: 16\r\n\r\nbbbb", "bbbbbbbb", "bbbb"], configuration: configuration())
        #expect(split.hasSuffix("POST /m \(body)\n"), "the body's three writes are joined: '\(split)'")
    }

    @Test("a body one byte over maximumHTTPBodyBytes is refused with 413 naming the limit; the handler is not asked")
    func bodyOverTheLimit() throws {
        let response = try exchange(
            ["POST /m HTTP/1.1\r\nContent-Length: 17\r\n\r\n" + String(repeating: "b", count: 17)], configuration: configuration())
        #expect(response.hasPrefix("HTTP/1.1 413 "), "got '\(response.prefix(60))'")
        #expect(response.contains("at most 16") && response.contains("maximumHTTPBodyBytes"), "the limit is named: '\(response)'")
    }

    @Test("a chunked body is refused with 411, a malformed Content-Length with 400")
    func unreadableLengths() throws {
        let chunked = try exchange(
            ["POST /m HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"], configuration: configuration())
        #expect(chunked.hasPrefix("HTTP/1.1 411 "), "got '\(chunked.prefix(60))'")
        for length in ["-1", "1x", "", "1, 2", "9999999999999999999"] {
            let response = try exchange(["POST /m HTTP/1.1\r\nContent-Length: \(length)\r\n\r\n"], configuration: configuration())
            #expect(response.hasPrefix("HTTP/1.1 400 "), "Content-Length '\(length)': got '\(response.prefix(60))'")
        }
        let differing = try exchange(
            ["POST /m HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"], configuration: configuration())
        #expect(differing.hasPrefix("HTTP/1.1 400 "), "two different lengths: got '\(differing.prefix(60))'")
    }

    @Test("a GET without a body is answered at once, its query kept in the target")
    func getWithoutBody() throws {
        let response = try exchange(["GET /rooms?mode=arena HTTP/1.1\r\nHost: x\r\n\r\n"], configuration: configuration())
        #expect(response.hasSuffix("GET /rooms \n"), "got '\(response)'")
    }

    @Test("a handler that does not answer within handshakeTimeout is replaced by 503")
    func slowHandler() throws {
        let slow: HTTPRequestHandler = { _ in
            try? await Task.sleep(for: .seconds(3))  // Faked slowness: the test's point is the timeout.
            return .text(status: 200, "too late")
        }
        let response = try exchange(
            ["POST /m HTTP/1.1\r\nContent-Length: 0\r\n\r\n"], configuration: configuration(handler: slow, timeout: .milliseconds(300)))
        #expect(response.hasPrefix("HTTP/1.1 503 ") && response.contains("did not answer"), "got '\(response)'")
    }

    @Test("a body that never arrives whole gets 408 at handshakeTimeout")
    func bodyNeverArrives() throws {
        let response = try exchange(
            ["POST /m HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"], configuration: configuration(timeout: .milliseconds(300)))
        #expect(response.hasPrefix("HTTP/1.1 408 "), "got '\(response.prefix(60))'")
    }

    @Test("an upgrade still upgrades when a request handler is set")
    func upgradeStillWorks() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration(), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        defer { client.close() }
        try client.send(TestSocket.upgradeRequest())
        let head = try client.receiveHead()
        #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols"), "got '\(head.prefix(60))'")
    }
}

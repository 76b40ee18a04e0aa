import Testing
import TickwireIO

@testable import TickwireWebSocket

/// `WebSocketServerConfiguration.httpHandler`: plain HTTP requests on the WebSocket port.
@Suite("WebSocket server HTTP handler")
struct WebSocketServerHTTPHandlerTests {
    /// A handler that echoes the method and target, and counts nothing (it must be Sendable).
    static let handler: @Sendable (HTTPRequestHead) -> HTTPResponse = { request in
        guard request.target != "/missing" else { return .text(status: 404, "no such page") }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": "999", "Connection": "keep-alive"],
            body: Array("\(request.method) \(request.target)".utf8))
    }

    private func exchange(_ request: String, configuration: WebSocketServerConfiguration) throws -> (response: String, opened: Int) {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        defer { client.close() }
        try client.send(request)
        let bytes = try client.receiveUntilClosed(limit: 1 << 16)
        return (String(decoding: bytes, as: UTF8.self), recorder.all.count)
    }

    private var configuration: WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration()
        configuration.httpHandler = Self.handler
        return configuration
    }

    @Test("a GET without Upgrade goes to the handler: its status, headers and body, Content-Length set by the server, then close")
    func plainGet() throws {
        let (response, opened) = try exchange("GET /page?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", configuration: configuration)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"), "got '\(response.prefix(60))'")
        #expect(response.contains("Content-Type: text/plain; charset=utf-8\r\n"))
        #expect(response.contains("Content-Length: 13\r\n"), "the server's own length replaces the handler's 999")
        #expect(!response.contains("999") && !response.contains("keep-alive"))
        #expect(response.contains("Connection: close\r\n"))
        #expect(response.hasSuffix("\r\n\r\nGET /page?x=1"), "the body follows the head and the connection closes")
        #expect(opened == 0, "no WebSocket connection opens")
    }

    @Test("HEAD gets the head with the body's length and no body")
    func head() throws {
        let (response, _) = try exchange("HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", configuration: configuration)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Content-Length: 6\r\n"), "the length of 'HEAD /'")
        #expect(response.hasSuffix("\r\n\r\n"), "no body after the head: '\(response.suffix(20))'")
    }

    @Test("other methods and HTTP/1.0 reach the handler too; its 404 is sent as it is")
    func otherRequests() throws {
        let (post, _) = try exchange("POST /form HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", configuration: configuration)
        #expect(post.hasSuffix("POST /form"))
        let (old, _) = try exchange("GET /old HTTP/1.0\r\n\r\n", configuration: configuration)
        #expect(old.hasPrefix("HTTP/1.1 200 OK") && old.hasSuffix("GET /old"))
        let (missing, _) = try exchange("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n", configuration: configuration)
        #expect(missing.hasPrefix("HTTP/1.1 404 Not Found\r\n") && missing.hasSuffix("no such page\n"))
    }

    @Test("an upgrade request still upgrades when a handler is set")
    func upgradeStillWorks() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        defer { client.close() }
        try client.send(TestSocket.upgradeRequest())
        let head = try client.receiveHead()
        #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols"), "got '\(head.prefix(60))'")
    }

    @Test("without a handler a plain GET is refused as a failed handshake (426), as before")
    func noHandler() throws {
        let (response, opened) = try exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", configuration: WebSocketServerConfiguration())
        #expect(response.hasPrefix("HTTP/1.1 426"), "got '\(response.prefix(60))'")
        #expect(opened == 0)
    }

    @Test("a plain request head at the handshake byte limit reaches the handler; one byte over gets 431")
    func headLimit() throws {
        var configuration = configuration
        configuration.maximumHandshakeBytes = 512
        let base = "GET / HTTP/1.1\r\nX-Pad: \r\n\r\n"
        for (padding, expected) in [(512 - base.utf8.count, "HTTP/1.1 200"), (513 - base.utf8.count, "HTTP/1.1 431")] {
            let request = "GET / HTTP/1.1\r\nX-Pad: \(String(repeating: "a", count: padding))\r\n\r\n"
            let (response, _) = try exchange(request, configuration: configuration)
            #expect(response.hasPrefix(expected), "a \(request.utf8.count)-byte head should get \(expected), got '\(response.prefix(60))'")
        }
    }

    @Test("HTTPResponse: standard reason phrases, clamped status, a text body ending in a newline")
    func responseValues() {
        #expect(HTTPResponse(status: 405).reason == "Method Not Allowed")
        #expect(HTTPResponse(status: 42).status == 100)
        #expect(HTTPResponse(status: 304, reason: "Same").reason == "Same")
        let text = HTTPResponse.text(status: 404, "gone")
        #expect(text.body == Array("gone\n".utf8) && text.headers["Content-Type"] == "text/plain; charset=utf-8")
    }
}

import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

/// A client that leaves from a chosen local address (`localAddress`), and a client that hears
/// why a server refused it: status, body, and the budget and value the server named.
@Suite("WebSocket client: source address and refusals")
struct WebSocketClientSourceAddressTests {
    /// Whether the whole of 127.0.0.0/8 is local here without configuration.
    static let isLoopbackWide: Bool = {
        #if os(Linux)
        true
        #else
        false
        #endif
    }()

    static func configuration(source: String) throws -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration()
        let address: SocketAddress = try #require(SocketAddress(numericHost: source, port: 0))
        configuration.localAddress = address
        configuration.reconnect = ReconnectPolicy(isEnabled: false)
        return configuration
    }

    static func isClosed(_ seen: [Seen]) -> Bool {
        seen.contains { if case .closed = $0.clientState { true } else { false } }
    }

    @Test("a client with localAddress 127.0.0.3 reaches the server from 127.0.0.3", .enabled(if: isLoopbackWide))
    func leavesFromTheSourceAddress() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeClient(port: port, configuration: try Self.configuration(source: "127.0.0.3"), recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the client should open within 5 s")
        let opened = recorder.all.compactMap { seen -> WebSocketConnection? in
            if case .server(.opened(let connection)) = seen { return connection }
            return nil
        }
        #expect(opened.first?.remoteAddress?.host == "127.0.0.3", "the server should see the source address, not 127.0.0.1")
        #expect(client.lastHandshakeError == nil, "an open connection has no handshake failure")
    }

    @Test("a source address of another family than the server's fails the attempt and says so")
    func sourceOfAnotherFamily() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeClient(port: port, configuration: try Self.configuration(source: "::1"), recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: Self.isClosed), "the attempt should end within 5 s")
        guard case .closed(let frame) = client.state else {
            Issue.record("the client should be closed, is \(client.state)")
            return
        }
        #expect(frame.reason.contains("family"), "the reason should name the family mismatch: \(frame.reason)")
    }

    @Test(
        "past the per-address limit the client reads 429, the server's words and the budget it names; another source address opens",
        .enabled(if: isLoopbackWide))
    func refusalByTheAddressBudget() throws {
        let recorder = Recorder<Seen>()
        var serverConfiguration = WebSocketServerConfiguration()
        serverConfiguration.maximumConnectionsPerAddress = 1
        let (server, port) = try startEchoServer(serverConfiguration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let first = try makeClient(port: port, configuration: try Self.configuration(source: "127.0.0.4"), recorder: recorder)
        defer { first.shutdown() }
        first.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the first client from 127.0.0.4 should open")

        let refusedRecorder = Recorder<Seen>()
        let second = try makeClient(port: port, configuration: try Self.configuration(source: "127.0.0.4"), recorder: refusedRecorder)
        defer { second.shutdown() }
        second.connect()
        #expect(refusedRecorder.wait(seconds: 5, until: Self.isClosed), "the second client from 127.0.0.4 should be refused within 5 s")
        let refusal = try #require(second.lastHandshakeError?.refusal, "the refusal should be kept: \(second.state)")
        #expect(refusal.status == 429 && refusal.reasonPhrase == "Too Many Requests")
        #expect(refusal.budget == .addressConnectionLimit, "the server names its budget: \(refusal)")
        #expect(refusal.limit == 1, "and its value: \(refusal)")
        #expect(refusal.body == "too many connections from your address (limit 1)", "the body is the server's sentence: \(refusal.body)")
        guard case .closed(let frame) = second.state else {
            Issue.record("the refused client should be closed")
            return
        }
        #expect(
            frame.reason.contains("429") && frame.reason.contains("limit 1"), "the close reason carries status and words: \(frame.reason)")

        let otherRecorder = Recorder<Seen>()
        let other = try makeClient(port: port, configuration: try Self.configuration(source: "127.0.0.5"), recorder: otherRecorder)
        defer { other.shutdown() }
        other.connect()
        #expect(otherRecorder.wait(seconds: 5, until: isOpen), "a client from 127.0.0.5 is not limited by 127.0.0.4's connection")
    }

    @Test("a refusal's head and body become status, phrase, trimmed body, budget and limit; odd headers are read leniently")
    func refusalFromHead() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "10")
        headers.add(name: WebSocketRefusal.headerName, value: "connection_limit ; limit=500")
        let head = HTTPResponseHead(status: 503, reason: "Service Unavailable", headers: headers)
        let refusal = WebSocketRefusal(head: head, body: Array(" full now\nand more after the declared length".utf8))
        #expect(
            refusal
                == WebSocketRefusal(
                    status: 503, reasonPhrase: "Service Unavailable", body: "full now", budget: .connectionLimit, limit: 500))
        #expect(refusal.description == "503 Service Unavailable: full now")
        #expect(WebSocketRefusal.parseHeader("shutting_down").budget == .shuttingDown)
        #expect(WebSocketRefusal.parseHeader("shutting_down").limit == nil)
        #expect(WebSocketRefusal.parseHeader("x; limit=many").limit == nil, "an unreadable limit is left out")
        #expect(WebSocketRefusal.parseHeader("").budget == nil)
        #expect(WebSocketRefusal.headerValue(budget: .addressHandshakeLimit, limit: 16) == "address_handshake_limit; limit=16")
        let long = WebSocketRefusal(
            head: HTTPResponseHead(status: 429, reason: "Too Many Requests"), body: [UInt8](repeating: 65, count: 5000))
        #expect(long.body.utf8.count == WebSocketRefusal.maximumBodyBytes, "a body is kept up to its limit")
        #expect(WebSocketHandshakeError.unexpectedStatus(404, reason: "Not Found").refusal?.status == 404)
        #expect(WebSocketHandshakeError.missingHeader("Upgrade").refusal == nil, "only a status other than 101 is a refusal")
    }
}

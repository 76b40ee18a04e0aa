import Testing
import TickwireWebSocket

/// The DocC article `Sources/TickwireWebSocket/TickwireWebSocket.docc/EchoServerAndClient.md`,
/// compiled and run: the same lines, with port 0 for port 9001 and the printed message kept.
@Suite("Echo server and client article")
struct EchoArticleTests {
    @Test("the article's echo server sends the client's message back, compressed or not")
    func echo() async throws {
        var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.compression = PerMessageDeflateConfiguration()
        let server = try WebSocketServer(configuration: configuration) { event in
            if case .message(let connection, let message) = event { connection.send(message) }
        }
        let address = try server.start()

        let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(address.port)/echo"))
        try await client.open(timeout: .seconds(5))
        _ = await client.send(.text("hello"))
        var echoed: WebSocketMessage?
        for await event in client.events {
            if case .message(let message) = event { echoed = message; break }
        }
        _ = await client.close(code: .normalClosure, reason: "done", timeout: .seconds(5))
        client.shutdown()
        await server.shutdown()
        #expect(echoed == .text("hello"), "the server should echo the text message, got \(String(describing: echoed))")
    }
}

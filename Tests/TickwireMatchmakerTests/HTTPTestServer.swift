import Testing
import TickwireIO
import TickwireWebSocket

/// A real HTTP server for the client's tests: a ``WebSocketServer`` on 127.0.0.1, port 0, whose
/// plain-HTTP handler answers every request.
final class HTTPTestServer {
    let server: WebSocketServer
    let port: Int

    init(_ handler: @escaping @Sendable (HTTPRequestHead) -> HTTPResponse) throws {
        var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.httpHandler = handler
        server = try WebSocketServer(configuration: configuration) { _ in }
        port = try server.start().port
    }

    deinit { server.shutdown(timeout: .seconds(1)) }
}

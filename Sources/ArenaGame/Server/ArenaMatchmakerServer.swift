import Tickwire

/// `arena matchmaker`: the arena's matchmaker alone (``ArenaMatchmaking``), answering
/// `Protocol/MATCHMAKER.md` and `GET /metrics` on its HTTP port for a fleet whose processes run
/// the rooms. It runs no room: a WebSocket upgrade is refused with 404 and a reason.
package final class ArenaMatchmakerServer: Sendable {
    /// The service answering the matchmaker's requests.
    package let service: MatchmakerService
    /// What `GET /metrics` renders: the service's counts.
    package let metrics = MetricsRegistry()
    private let server: WebSocketServer
    /// The address the server listens on (the kernel's port for port 0).
    package let address: SocketAddress

    /// Starts listening on `host`:`port`.
    ///
    /// - Parameters:
    ///   - host: A numeric address.
    ///   - port: The port, 0 for any free one.
    ///   - matchmaking: The fleet's store and authentication.
    ///   - keyPath: The fleet's key file (``ArenaMatchmaking/existingKey(at:)``).
    ///   - tls: The certificate to answer over `https` with, or `nil` (default) for plain HTTP.
    ///   - logSink: Where the HTTP server logs.
    /// - Throws: ``SystemError`` when the key cannot be read, the secret is too short, or the
    ///   port cannot be bound.
    package init(
        host: String, port: Int, matchmaking: ArenaMatchmaking, keyPath: String, tls: TLSServerContext? = nil, logSink: LogSink = .disabled
    ) throws(SystemError) {
        service = try matchmaking.makeService(key: try ArenaMatchmaking.existingKey(at: keyPath))
        metrics.register(service)
        var configuration = WebSocketServerConfiguration(host: host, port: port)
        configuration.logSink = logSink
        configuration.tls = tls
        configuration.httpHandler = metrics.httpHandler(otherwise: nil)
        configuration.httpRequestHandler = service.handler(otherwise: configuration.httpHandler)
        configuration.shouldAccept = { _ in
            .reject(status: 404, reason: "this is a matchmaker: connect to the URL of the seat it gave you")
        }
        server = try WebSocketServer(configuration: configuration) { _ in }
        address = try server.start()
    }

    /// Stops listening and closes every connection.
    package func stop() {
        server.shutdown(timeout: .seconds(2))
    }
}

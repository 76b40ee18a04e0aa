import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO
import TickwireSimTestSupport
import TickwireWebSocket
import TickwireWebSocketTransport

@testable import TickwireSim

/// `GET /metrics` of a real host behind a real WebSocket server on 127.0.0.1.
@Suite("Metrics endpoint of a real host")
struct MetricsEndpointTests {
    @Test("GET /metrics on the game's port shows the host's rooms and clients, and the server's connections, as clients join")
    func scrapeAsClientsJoin() throws {
        let registry = MetricsRegistry()
        var socket = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        socket.httpHandler = registry.httpHandler(otherwise: nil)
        let server = try WebSocketTransportServer(configuration: socket)
        defer { server.shutdown() }
        let port = try #require(server.address?.port)
        let clock = MonotonicClock()
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.rooms = ["play"]
        let game = DotsGame(orbCount: 3)
        let host = Host(game: game, listener: server, clock: clock, configuration: configuration)
        registry.register(host.publishedMetrics)
        registry.register { writer in server.statistics.writeMetrics(to: &writer) }

        host.advance()
        let empty = try HTTPScrape.get("/metrics", port: port)
        #expect(empty.status == "HTTP/1.1 200 OK", "got '\(empty.status)'")
        #expect(empty.head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
        #expect(PrometheusText.value("tickwire_rooms", in: empty.body) == 1)
        #expect(PrometheusText.value("tickwire_clients{state=\"connected\"}", in: empty.body) == 0)
        #expect(PrometheusText.value("tickwire_websocket_connections", in: empty.body) == 0)

        let url = try WebSocketURL("ws://127.0.0.1:\(port)/play")
        var clients: [ClientSession<DotsGame>] = []
        var connections: [WebSocketClientTransportConnection] = []
        defer { for connection in connections { connection.close() } }
        for _ in 0..<3 {
            let connection = try WebSocketClientTransportConnection(url: url)
            connections.append(connection)
            var clientConfiguration = ClientConfiguration()
            clientConfiguration.room = "play"
            let client = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
            client.connect(over: connection)
            clients.append(client)
        }
        // Real time, bounded: run until every client holds a snapshot (at most 5 s).
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, !clients.allSatisfy({ $0.latestSnapshot != nil }) {
            host.advance()
            for client in clients { client.tick(input: nil) }
            clock.sleep(until: clock.now + .milliseconds(10))
        }
        try #require(clients.allSatisfy { $0.latestSnapshot != nil }, "the clients got no snapshot within 5 s")

        let full = try HTTPScrape.get("/metrics", port: port)
        #expect(PrometheusText.value("tickwire_clients{state=\"connected\"}", in: full.body) == 3)
        #expect(PrometheusText.value("tickwire_room_clients{room=\"play\",state=\"connected\"}", in: full.body) == 3)
        #expect(PrometheusText.value("tickwire_joins_total", in: full.body) == 3)
        #expect((PrometheusText.value("tickwire_snapshots_sent_total", in: full.body) ?? 0) >= 3)
        #expect((PrometheusText.value("tickwire_sent_bytes_total", in: full.body) ?? 0) > 0)
        #expect((PrometheusText.value("tickwire_tick_duration_seconds_count", in: full.body) ?? 0) >= 1)
        #expect(PrometheusText.value("tickwire_websocket_connections", in: full.body) == 3)
        #expect(PrometheusText.value("tickwire_websocket_connections_opened_total", in: full.body) == 3)
        #expect(PrometheusText.value("tickwire_http_requests_total", in: full.body) == 1, "the first scrape")

        let missing = try HTTPScrape.get("/other", port: port)
        #expect(missing.status.hasPrefix("HTTP/1.1 404"), "other paths are 404 without a site: '\(missing.status)'")
    }
}

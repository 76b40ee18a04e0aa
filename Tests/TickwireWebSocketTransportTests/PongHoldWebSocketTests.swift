import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO
import TickwireSimTestSupport
import TickwireWebSocket

@testable import TickwireSim
@testable import TickwireWebSocketTransport

@Suite("Pong hold over WebSockets")
struct PongHoldWebSocketTests {
    @Test("on loopback with a 30 Hz room, the client's measured round trip is the network's: median under 2 ms")
    func loopbackRoundTrip() throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 5)
        var hostConfiguration = HostConfiguration()
        hostConfiguration.tickRate = 30
        let host = Host(game: game, listener: server, clock: clock, configuration: hostConfiguration)
        let connection = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/"))
        defer { connection.close() }
        var configuration = ClientConfiguration()
        configuration.pingInterval = .milliseconds(40)
        let client = ClientSession(game: game, clock: clock, configuration: configuration)
        client.connect(over: connection)
        // The client ticks right after the host's tick, so each ping waits most of a tick
        // (up to 33 ms) for the next one: what the original pong put into the round trip.
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline, client.clockSync.sampleCount < 40 {
            host.advance()
            client.tick(input: nil)
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        #expect(client.status == .connected, "status \(client.status)")
        #expect(client.clockSync.sampleCount >= 16, "enough pongs for a full window, got \(client.clockSync.sampleCount)")
        let metrics = client.metrics
        #expect(metrics.roundTrip < 0.002, "median network round trip on loopback \(metrics.roundTrip * 1000) ms, want under 2 ms")
        #expect(
            metrics.serverHold > 0.002,
            "the pings did wait for the 30 Hz room's tick (median \(metrics.serverHold * 1000) ms), and that wait was left out")
        var writer = PrometheusWriter()
        host.publishedMetrics.writeMetrics(to: &writer)
        let pongs = PrometheusText.value("tickwire_pongs_sent_total", in: writer.text) ?? 0
        let held = PrometheusText.value("tickwire_ping_hold_seconds_total", in: writer.text) ?? 0
        #expect(pongs >= 16 && held > 0, "/metrics counts the pongs (\(pongs)) and the time their pings were held (\(held) s)")
    }
}

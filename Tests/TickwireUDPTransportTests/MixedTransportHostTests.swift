import Testing
import TickwireCodec
import TickwireIO
import TickwireNetcode
import TickwireSimTestSupport
import TickwireWebSocket
import TickwireWebSocketTransport

@testable import TickwireSim
@testable import TickwireUDPTransport

@Suite("One host, WebSocket and UDP")
struct MixedTransportHostTests {
    @Test("a WebSocket client and a UDP client in the same room each see the other's player")
    func webSocketAndUDPInOneRoom() throws {
        let webSocket = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { webSocket.shutdown() }
        let udp = try UDPTestServer()
        defer { udp.server.shutdown() }
        let port = try #require(webSocket.address?.port, "the WebSocket server should report its bound port")
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 3)
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.rooms = ["play"]
        let host = Host(
            game: game, listener: CombinedTransportListener([webSocket, udp.server]), clock: clock, configuration: configuration)

        let webSocketConnection = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/play"))
        defer { webSocketConnection.close() }
        let udpConnection = try UDPClientTransportConnection(token: udp.token(clientID: 77), requestPath: "/play")
        defer { udpConnection.close() }
        var clientConfiguration = ClientConfiguration()
        clientConfiguration.compressionModes = [.streaming, .perFrame]
        let clients = [
            ClientSession(game: game, clock: clock, configuration: clientConfiguration), ClientSession(game: game, clock: clock),
        ]
        clients[0].connect(over: webSocketConnection)
        clients[1].connect(over: udpConnection)

        func seesBoth(_ client: ClientSession<DotsGame>, _ other: ClientSession<DotsGame>) -> Bool {
            guard let snapshot = client.latestSnapshot, let mine = client.clientID, let theirs = other.clientID else { return false }
            return snapshot.index(of: mine) != nil && snapshot.index(of: theirs) != nil
        }
        let deadline = clock.now + .seconds(5)
        var tick = 0
        while clock.now < deadline {
            host.advance()
            for client in clients { client.tick(input: tick < 10 ? DotsGame.Input(dx: 1, dy: 0) : nil) }
            tick += 1
            if seesBoth(clients[0], clients[1]) && seesBoth(clients[1], clients[0]) && tick > 20 { break }
            clock.sleep(until: clock.now + .milliseconds(33))
        }
        let room = try #require(host.room(named: "play"))
        #expect(room.clientIDs.count == 2, "both clients should be in the room: \(room.clientIDs)")
        for (index, client) in clients.enumerated() {
            #expect(client.status == .connected, "client \(index) status \(client.status)")
            #expect(seesBoth(client, clients[1 - index]), "client \(index)'s snapshot should hold both players")
            let snapshot = try #require(client.latestSnapshot)
            let truth = try #require(room.history.snapshot(at: snapshot.tick))
            #expect(snapshot == truth, "client \(index)'s decoded snapshot of tick \(snapshot.tick) differs from the server's")
            #expect(client.metrics.snapshotsUndecodable == 0)
        }
        #expect(udp.server.statistics.connectedClients == 1)
        #expect(udpConnection.statistics.roundTripSamples > 0, "the UDP client measured its round trip")
    }

    @Test("a host never selects streaming compression for a UDP client, even when the hello offers only that")
    func noStreamingOverUDP() throws {
        let udp = try UDPTestServer()
        defer { udp.server.shutdown() }
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 1)
        let host = Host(game: game, listener: udp.server, clock: clock)
        let connection = try UDPClientTransportConnection(token: udp.token(clientID: 5))
        defer { connection.close() }
        var clientConfiguration = ClientConfiguration()
        clientConfiguration.compressionModes = [.streaming]
        let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
        session.connect(over: connection)
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, session.latestSnapshot == nil {
            host.advance()
            session.tick(input: nil)
            clock.sleep(until: clock.now + .milliseconds(10))
        }
        #expect(session.status == .connected, "status \(session.status)")
        #expect(session.latestSnapshot != nil, "snapshots decode without a streaming context")
        #expect(session.compressor.mode == CompressionMode.none, "got \(session.compressor.mode)")
    }
}

import Testing
import TickwireCodec
import TickwireIO
import TickwireSimTestSupport
import TickwireWebSocket

@testable import TickwireSim
@testable import TickwireWebSocketTransport

@Suite("WebSocket transport")
struct WebSocketTransportTests {
    @Test("a host and two clients over real WebSockets on 127.0.0.1 handshake, exchange snapshots and converge")
    func hostOverWebSockets() throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 5, freezeAt: 0.5)
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.rooms = ["play"]  // the clients' URL path picks it
        let host = Host(game: game, listener: server, clock: clock, configuration: configuration)
        let url = try WebSocketURL("ws://127.0.0.1:\(port)/play")
        var clients: [ClientSession<DotsGame>] = []
        var connections: [WebSocketClientTransportConnection] = []
        for _ in 0..<2 {
            let connection = try WebSocketClientTransportConnection(url: url)
            connections.append(connection)
            let client = ClientSession(game: game, clock: clock)
            client.connect(over: connection)
            clients.append(client)
        }
        defer { for connection in connections { connection.close() } }
        // Real time, bounded: run the host and clients at 30 Hz for at most 5 s, until both
        // clients hold a snapshot taken after the world froze at 0.5 s of world time.
        let deadline = clock.now + .seconds(5)
        var tick = 0
        while clock.now < deadline {
            host.advance()
            for (index, client) in clients.enumerated() {
                client.tick(input: tick < 10 && index == 0 ? DotsGame.Input(dx: 1, dy: 0) : nil)
            }
            tick += 1
            let frozen = (host.room(named: "play")?.tick ?? 0) > 40
            if frozen, clients.allSatisfy({ ($0.latestSnapshot?.tick ?? 0) > 30 }) { break }
            clock.sleep(until: clock.now + .milliseconds(33))
        }
        let room = try #require(host.room(named: "play"))
        for (index, client) in clients.enumerated() {
            #expect(client.status == .connected, "client \(index) status \(client.status)")
            let snapshot = try #require(client.latestSnapshot, "client \(index) received no snapshot over WebSocket")
            let truth = try #require(room.history.snapshot(at: snapshot.tick))
            #expect(snapshot == truth, "client \(index)'s decoded snapshot of tick \(snapshot.tick) differs from the server's")
            #expect(client.metrics.snapshotsUndecodable == 0)
        }
        #expect(room.clientIDs.count == 2)
        let mover = try #require(clients[0].clientID)
        #expect((room.state.players[mover]?.x ?? 0) > 3, "the first client's inputs travelled over the socket and moved its player")
    }

    @Test("frames sent just before a client's close reach the server, and the server sees a normal close", arguments: 0..<5)
    func lastFramesBeforeClose(round: Int) throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let client = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/"))
        let clock = MonotonicClock()
        var accepted: [any TransportConnection] = []
        let acceptDeadline = clock.now + .seconds(5)
        while accepted.isEmpty && clock.now < acceptDeadline {
            accepted = server.acceptPending()
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        let peer = try #require(accepted.first, "the server should accept the client within 5 s")
        #expect(client.send([1, 2, 3, UInt8(round)]) == .taken)
        #expect(client.send([4, 5, 6]) == .taken)
        client.close()  // returns once the close handshake is done (or after closeWait)
        var events: [TransportEvent] = []
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline {
            events += peer.drain()
            if events.contains(where: { if case .closed = $0 { true } else { false } }) { break }
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        #expect(
            events == [.frame([1, 2, 3, UInt8(round)]), .frame([4, 5, 6]), .closed(.closedByPeer(code: .normalClosure))],
            "the server should get both frames, then a normal close; got \(events)")
        #expect(client.send([7]) == .closed, "a closed client connection refuses frames")
        #expect(client.readiness(budgetBytes: .max) == .closed)
        #expect(peer.send([8]) == .closed, "a server connection whose peer closed refuses frames")
        #expect(peer.readiness(budgetBytes: .max) == .closed)
    }

    @Test("the WebSocket send result maps onto the transport's: accepted is taken, a full buffer backed up, not open closed")
    func sendResultMapping() {
        #expect(TransportSendResult(SendResult.accepted) == .taken)
        #expect(TransportSendResult(SendResult.acceptedOverHighWaterMark) == .taken)
        #expect(TransportSendResult(SendResult.droppedBufferFull) == .backedUp)
        #expect(TransportSendResult(SendResult.droppedNotOpen) == .closed)
        let limits = SendBufferLimits(highWaterMark: 100, hardLimit: 1_000)
        #expect(TransportSendResult(buffered: 500, budgetBytes: 500, limits: limits) == .taken)
        #expect(TransportSendResult(buffered: 501, budgetBytes: 500, limits: limits) == .backedUp, "over the sender's budget")
        #expect(
            TransportSendResult(buffered: 1_000, budgetBytes: .max, limits: limits) == .backedUp,
            "at the hard limit, where the WebSocket connection refuses")
    }
}

@Suite("WebSocket transport close codes")
struct WebSocketTransportCloseCodeTests {
    @Test("a host's reject over real WebSockets closes with its code, and the client session keeps it: 4000 for another schema")
    func rejectCloseCodeOverWebSockets() throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let clock = MonotonicClock()
        let host = Host(game: DotsGame(orbCount: 1), listener: server, clock: clock)
        let connection = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/"))
        defer { connection.close() }
        let session = ClientSession(game: DotsGame(orbCount: 1, extraField: true), clock: clock)
        session.connect(over: connection)
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, session.closeReason == nil {
            host.advance()
            session.receive()
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        guard case .rejected(.schemaMismatch, _) = session.status else {
            Issue.record("the session should be rejected for its schema, is \(session.status)")
            return
        }
        #expect(session.closeCode == .schemaMismatch, "got \(String(describing: session.closeReason))")
        #expect(
            session.closeReason?.text.hasPrefix("the server's schema fingerprint is") == true,
            "the close carries the reject's words: \(String(describing: session.closeReason))")
    }
}

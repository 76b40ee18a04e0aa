import Testing
import TickwireCodec

@testable import TickwireSim

/// Every way the host ends a connection closes with the code PROTOCOL.md 1.3 documents for it.
@Suite("Host close codes")
struct HostCloseCodeTests {
    /// Runs until `client` is closed (at most 200 ms) and returns its close code.
    private func closeCode(of client: RawClientBench.Client, on bench: RawClientBench) -> CloseCode? {
        bench.run(milliseconds: 200, clients: [client])
        return client.closeReason?.code
    }

    @Test("a hello of another protocol version is rejected and closed with 4003")
    func versionMismatch() {
        let bench = RawClientBench()
        let client = bench.connect(sending: bench.rawHello(version: 2))
        #expect(closeCode(of: client, on: bench) == .unsupportedVersion, "got \(String(describing: client.closeReason))")
        #expect(client.reject?.reason == .versionMismatch)
    }

    @Test("a hello of another version is rejected for its version whatever follows, even bytes version 1 refuses (PROTOCOL.md 5.3)")
    func versionMismatchBeforeTheRest() {
        let bench = RawClientBench()
        // Version 2, then a truncated fingerprint: version 1's layout would refuse it as truncated.
        let client = bench.connect(sending: [0x01, 0x00, 0x02, 0xFF])
        #expect(closeCode(of: client, on: bench) == .unsupportedVersion, "got \(String(describing: client.closeReason))")
        #expect(client.reject?.reason == .versionMismatch)
    }

    @Test("a hello with another schema fingerprint is rejected and closed with 4000")
    func schemaMismatch() throws {
        let bench = RawClientBench()
        let hello = Message.Hello(schemaFingerprint: bench.game.schema.fingerprint ^ 1, compressionModes: [])
        let client = bench.connect(sending: try FrameCompressor.uncompressed().encode(.hello(hello)))
        #expect(closeCode(of: client, on: bench) == .schemaMismatch, "got \(String(describing: client.closeReason))")
        #expect(client.reject?.reason == .schemaMismatch)
    }

    @Test("a hello for a room full of connected players is rejected and closed with 4001")
    func roomFull() {
        let bench = RawClientBench { $0.roomCapacity = 1 }
        let player = bench.join()
        bench.run(milliseconds: 100, clients: [player])
        let late = bench.join()
        bench.run(milliseconds: 200, clients: [player, late]) { _ in player.sendInput(game: bench.game) }
        #expect(late.closeReason?.code == .roomFull, "got \(String(describing: late.closeReason))")
        #expect(late.reject?.reason == .roomFull)
        #expect(!player.isClosed, "the player in the room stays")
    }

    @Test("a hello for a room the host does not run is rejected and closed with 1008")
    func unknownRoom() {
        let bench = RawClientBench()
        let client = bench.join(room: "nowhere")
        #expect(closeCode(of: client, on: bench) == .policyViolation, "got \(String(describing: client.closeReason))")
        #expect(client.reject?.reason == .unknownRoom)
    }

    @Test("a first frame that is not a hello is rejected as an invalid hello and closed with 4004")
    func invalidHello() {
        let bench = RawClientBench()
        let client = bench.connect(sending: [MessageType.ping.rawValue, 0])
        #expect(closeCode(of: client, on: bench) == .malformedFrame, "got \(String(describing: client.closeReason))")
        #expect(client.reject?.reason == .invalidHello)
    }

    @Test("a connection that sends no hello within the handshake timeout is closed with 4005")
    func handshakeTimeout() {
        let bench = RawClientBench { $0.handshakeTimeout = .milliseconds(500) }
        let client = bench.connect(sending: nil)
        bench.run(milliseconds: 450, clients: [client])
        #expect(!client.isClosed, "still within the handshake timeout")
        bench.run(milliseconds: 200, clients: [client])
        #expect(client.closeReason?.code == .idleTimeout, "got \(String(describing: client.closeReason))")
    }

    @Test("a connected client that goes silent gets a timed-out disconnect and close 4005")
    func idleTimeout() {
        let bench = RawClientBench { $0.clientTimeout = .seconds(1) }
        let client = bench.join()
        bench.run(milliseconds: 1500, clients: [client])
        #expect(client.disconnect?.reason == .timedOut)
        #expect(client.closeReason?.code == .idleTimeout, "got \(String(describing: client.closeReason))")
    }

    @Test("a kicked client gets a kicked disconnect and close 4002, and its player is gone")
    func kicked() throws {
        let bench = RawClientBench()
        let client = bench.join()
        bench.run(milliseconds: 100, clients: [client])
        let id = try #require(client.welcome?.clientID)
        try #require(bench.host.room(named: "")).kick(id, text: "cheating")
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.disconnect == Message.Disconnect(reason: .kicked, text: "cheating"))
        #expect(client.closeReason?.code == .kicked && client.closeReason?.text == "cheating")
        #expect(bench.host.room(named: "")?.clientIDs == [], "a kicked player cannot resume")
    }

    @Test("closing a room closes its clients with 4006")
    func roomClosed() {
        let bench = RawClientBench { $0.rooms = ["", "match"] }
        let client = bench.join(room: "match")
        bench.run(milliseconds: 100, clients: [client])
        bench.host.closeRoom(named: "match")
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.closeReason?.code == .roomClosed, "got \(String(describing: client.closeReason))")
        #expect(bench.host.roomNames == [""])
    }

    @Test("a host shutting down disconnects its players and rejects newcomers, both with close 1001")
    func shutdown() {
        let bench = RawClientBench()
        let player = bench.join()
        bench.run(milliseconds: 100, clients: [player])
        bench.host.shutdown()
        let late = bench.join()
        bench.run(milliseconds: 100, clients: [player, late])
        #expect(player.disconnect?.reason == .serverShuttingDown)
        #expect(player.closeReason?.code == .goingAway, "got \(String(describing: player.closeReason))")
        #expect(late.reject?.reason == .serverShuttingDown)
        #expect(late.closeReason?.code == .goingAway, "got \(String(describing: late.closeReason))")
    }

    @Test("a client that leaves is closed with 1000")
    func leaving() {
        let bench = RawClientBench()
        let client = bench.join()
        bench.run(milliseconds: 100, clients: [client])
        client.send(.disconnect(Message.Disconnect(reason: .leaving)))
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.closeReason?.code == .normalClosure, "got \(String(describing: client.closeReason))")
    }

    @Test("a ClientSession keeps the close code of a reject: 4003 for another protocol version")
    func sessionSurfacesCloseCode() {
        let bench = RawClientBench()
        var configuration = ClientConfiguration()
        configuration.protocolVersion = 2
        let session = ClientSession(game: bench.game, clock: bench.clock, configuration: configuration)
        session.connect(over: bench.network.connect())
        for _ in 0..<40 {
            bench.host.advance()
            bench.clock.advance(by: .milliseconds(5))
            session.receive()
        }
        guard case .rejected(.versionMismatch, _) = session.status else {
            Issue.record("the session should be rejected for its version, is \(session.status)")
            return
        }
        #expect(session.closeCode == .unsupportedVersion, "got \(String(describing: session.closeReason))")
    }

    @Test("a ClientSession keeps the close code of a disconnect: 4005 after an idle timeout")
    func sessionSurfacesDisconnectCode() {
        let bench = RawClientBench { $0.clientTimeout = .milliseconds(500) }
        let session = ClientSession(game: bench.game, clock: bench.clock)
        session.connect(over: bench.network.connect())
        for step in 0..<300 {
            bench.host.advance()
            bench.clock.advance(by: .milliseconds(5))
            if step < 20 { session.tick(input: nil) } else { session.receive() }
        }
        guard case .disconnected = session.status else {
            Issue.record("the silent session should be timed out, is \(session.status)")
            return
        }
        #expect(session.closeCode == .idleTimeout, "got \(String(describing: session.closeReason))")
    }
}

import Testing
import Tickwire

@testable import ArenaGame

@Suite("ConnectionOutcomes: why a load run's clients did not join")
struct ConnectionOutcomesTests {
    /// How the WebSocket client transport reports a failed attempt: a lost connection, no code, the cause in words.
    static func failure(_ reason: String) -> TransportCloseReason {
        TransportCloseReason(TransportCloseReason.connectionLost.name, text: reason)
    }

    @Test(
        "the WebSocket client's failure reasons map to their kinds",
        arguments: [
            ("no open connection within 10.0 seconds", ConnectionOutcomes.Failure.handshakeTimeout),
            ("connect(2) failed: Connection refused (errno 111) (127.0.0.1:9)", .connectionRefused),
            ("connect(2) failed: Network is unreachable (errno 101) (127.0.0.1:9)", .connectFailed),
            ("handshake refused: the status is 404, not 101", .handshakeFailed),
            ("the connection closed during the handshake", .handshakeFailed),
            ("the handshake response is over 16384 bytes", .handshakeFailed),
            ("cannot resolve nowhere.invalid: getaddrinfo failed", .unresolved),
            ("nowhere.invalid has no address", .unresolved),
            ("something new", .other),
        ]
    )
    func classifiesFailureReasons(reason: String, expected: ConnectionOutcomes.Failure) {
        #expect(ConnectionOutcomes.Failure.classifying(Self.failure(reason)) == expected, "\"\(reason)\" should read as \(expected)")
    }

    @Test("a close from the server before the welcome and an unknown end have kinds of their own")
    func classifiesServerCloseAndNothing() {
        let serverClose = TransportCloseReason.closedByPeer(code: .goingAway, text: "shutting down")
        #expect(ConnectionOutcomes.Failure.classifying(serverClose) == .closedBeforeWelcome)
        #expect(ConnectionOutcomes.Failure.classifying(nil) == .other)
    }

    @Test("refusals and failures are counted by cause, merged across drivers, and listed most first")
    func countsMergesAndLists() {
        var first = ConnectionOutcomes()
        for _ in 0..<3 { first.recordRefusal(.roomFull) }
        first.recordRefusal(.schemaMismatch)
        first.recordFailure(.connectionRefused)
        var second = ConnectionOutcomes()
        second.recordRefusal(.roomFull)
        second.recordRefusal(.versionMismatch)
        second.recordFailure(.handshakeTimeout)
        second.recordFailure(.handshakeTimeout)
        first.merge(second)
        #expect(first.refusals == [.roomFull: 4, .schemaMismatch: 1, .versionMismatch: 1])
        #expect(first.refusalCount == 6)
        #expect(first.failureCount == 3)
        #expect(first.refusalsText == "room full ×4, schema mismatch ×1, version mismatch ×1", "most first, ties by name")
        #expect(first.failuresText == "handshake timed out ×2, connection refused ×1")
        #expect(ConnectionOutcomes().refusalsText == "none")
        #expect(ConnectionOutcomes().failuresText == "none")
    }

    @Test("a full room gets a hint naming --capacity and --rooms with numbers that fit every client")
    func hintsWhenRoomsAreFull() throws {
        var outcomes = ConnectionOutcomes()
        #expect(outcomes.hint(clients: 200, rooms: 1) == nil, "no refusals, no hint")
        outcomes.recordRefusal(.schemaMismatch)
        #expect(outcomes.hint(clients: 200, rooms: 1) == nil, "only a full room calls for more capacity")
        for _ in 0..<168 { outcomes.recordRefusal(.roomFull) }
        let single = try #require(outcomes.hint(clients: 200, rooms: 1))
        #expect(single.contains("168 clients were refused because the room was full"))
        #expect(single.contains("`arena serve --capacity 200`"), "capacity for all 200 clients in one room: \(single)")
        #expect(single.contains("--rooms N"))
        let spread = try #require(outcomes.hint(clients: 200, rooms: 3))
        #expect(spread.contains("`arena serve --rooms 3 --capacity 67`"), "200 clients over 3 rooms need 67 places each: \(spread)")
    }

    @Test("the JSON members hold both counts keyed by name and the hint, or null")
    func jsonMembers() {
        var outcomes = ConnectionOutcomes()
        #expect(
            outcomes.jsonMembers(clients: 10, rooms: 1)
                == #""refusals":{},"connectionFailures":{},"refusedBeforeHello":[],"gaveUp":0,"hint":null"#)
        outcomes.recordRefusal(.roomFull)
        outcomes.recordRefusal(Message.Reject.Reason(rawValue: 40_000))
        outcomes.recordRefusal(Message.Reject.Reason(rawValue: 40_000))
        outcomes.recordFailure(.connectionRefused)
        let json = outcomes.jsonMembers(clients: 10, rooms: 1)
        #expect(
            json.hasPrefix(
                #""refusals":{"reason 40000":2,"room full":1},"connectionFailures":{"connection refused":1},"refusedBeforeHello":[],"gaveUp":0,"hint":"hint: 1 client was"#
            ))
        #expect(ConnectionOutcomes.jsonString("a \"b\" \\ \n") == #""a \"b\" \\ \u000a""#)
    }

    @Test("a real connect to a closed port on 127.0.0.1 reads as connection refused")
    func realRefusedConnect() throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        let port = try #require(server.address?.port, "the server should report its bound port")
        server.shutdown()
        let connection = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/"))
        defer { connection.close() }
        let clock = MonotonicClock()
        let deadline = clock.now + .seconds(5)
        var events: [TransportEvent] = []
        while events.isEmpty, clock.now < deadline {
            events = connection.drain()
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        guard case .closed(let reason) = try #require(events.first, "the attempt should end within 5 s") else {
            Issue.record("the attempt should end in a close, not \(events)")
            return
        }
        #expect(reason.name == TransportCloseReason.connectionLost.name && reason.code == nil, "\(reason) should be a lost connection")
        #expect(ConnectionOutcomes.Failure.classifying(reason) == .connectionRefused, "\(reason) should read as a refused connect")
    }
}

@Suite("ConnectionOutcomes over a real refusing server")
struct ConnectionOutcomesRefusalTests {
    @Test("a real upgrade refused by the per-address budget reads as 429 with the server's limit and the flag to change it")
    func realRefusedUpgrade() throws {
        var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.maximumConnectionsPerAddress = 0
        let server = try WebSocketTransportServer(configuration: configuration)
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let connection = try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/"))
        defer { connection.close() }
        let clock = MonotonicClock()
        let deadline = clock.now + .seconds(5)
        var events: [TransportEvent] = []
        while events.isEmpty, clock.now < deadline {
            events = connection.drain()
            clock.sleep(until: clock.now + .milliseconds(2))
        }
        guard case .closed = try #require(events.first, "the attempt should end within 5 s") else {
            Issue.record("the attempt should end in a close, not \(events)")
            return
        }
        let refusal = try #require(connection.lastHandshakeError?.refusal, "the transport keeps the handshake's refusal")
        #expect(
            RefusalExplanation(refusal: refusal).description
                == "429 too many connections from one address (limit 0): spread with --source-addresses or raise --max-connections-per-address"
        )
    }
}

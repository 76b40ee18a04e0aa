import Glibc
import Testing
import Tickwire

@testable import ArenaGame

/// `tickwire load --matchmaker`'s player: a session with no entry URL whose first seat, and every
/// later one, the ``MatchmakerLoadOpener`` asks the matchmaker for; against a real `arena serve`
/// requiring tokens and the test-local fake matchmaker of ``ArenaMatchmakerJoinTests``.
@Suite("Matchmaker load opener")
struct MatchmakerLoadOpenerTests {
    @Test("a load player with no entry URL takes its first seat from the matchmaker and is welcomed there; its seat is counted")
    func firstSeatFromTheMatchmaker() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let keyPath = directory + "/udp.key"
        defer { unlink(keyPath) }
        var serverOptions = ArenaServer.Options()
        serverOptions.port = 0
        serverOptions.udpPort = nil
        serverOptions.bots = 0
        serverOptions.udpKeyPath = keyPath
        serverOptions.requiresTokens = true
        let running = try RunningArenaServer(serverOptions)
        defer { running.stop() }
        let fake = try ArenaMatchmakerJoinTests.FakeMatchmakerEndpoint(
            key: try ArenaUDP.key(at: keyPath), room: "main", webSocketURL: "ws://127.0.0.1:\(running.server.port)/main")
        var matchmaker = try Matchmaker(url: "http://127.0.0.1:\(fake.port)")
        matchmaker.source = SocketAddress(numericHost: "127.0.0.1", port: 0)
        let opener = MatchmakerLoadOpener(matchmaker: matchmaker, mode: "arena", name: "load0")
        let clock = MonotonicClock()
        let session = ReconnectingSession(game: Arena(), clock: clock, entryURLs: []) { url in
            try WebSocketClientTransportConnection(url: try WebSocketURL(url))
        }
        session.rejoiner = { try opener.ticket() }
        session.isRejoinPending = true
        defer { session.leave() }
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline, session.state != .connected(resumed: false) {
            session.tick(input: nil)
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        #expect(session.state == .connected(resumed: false), "welcomed in the matchmaker's seat: \(session.lastFailure ?? "")")
        #expect(opener.seats.map(\.room) == ["main"] && session.rejoins == 1, "one seat, asked before the first attempt")
        let seen = fake.targets.seen.withLock { $0 }
        #expect(seen == ["POST /matchmake/joinOrCreate/arena"])
        #expect(opener.takeFailure() == nil)
        var figures = MatchmakerLoadFigures()
        figures.record(seats: opener.seats, connectedRoom: session.session.room)
        figures.listing = [RoomListing(room: "main", mode: "arena", clients: 1, capacity: 32, metadata: [:])]
        #expect(figures.json.contains(#""largestRoom":{"room":"main","players":1,"capacity":32},"roomsOverCapacity":0"#), "\(figures.json)")
    }

    @Test("a matchmaker's refusal is counted by status and code, with the budget it names; an unreachable one as no seat")
    func refusalsCounted() {
        let refusal = MatchmakerClientError(
            .refused(
                status: 429, code: "tooManyRequests", reason: "slow down", retryAfter: "1",
                budget: "address_matchmaker_rate_limit; limit=20"))
        let explanation = RefusalExplanation(matchmaker: refusal)
        #expect(explanation.kind == .matchmaker && explanation.code == 429 && explanation.limit == 20)
        #expect(explanation.description.hasPrefix("429 matchmaker tooManyRequests"), "\(explanation)")
        #expect(explanation.advice?.contains("--source-addresses") == true, "it names the flag that helps")
        var outcomes = ConnectionOutcomes()
        let session = ReconnectingSession(game: Arena(), clock: MonotonicClock(), entryURLs: []) { _ in throw refusal }
        let refused = outcomes.record(failedAttemptOf: session, matchmakerFailure: refusal)
        #expect(refused, "a refusal counts toward --refused-retries")
        let unreachable = MatchmakerClientError(.invalidRequest("no"))
        let unanswered = outcomes.record(failedAttemptOf: session, matchmakerFailure: unreachable)
        #expect(!unanswered, "no answer is a failure, not a refusal")
        #expect(outcomes.explainedJSON.contains(#""kind":"matchmaker","status":429"#), "\(outcomes.explainedJSON)")
        #expect(outcomes.failuresText.contains("no seat from the matchmaker"), "\(outcomes.failuresText)")
    }

    @Test("figures: rooms seen, the largest room, and a room over its capacity shown in text and JSON")
    func figures() {
        var figures = MatchmakerLoadFigures()
        #expect(figures.json.contains(#""largestRoom":null,"roomsOverCapacity":null"#), "no listing: unknown, not zero")
        figures.seats = 5
        figures.roomsSeen = ["a", "b"]
        figures.playersAtEnd = ["a": 3, "b": 2]
        figures.listing = [
            RoomListing(room: "a", mode: "arena", clients: 3, capacity: 2, metadata: [:]),
            RoomListing(room: "b", mode: "arena", clients: 2, capacity: 4, metadata: [:]),
        ]
        #expect(figures.roomsOverCapacity == 1)
        #expect(
            figures.text.contains("largest room a: 3 of 2 players") && figures.text.contains("1 room(s) OVER capacity"), "\(figures.text)")
        #expect(
            figures.json.contains(#""roomsSeen":2,"largestRoom":{"room":"a","players":3,"capacity":2},"roomsOverCapacity":1"#),
            "\(figures.json)")
    }
}

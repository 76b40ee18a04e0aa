import Synchronization
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireMatchmaker
import TickwireSim
import TickwireSimTestSupport
import TickwireTokens
import TickwireWebSocket
import TickwireWebSocketTransport

/// ``Matchmaker/session(joining:game:clock:configuration:policy:seed:options:open:)`` end to end:
/// a seat from ``FakeMatchmakerEndpoint`` (real tokens) admits the session to a real ``Host``
/// that requires tokens, over real WebSockets on 127.0.0.1; a loss within the grace period
/// resumes, and past it the session asks the matchmaker again and joins its new seat.
@Suite("Matchmaker session")
struct MatchmakerSessionTests {
    /// Keeps what the game and the host report, from any thread.
    final class Recorder<Element: Sendable>: Sendable {
        private let items = Mutex<[Element]>([])
        func append(_ item: Element) { items.withLock { $0.append(item) } }
        var all: [Element] { items.withLock { $0 } }
    }

    /// A connection the test can cut: it then reports a lost connection, as a dead network would.
    final class CuttableConnection: TransportConnection {
        let inner: any TransportConnection
        private let isCut = Mutex(false)
        private let reported = Mutex(false)

        init(_ inner: any TransportConnection) { self.inner = inner }

        func cut() {
            isCut.withLock { $0 = true }
            inner.close()
        }

        var connectionID: UInt64 { inner.connectionID }
        func send(_ frame: [UInt8]) -> TransportSendResult { isCut.withLock { $0 } ? .closed : inner.send(frame) }
        var bufferedBytes: Int { inner.bufferedBytes }
        func drain() -> [TransportEvent] { drainArrivals().map(\.event) }
        func drainArrivals() -> [TransportArrival] {
            guard isCut.withLock({ $0 }) else { return inner.drainArrivals() }
            let isFirst = reported.withLock { reported in
                defer { reported = true }
                return !reported
            }
            return isFirst ? [TransportArrival(.closed(.connectionLost))] : []
        }
        func close(code: CloseCode, reason: String) { inner.close(code: code, reason: reason) }
        var isClosed: Bool { isCut.withLock { $0 } || inner.isClosed }
        var requestPath: String? { inner.requestPath }
    }

    /// A host on a real WebSocket server, rooms `red` and `blue`, admitting only players whose
    /// connect token the fake's key sealed; a short resume grace period.
    final class Bench {
        let server: WebSocketTransportServer
        let host: Host<DotsGame>
        let clock = MonotonicClock()
        let port: Int
        let added = Recorder<(UInt32, PlayerIdentity?)>()
        let events = Recorder<HostEvent>()
        /// The connections the session opened, newest last.
        let opened = Recorder<CuttableConnection>()

        init() throws {
            server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
            port = try #require(server.address?.port, "the server reports its port")
            var game = DotsGame(orbCount: 1)
            let added = added
            game.addedPlayer = { player, identity in added.append((player, identity)) }
            var configuration = HostConfiguration()
            configuration.rooms = ["red", "blue"]
            configuration.requiresTokens = true
            configuration.tokenVerifier = NetcodeConnectTokenVerifier(
                key: FakeMatchmakerEndpoint.key, protocolID: FakeMatchmakerEndpoint.protocolID)
            configuration.resumeGracePeriod = .seconds(2)
            configuration.resumeGracePeriodWithoutInput = .seconds(2)
            host = Host(game: game, listener: server, clock: clock, configuration: configuration)
            let events = events
            host.onEvent = { event in events.append(event) }
        }

        deinit { server.shutdown() }

        /// Opens a cuttable WebSocket connection, and keeps it.
        var opener: ReconnectingSession<DotsGame>.URLOpener {
            let opened = opened
            return { url in
                let connection = CuttableConnection(try Matchmaker.openWebSocket(url))
                opened.append(connection)
                return connection
            }
        }

        /// Runs the host (and `client`, when given) until `done` or 30 s (a bound for a broken
        /// build, not a timing); returns whether `done` came true.
        @discardableResult
        func run(_ client: ReconnectingSession<DotsGame>?, until done: () -> Bool) -> Bool {
            let deadline = clock.now + .seconds(30)
            while clock.now < deadline {
                if done() { return true }
                host.advance()
                client?.tick(input: nil)
                clock.sleep(until: clock.now + .milliseconds(2))
            }
            return done()
        }
    }

    @Test("a session made from a joinOrCreate seat is welcomed in the seat's room under the token's identity")
    func joinsUnderTheSeatsIdentity() async throws {
        let bench = try Bench()
        let fake = try FakeMatchmakerEndpoint()
        fake.plan([
            .init(room: "red", webSocketURL: "ws://127.0.0.1:\(bench.port)/red", userID: (UInt64(1) << 63) + 7, displayName: "ada#7")
        ])
        let matchmaker = try Matchmaker(url: fake.url)
        let seat = try await matchmaker.joinOrCreate("arena", options: ["name": .string("ada")])
        let client = try matchmaker.session(
            joining: seat, game: DotsGame(orbCount: 1), clock: bench.clock,
            policy: ReconnectPolicy(baseDelay: .milliseconds(10), jitter: 0),
            open: bench.opener)
        defer { client.leave() }
        // A busy machine (the whole test run at once) must not turn a slow welcome into a retry.
        client.handshakeTimeout = .seconds(30)
        #expect(client.session.configuration.room == "red" && client.session.configuration.connectToken == seat.helloToken)
        client.start()
        bench.run(client) { client.session.clientID != nil && !bench.added.all.isEmpty }
        try #require(client.session.clientID != nil, "welcomed: \(client.state), \(client.lastFailure ?? "")")
        let identity = try #require(bench.added.all.first?.1, "the host hands the game the token's identity")
        #expect(identity.userID == (UInt64(1) << 63) + 7 && identity.displayName == "ada#7" && identity.room == "red")
        #expect(client.session.room == "red")
        #expect(fake.seatsHanded == 1, "one seat asked for")
    }

    @Test("within the grace period the session resumes; past it, the resume is refused and the session joins a new seat")
    func resumesThenAsksAgain() async throws {
        let bench = try Bench()
        let fake = try FakeMatchmakerEndpoint()
        fake.plan([
            .init(room: "red", webSocketURL: "ws://127.0.0.1:\(bench.port)/red", userID: (UInt64(1) << 63) + 1, displayName: "ada#1"),
            .init(room: "blue", webSocketURL: "ws://127.0.0.1:\(bench.port)/blue", userID: (UInt64(1) << 63) + 2, displayName: "ada#2"),
        ])
        let matchmaker = try Matchmaker(url: fake.url)
        let seat = try await matchmaker.joinOrCreate("arena", options: ["name": .string("ada")])
        let client = try matchmaker.session(
            joining: seat, game: DotsGame(orbCount: 1), clock: bench.clock,
            policy: ReconnectPolicy(baseDelay: .milliseconds(10), jitter: 0),
            options: ["name": .string("ada")], open: bench.opener)
        defer { client.leave() }
        // A busy machine (the whole test run at once) must not turn a slow welcome into a retry.
        client.handshakeTimeout = .seconds(30)
        client.start()
        bench.run(client) { client.state == .connected(resumed: false) }
        let firstID = try #require(client.session.clientID, "welcomed: \(client.state), \(client.lastFailure ?? "")")

        // A loss, back at once: the resume token gets the same player back; no new seat.
        bench.opened.all.last?.cut()
        let resumed = bench.run(client) { client.state == .connected(resumed: true) }
        #expect(resumed, "resumed within the grace period: \(client.state), \(client.lastFailure ?? "")")
        #expect(client.session.clientID == firstID && fake.seatsHanded == 1 && client.rejoins == 0)

        // A loss past the grace period: the host lets the player go, refuses the resume, and the
        // session asks the matchmaker for a new seat (blue) and joins it with its new token.
        bench.opened.all.last?.cut()
        let released = bench.run(nil) { bench.events.all.contains { $0.kind == .left && $0.departure == .gracePeriodEnded } }
        try #require(released, "the host ends the player's grace period: \(bench.events.all.map(\.kind))")
        let rejoined = bench.run(client) { client.rejoins == 1 && client.state == .connected(resumed: false) }
        #expect(rejoined, "joined the new seat: \(client.state), \(client.lastFailure ?? "")")
        #expect(bench.host.rejections[.tokenRequired] == 1, "the resume past the grace period was refused: \(bench.host.rejections)")
        #expect(fake.seatsHanded == 2, "the matchmaker was asked once more")
        #expect(fake.seen.last?.target == "/matchmake/joinOrCreate/arena", "again in the seat's mode")
        #expect(client.session.room == "blue", "the new seat's room")
        #expect(client.entryURLs == ["ws://127.0.0.1:\(bench.port)/blue"], "the new seat's URL is where the session enters now")
        #expect(client.session.connectToken == nil, "the new token was spent by its welcome")
        let identity = bench.added.all.last?.1
        #expect(identity?.userID == (UInt64(1) << 63) + 2 && identity?.room == "blue", "the new player has the new seat's identity")
    }

    @Test("a matchmaker that refuses with 401 when asked again ends the session as a refused connection")
    func finalRefusalOnRejoin() async throws {
        let bench = try Bench()
        let fake = try FakeMatchmakerEndpoint()
        fake.plan([.init(room: "red", webSocketURL: "ws://127.0.0.1:\(bench.port)/red")])
        let matchmaker = try Matchmaker(url: fake.url)
        let seat = try await matchmaker.joinOrCreate("arena")
        fake.answer("/matchmake/joinOrCreate/arena", status: 401, body: #"{"error":"unauthorized","reason":"the bearer token expired"}"#)
        let client = try matchmaker.session(
            joining: seat, game: DotsGame(orbCount: 1), clock: bench.clock,
            policy: ReconnectPolicy(baseDelay: .milliseconds(10), jitter: 0),
            open: bench.opener)
        // Without its token the first hello is refused (token required), so the session asks again, and hears 401.
        client.session.connectToken = nil
        defer { client.leave() }
        // A busy machine (the whole test run at once) must not turn a slow welcome into a retry.
        client.handshakeTimeout = .seconds(30)
        client.start()
        bench.run(client) { client.state.isFinal }
        guard case .refusedConnection(let refusal) = client.state else {
            Issue.record("the session should stop at the 401, not be \(client.state) (\(client.lastFailure ?? ""))")
            return
        }
        #expect(refusal.status == 401 && refusal.reason == "unauthorized" && refusal.text == "the bearer token expired")
        #expect(bench.host.rejections[.tokenRequired] == 1, "the hello without a token was refused first")
        #expect(client.rejoins == 0)
    }
}

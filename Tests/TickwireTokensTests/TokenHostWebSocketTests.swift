import Synchronization
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO
import TickwireNetcode
import TickwireSim
import TickwireSimTestSupport
import TickwireTokens
import TickwireWebSocket
import TickwireWebSocketTransport

/// A host that admits players by connect token, over real WebSockets on 127.0.0.1: the identity a
/// token verifies reaches the game, and each refusal stops a ``ReconnectingSession`` after one
/// attempt with its documented reason (PROTOCOL.md 5.3.1, 5.5).
@Suite("Connect tokens over WebSocket")
struct TokenHostWebSocketTests {
    static let key = try! NetcodeKey(bytes: Array(repeating: 0x5A, count: 32))
    static let protocolID: UInt64 = 0x5449_434B_5749_5245
    static let address = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40_000)

    /// Counts the connections a client opened.
    final class Counter: Sendable {
        private let value = Mutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    /// Keeps what a game or a host reports, from any thread.
    final class Recorder<Element: Sendable>: Sendable {
        private let items = Mutex<[Element]>([])
        func append(_ item: Element) { items.withLock { $0.append(item) } }
        var all: [Element] { items.withLock { $0 } }
    }

    /// A host on a real WebSocket server, its game reporting identities, with tokens required.
    final class Bench {
        let server: WebSocketTransportServer
        let host: Host<DotsGame>
        let clock = MonotonicClock()
        let port: Int
        let added = Recorder<(UInt32, PlayerIdentity?)>()
        let requests = Recorder<AdmissionRequest>()
        let events = Recorder<HostEvent>()

        init(requiresTokens: Bool = true, maximumUsedTokens: Int = HostConfiguration.defaultMaximumUsedTokens, refuseUser: UInt64? = nil)
            throws
        {
            server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
            port = try #require(server.address?.port, "the server should report its bound port")
            var game = DotsGame(orbCount: 1)
            let added = added
            let requests = requests
            game.addedPlayer = { player, identity in added.append((player, identity)) }
            game.admissionPolicy = { request, _ in
                requests.append(request)
                return request.identity?.userID == refuseUser && refuseUser != nil
                    ? .refused(Message.Reject.Reason(rawValue: 40_000), text: "user \(refuseUser ?? 0) is banned") : .admitted
            }
            var configuration = HostConfiguration()
            configuration.rooms = ["red", "blue"]
            configuration.requiresTokens = requiresTokens
            configuration.tokenVerifier = NetcodeConnectTokenVerifier(
                key: TokenHostWebSocketTests.key, protocolID: TokenHostWebSocketTests.protocolID)
            configuration.maximumUsedTokens = maximumUsedTokens
            host = Host(game: game, listener: server, clock: clock, configuration: configuration)
            let events = events
            host.onEvent = { event in events.append(event) }
        }

        deinit { server.shutdown() }

        /// A reconnecting client of `room` holding `token`, and how many connections it opened.
        func client(room: String, token: Message.Hello.ConnectToken?) throws -> (ReconnectingSession<DotsGame>, Counter) {
            let url = try WebSocketURL("ws://127.0.0.1:\(port)/\(room)")
            var configuration = ClientConfiguration()
            configuration.connectToken = token
            let opened = Counter()
            let session = ReconnectingSession(
                session: ClientSession(game: DotsGame(orbCount: 1), clock: clock, configuration: configuration),
                policy: ReconnectPolicy(baseDelay: .milliseconds(10), jitter: 0)
            ) { [opened] in
                opened.increment()
                return try WebSocketClientTransportConnection(url: url)
            }
            return (session, opened)
        }

        /// Runs host and clients until `done` or 10 s (a bound for a broken build, not a timing).
        func run(_ clients: [ReconnectingSession<DotsGame>], until done: () -> Bool) {
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline, !done() {
                host.advance()
                for client in clients { client.tick(input: nil) }
                clock.sleep(until: clock.now + .milliseconds(2))
            }
        }

        /// Runs a few more passes, to see that a stopped client opens nothing more.
        func settle(_ clients: [ReconnectingSession<DotsGame>]) {
            for _ in 0..<25 {
                host.advance()
                for client in clients { client.tick(input: nil) }
                clock.sleep(until: clock.now + .milliseconds(2))
            }
        }
    }

    static func token(
        user: UInt64 = 7, room: String = "red", name: String = "Ada", lifetime: UInt64 = 60, issuedAgo: UInt64 = 0,
        key: NetcodeKey = key
    ) throws -> Message.Hello.ConnectToken {
        let now = HostStateFile.wallClockMilliseconds() / 1000 - issuedAgo
        let issuer = ConnectTokenIssuer(key: key, protocolID: protocolID, clock: .fixed(now))
        let token = try issuer.issue(
            userID: user, room: room, displayName: name, claims: [0xC1], serverAddresses: [address], lifetimeSeconds: lifetime)
        return try #require(token.helloToken)
    }

    @Test("a token-bearing client joins; its user id, display name, room and claims reach admit, addPlayer and the joined event")
    func identityReachesTheGame() throws {
        let bench = try Bench()
        let (client, opened) = try bench.client(room: "red", token: try Self.token(user: 7, name: "Ada"))
        defer { client.leave() }
        client.start()
        bench.run([client]) { client.session.clientID != nil && !bench.added.all.isEmpty }
        let id = try #require(client.session.clientID, "the client is welcomed; state \(client.state), \(client.lastFailure ?? "")")
        let added = bench.added.all
        #expect(added.count == 1)
        let identity = try #require(added.first?.1, "addPlayer gets the identity")
        #expect(added.first?.0 == id)
        #expect(identity.userID == 7)
        #expect(identity.displayName == "Ada")
        #expect(identity.room == "red")
        #expect(identity.claims == [0xC1])
        #expect(bench.requests.all.first?.identity == identity, "admit sees the identity")
        let joined = bench.events.all.first { $0.kind == .joined }
        #expect(joined?.identity == identity, "the joined event carries the identity")
        #expect(client.session.connectToken == nil, "the welcome spent the client's token")
        #expect(opened.count == 1)
    }

    /// One refusal case: the token the client holds, the host's settings, the reason expected.
    struct RefusalCase: Sendable, CustomStringConvertible {
        let name: String
        let reason: Message.Reject.Reason
        var description: String { name }
    }

    static let refusals: [RefusalCase] = [
        RefusalCase(name: "missing", reason: .tokenRequired),
        RefusalCase(name: "forged", reason: .tokenInvalid),
        RefusalCase(name: "expired", reason: .tokenExpired),
        RefusalCase(name: "another room", reason: .tokenWrongRoom),
        RefusalCase(name: "replayed", reason: .tokenAlreadyUsed),
        RefusalCase(name: "refused by the game", reason: Message.Reject.Reason(rawValue: 40_000)),
    ]

    @Test("each refusal reaches a reconnecting client once, as final, with its documented reason and close code 1008", arguments: refusals)
    func refusalStopsTheClient(refusal: RefusalCase) throws {
        let bench = try Bench(refuseUser: refusal.name == "refused by the game" ? 99 : nil)
        let token: Message.Hello.ConnectToken?
        switch refusal.name {
        case "missing": token = nil
        case "forged": token = try Self.token(key: try NetcodeKey(bytes: Array(repeating: 0x11, count: 32)))
        case "expired": token = try Self.token(lifetime: 60, issuedAgo: 61)
        case "another room": token = try Self.token(room: "blue")
        case "refused by the game": token = try Self.token(user: 99)
        default:
            // Replayed: a first client joins with the token, then a second sends the same bytes.
            let shared = try Self.token(user: 8)
            let (first, _) = try bench.client(room: "red", token: shared)
            defer { first.leave() }
            first.start()
            bench.run([first]) { first.session.clientID != nil }
            try #require(first.session.clientID != nil, "the first use of the token joins: \(first.state)")
            token = shared
        }
        let (client, opened) = try bench.client(room: "red", token: token)
        defer { client.leave() }
        client.start()
        bench.run([client]) { client.state.isFinal }
        guard case .refused(let reason, let text) = client.state else {
            Issue.record("\(refusal): the client should stop refused, not be \(client.state) (\(client.lastFailure ?? ""))")
            return
        }
        #expect(reason == refusal.reason, "\(refusal): \(text)")
        #expect(!text.isEmpty, "the reject says why in words")
        bench.settle([client])
        #expect(opened.count == 1, "\(refusal): exactly one attempt")
        #expect(bench.host.rejections[refusal.reason] == 1)
        #expect(reason.closeCode == .policyViolation)
        let refused = bench.events.all.first { $0.kind == .refused }
        #expect(refused?.refusal?.reason == refusal.reason)
        if refusal.name == "replayed" || refusal.name == "another room" || refusal.name == "refused by the game" {
            #expect(refused?.identity != nil, "\(refusal): a token that opened names its player in the refusal event")
        }
    }

    @Test("a session that joined by token resumes with its resume token, sending no connect token, and keeps its identity")
    func resumeUsesTheResumeToken() throws {
        let bench = try Bench()
        let url = try WebSocketURL("ws://127.0.0.1:\(bench.port)/red")
        var configuration = ClientConfiguration()
        configuration.connectToken = try Self.token(user: 5, name: "Bo")
        let session = ClientSession(game: DotsGame(orbCount: 1), clock: bench.clock, configuration: configuration)
        let first = try WebSocketClientTransportConnection(url: url)
        session.connect(over: first)
        let deadline = bench.clock.now + .seconds(10)
        while bench.clock.now < deadline, session.resumeToken == nil {
            bench.host.advance()
            session.tick(input: nil)
            bench.clock.sleep(until: bench.clock.now + .milliseconds(2))
        }
        let id = try #require(session.clientID, "joined by token")
        #expect(session.connectToken == nil, "the welcome spent the token")
        first.close()
        let second = try WebSocketClientTransportConnection(url: url)
        defer { second.close() }
        session.connect(over: second)
        while bench.clock.now < deadline, !bench.events.all.contains(where: { $0.kind == .resumed }) {
            bench.host.advance()
            session.tick(input: nil)
            bench.clock.sleep(until: bench.clock.now + .milliseconds(2))
        }
        let resumed = try #require(bench.events.all.first { $0.kind == .resumed }, "the session resumed: \(bench.events.all)")
        #expect(resumed.clientID == id)
        #expect(resumed.identity?.userID == 5 && resumed.identity?.displayName == "Bo", "the resumed player keeps its identity")
        #expect(bench.host.rejections.isEmpty, "nothing was refused: \(bench.host.rejections)")
        #expect(bench.requests.all.map(\.isResuming) == [false, true])
        #expect(bench.requests.all.last?.identity?.userID == 5, "admit sees the identity of a resumed session too")
    }

    @Test("with requiresTokens off, a client without a token plays anonymously, as before")
    func anonymousPlay() throws {
        let bench = try Bench(requiresTokens: false)
        let (client, _) = try bench.client(room: "red", token: nil)
        defer { client.leave() }
        client.start()
        bench.run([client]) { !bench.added.all.isEmpty }
        let added = bench.added.all
        #expect(added.count == 1, "the anonymous client joined")
        #expect(added.first?.1 == nil, "with no identity")
    }

    @Test("at the used-token limit a new token is refused as tokens exhausted, and the client may try again")
    func exhausted() throws {
        let bench = try Bench(maximumUsedTokens: 1)
        let (first, _) = try bench.client(room: "red", token: try Self.token(user: 1))
        defer { first.leave() }
        first.start()
        bench.run([first]) { first.session.clientID != nil }
        try #require(first.session.clientID != nil, "the limit's one token joins: \(first.state)")
        let (second, opened) = try bench.client(room: "red", token: try Self.token(user: 2))
        defer { second.leave() }
        second.start()
        bench.run([first, second]) { (bench.host.rejections[.tokensExhausted] ?? 0) >= 2 }
        #expect((bench.host.rejections[.tokensExhausted] ?? 0) >= 2, "one past the limit is refused, and the client tries again")
        #expect(!second.state.isFinal, "tokens exhausted is not final: \(second.state)")
        #expect(opened.count >= 2)
    }
}

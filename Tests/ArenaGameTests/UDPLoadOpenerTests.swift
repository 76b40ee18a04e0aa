import Dispatch
import Testing
import TickwireFoundation
import TickwireIO
import TickwireSim
import TickwireUDPTransport

@testable import ArenaGame

/// The load tool's players over UDP on loopback: the ``UDPLoadOpener`` each player opens with,
/// ``ReconnectingSession``s ticked as `tickwire load` ticks them, and ``ConnectionOutcomes``
/// counting what the server refused.
@Suite("tickwire load's players over UDP")
struct UDPLoadOpenerTests {
    /// Runs `arena serve` on 127.0.0.1 (WebSocket and UDP on port 0), calls `check` with its UDP
    /// URL (token port set), then stops it and waits at most 10 s.
    func withServer(tokenLimit: Int, players: Int? = nil, _ check: (ArenaUDPURL, ArenaServer) throws -> Void) throws {
        var options = ArenaServer.Options()
        if let players {
            options.roomCapacity = players
            options.maximumRooms = 1
        }
        options.port = 0
        options.udpPort = 0
        options.bots = 0
        options.tickThreads = 1
        options.maximumTokenRequestsPerAddress = tokenLimit
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        let udpPort = try #require(running.server.udpPort, "the server should bind a UDP port")
        var url = try ArenaUDPURL("udp://127.0.0.1:\(udpPort)/main")
        url.tokenPort = running.server.port
        try check(url, running.server)
    }

    /// Players as the load tool makes them: prediction off, each from `sources[i]`, on one loop.
    func players(_ count: Int, url: ArenaUDPURL, sources: [String], loop: EventLoop, clock: MonotonicClock)
        -> [(ReconnectingSession<Arena>, UDPLoadOpener)]
    {
        var configuration = ClientConfiguration()
        configuration.predictsLocalPlayer = false
        configuration.room = "main"
        return (0..<count).map { index in
            let opener = UDPLoadOpener(
                url: url, source: SocketAddress(numericHost: sources[index % sources.count], port: 0), loop: loop)
            let session = ReconnectingSession(
                game: Arena(), clock: clock, configuration: configuration, entryURLs: [url.description],
                policy: ReconnectPolicy(baseDelay: .milliseconds(100), maximumDelay: .milliseconds(200), maximumAttempts: 2)
            ) { _ in try opener.open() }
            return (session, opener)
        }
    }

    @Test("four players fetch a token each from their source addresses, connect over UDP and receive snapshots at the tick rate")
    func playersConnectAndReceive() throws {
        try withServer(tokenLimit: TokenRequestBudget.defaultLimit) { url, server in
            let loop = try EventLoop()
            try loop.start()
            defer { loop.stop() }
            let clock = MonotonicClock()
            let players = players(4, url: url, sources: ["127.0.0.2", "127.0.0.3"], loop: loop, clock: clock)
            for (session, _) in players { session.start() }
            defer { for (session, _) in players { session.leave() } }
            // Bounded: at most 10 s for every player to hold 20 snapshots.
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline, players.contains(where: { $0.0.session.metrics.snapshotsReceived < 20 }) {
                for (session, _) in players { session.tick(input: ArenaInput(moveX: 1, moveY: 0, fires: false)) }
                clock.sleep(until: clock.now + .milliseconds(33))
            }
            for (index, (session, opener)) in players.enumerated() {
                #expect(session.state == .connected(resumed: false), "player \(index) should be connected, is \(session.state)")
                #expect(session.connection is UDPClientTransportConnection, "player \(index) plays over UDP")
                #expect(
                    session.session.metrics.snapshotsReceived >= 20,
                    "player \(index) got \(session.session.metrics.snapshotsReceived) snapshots")
                #expect(opener.takeTokenFailure() == nil)
            }
            let statistics = try #require(server.udpTransport).statistics
            #expect(statistics.connectionsAccepted == 4)
        }
    }

    @Test("past the token budget of one address, an attempt is counted as a 429 naming the budget, its limit and the flag")
    func tokenRefusalCounted() throws {
        try withServer(tokenLimit: 2) { url, _ in
            let loop = try EventLoop()
            try loop.start()
            defer { loop.stop() }
            let clock = MonotonicClock()
            let players = players(3, url: url, sources: ["127.0.0.2"], loop: loop, clock: clock)
            var outcomes = ConnectionOutcomes()
            var counted = [Int](repeating: 0, count: players.count)
            for (session, _) in players { session.start() }
            defer { for (session, _) in players { session.leave() } }
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline,
                outcomes.explainedCount == 0 || players.prefix(2).contains(where: { $0.0.state != .connected(resumed: false) })
            {
                for (index, (session, opener)) in players.enumerated() {
                    session.tick(input: .idle)
                    if session.failedAttempts > counted[index] {
                        outcomes.record(failedAttemptOf: session, tokenFailure: opener.takeTokenFailure())
                        counted[index] = session.failedAttempts
                    }
                }
                clock.sleep(until: clock.now + .milliseconds(20))
            }
            #expect(
                players[0].0.state == .connected(resumed: false) && players[1].0.state == .connected(resumed: false),
                "the first two are within the budget")
            let text = outcomes.explainedText
            #expect(text.hasPrefix("429 too many UDP token requests from one address (limit 2)"), "got: \(text)")
            #expect(text.contains("--max-token-requests-per-address"), "got: \(text)")
        }
    }

    @Test("a player netcode.io denies (its one server full) is counted as refused, which the load tool's retry budget counts")
    func denialCountsAsRefusal() throws {
        try withServer(tokenLimit: TokenRequestBudget.defaultLimit, players: 1) { url, _ in
            let loop = try EventLoop()
            try loop.start()
            defer { loop.stop() }
            let clock = MonotonicClock()
            let players = players(2, url: url, sources: ["127.0.0.2", "127.0.0.3"], loop: loop, clock: clock)
            let (holder, _) = players[0]
            holder.start()
            defer { for (session, _) in players { session.leave() } }
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline, holder.state != .connected(resumed: false) {
                holder.tick(input: .idle)
                clock.sleep(until: clock.now + .milliseconds(20))
            }
            #expect(holder.state == .connected(resumed: false), "the first player takes the one slot")
            let (late, opener) = players[1]
            late.start()
            var outcomes = ConnectionOutcomes()
            var retries = RefusedRetries(limit: 0)
            var gaveUp = false
            while clock.now < deadline, !gaveUp {
                holder.tick(input: .idle)
                late.tick(input: .idle)
                if late.failedAttempts > 0 {
                    let wasRefused = outcomes.record(failedAttemptOf: late, tokenFailure: opener.takeTokenFailure())
                    #expect(wasRefused, "a denial is the server's answer, not a fault")
                    gaveUp = wasRefused && retries.recordRefusal()
                    break
                }
                clock.sleep(until: clock.now + .milliseconds(20))
            }
            #expect(gaveUp, "with no retries the one refusal gives up")
            #expect(outcomes.failures[.netcodeDenied] == 1, "counted as netcode.io's denial: \(outcomes.failuresText)")
        }
    }
}

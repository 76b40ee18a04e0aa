import ArenaGame
import CommandLineSupport
import Foundation
import Synchronization
import TickwireCodec
import TickwireFoundation
import TickwireMatchmaker
import TickwireSim
import TickwireUDPTransport
import TickwireWebSocket
import TickwireWebSocketTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tickwire load ws://HOST:PORT/ROOM [ws://HOST2:PORT …] --clients N --duration S [--ramp S] [--json]`:
/// runs N simulated arena players in this process, each a real WebSocket connection driven by a
/// ``ReconnectingSession`` (inputs at the tick rate, acknowledgements, pings), and reports what
/// they saw and what the server reported in its stats messages.
///
/// Several URLs are a fleet's entries: the players enter through them in turn (each one's
/// others after it, as a load balancer would spread them; the players of one room through
/// different entries), and the library's session follows the
/// fleet's redirects and moved disconnects by itself, as `arena join` does; the report counts
/// the redirects and moves followed.
///
/// `--rooms N` spreads the players round robin over the N rooms `arena serve --rooms N` opens
/// (`main`, `room2`, …; the URL's path is then not used), as a game server hosting many
/// matches would see them.
///
/// `udp://HOST:PORT/ROOM` runs the same players over the UDP transport (netcode.io 1.02 with
/// Tickwire's packet layer): before each connection a player fetches a guest token from the
/// server's `GET /udp-token` on the token port (the UDP port − 1, `arena serve`'s WebSocket
/// port, unless `--token-port`), from its source address. A refused fetch is reported with its
/// HTTP status and the budget the server named; netcode.io's denials and timeouts by name.
///
/// `--source-addresses` spreads the players' connections over local addresses, so that a
/// server's per-address budgets (64 connections and 16 handshakes from one address by
/// default) count each address apart; against a loopback server on Linux the players leave
/// from 127.0.0.2 up, 16 to an address, unless told otherwise. Every refusal is reported with
/// its HTTP status or close code, what it means, the budget's value when the server named it,
/// and the flag that changes it. A player the server refuses (netcode.io's denial, an HTTP
/// status, a close code) retries `--refused-retries` times (``RefusedRetries``, 2 by default)
/// and then gives up, counted as such, rather than hammering the server for the whole run.
///
/// One driver thread (`--drivers`, default 1) ticks every session; the sockets run on a few
/// shared event loops (`--loops`, default 2), never a thread per client. With several drivers
/// each ticks every `drivers`-th player. Prediction is off: a load client
/// decodes and acknowledges snapshots but does not replay its inputs.
enum LoadCommand {
    /// One simulated player.
    final class Player {
        let connection: ReconnectingSession<Arena>
        var session: ClientSession<Arena> { connection.session }
        var random: SplitMix64
        var input = ArenaInput.idle
        var startedAt: Timestamp
        var everConnected = false
        var wasConnected = false
        var failed = false
        /// The session's failed attempts counted so far (each is classified once).
        var failuresCounted = 0
        /// The retries the player has left after refused attempts (`--refused-retries`).
        var refusedRetries: RefusedRetries
        var disconnects = 0

        /// Over UDP, what opens the player's connections (and keeps why a token fetch failed).
        let udpOpener: UDPLoadOpener?
        /// Through a matchmaker, what asks it for the player's seats (and keeps why a request failed).
        let matchmakerOpener: MatchmakerLoadOpener?

        init(
            connection: ReconnectingSession<Arena>, udpOpener: UDPLoadOpener?, matchmakerOpener: MatchmakerLoadOpener? = nil,
            refusedRetries: RefusedRetries, seed: UInt64, now: Timestamp
        ) {
            self.connection = connection
            self.udpOpener = udpOpener
            self.matchmakerOpener = matchmakerOpener
            self.refusedRetries = refusedRetries
            random = SplitMix64(seed: seed)
            startedAt = now
        }

        /// A wandering input: a new direction about once a second, firing now and then.
        func nextInput() -> ArenaInput {
            if random.next() % 30 == 0 {
                input = ArenaInput(moveX: Int(random.next() % 3) - 1, moveY: Int(random.next() % 3) - 1, fires: random.next() % 4 == 0)
            }
            return input
        }
    }

    /// How lost players come back: after 1 s at first (up to 5 s, half of it jitter), so that a
    /// wave of disconnects does not return in one tick.
    static let reconnectPolicy = ReconnectPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(5), jitter: 0.5)

    /// What `tickwire load` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire load",
        synopsis: [
            "ws://HOST:PORT/ROOM [ws://HOST2:PORT/ROOM …] [options]", "wss://HOST:PORT/ROOM [--ca CA.pem] [options]",
            "udp://HOST:PORT/ROOM [--token-port P] [options]",
            "--matchmaker http://HOST:PORT [--mode M] [options]",
        ],
        summary: """
            N simulated arena players over real WebSockets, or over UDP (netcode.io, a guest token per
            connection from the server's GET /udp-token); reports connections, snapshots, bytes per
            client, snapshot age, the server's tick p99 and CPU, and its own CPU. Several URLs are a
            fleet's entries, spread over the players; redirects are followed. The players leave from
            several local addresses (--source-addresses), and every refusal is reported with its HTTP
            status or close code, what it means, the server's limit and the flag that changes it.
            With --matchmaker, each player asks the matchmaker for a seat (joinOrCreate, from its source
            address) and joins it with its token; the report counts the matchmaker's refusals by status
            and code, the rooms seen, and the largest room's players against its capacity.
            """,
        options: [
            .value("clients", "N", default: "100", "simulated players, 1...20000"),
            .value("duration", "S", default: "60", "seconds measured after the ramp"),
            .value("ramp", "S", default: "10", "seconds over which the players join"),
            .value("rate", "HZ", default: "30", "inputs per second per player, 1...240"),
            .value(
                "rooms", "N", default: "0: the URL's room",
                "spread the players over the N rooms of `arena serve --rooms N` (main, room2, …)"),
            .value("drivers", "N", default: "1", "threads that tick the players, 1...8"),
            .value("loops", "N", default: "2", "event loops the sockets share, 1...16"),
            .value("seed", "N", default: "1", "seed of the players' wandering inputs"),
            .value(
                "source-addresses", "A-B,C", default: "on loopback (Linux): 127.0.0.2 up, 16 clients each",
                "spread the clients over these local addresses (IPv4 ranges and comma lists: 127.0.0.2-127.0.0.50)"),
            .value("ca", "CA.pem", "check a wss:// server's certificate against this CA (default: the system's)"),
            .value("token-port", "P", default: "the UDP port − 1", "udp://: the HTTP port of the server's GET /udp-token"),
            .value("matchmaker", "http://HOST:PORT", "ask this matchmaker for each player's seat instead of giving URLs"),
            .value("mode", "M", default: "arena", "with --matchmaker: the mode the players ask seats in"),
            .value(
                "refused-retries", "N", default: "\(RefusedRetries.defaultLimit)",
                "retries of a player the server refused (netcode.io denied, 429, a close code) before it gives up, 0...\(RefusedRetries.maximumLimit)"
            ),
            .flag("json", "print the report as JSON"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let json = parsed.flag("json")
        let clientCount = try parsed.integer("clients", default: 100)
        let duration = try parsed.double("duration", default: 60)
        let ramp = try parsed.double("ramp", default: 10)
        let loopCount = try parsed.integer("loops", default: 2)
        let rate = try parsed.integer("rate", default: 30)
        let seed = UInt64(try parsed.integer("seed", default: 1))
        let driverCount = try parsed.integer("drivers", default: 1)
        let roomCount = try parsed.integer("rooms", default: 0)
        let refusedRetries = try parsed.integer("refused-retries", default: RefusedRetries.defaultLimit)
        var tls = TLSClientConfiguration()
        tls.caFile = parsed.string("ca")
        let sourceText = parsed.string("source-addresses")
        let tokenPort = try parsed.string("token-port").map { text throws(CommandArguments.UsageError) -> Int in
            guard let port = Int(text) else {
                throw CommandArguments.UsageError(description: "--token-port wants a whole number, not '\(text)'")
            }
            return port
        }
        let matchmakerURL = parsed.string("matchmaker")
        let mode = parsed.string("mode")
        try parsed.rejectUnknown()
        let matchmaker = try loadMatchmaker(
            matchmakerURL, mode: mode, positionals: parsed.positionals, tokenPort: tokenPort, rooms: roomCount)
        guard let text = parsed.positionals.first ?? matchmaker.map({ _ in "ws://matchmaker.invalid/" }) else {
            throw CommandArguments.UsageError(
                description:
                    "load wants a URL: tickwire load ws://HOST:PORT/ROOM [ws://HOST2:PORT/ROOM …] --clients N --duration S, or --matchmaker http://HOST:PORT"
            )
        }
        let udp = try udpURL(parsed.positionals, tokenPort: tokenPort)
        let url = try udp.map { try WebSocketURL($0.webSocketURL) } ?? WebSocketURL(text)
        let entries = try udp.map { [$0.description] } ?? parsed.positionals.map { try WebSocketURL($0).description }
        guard (1...20_000).contains(clientCount) else { throw CommandArguments.UsageError(description: "--clients must be 1...20000") }
        guard duration > 0, ramp >= 0, (1...16).contains(loopCount), (1...240).contains(rate), (1...8).contains(driverCount),
            (0...64).contains(roomCount)
        else {
            throw CommandArguments.UsageError(
                description: "--duration must be > 0, --ramp >= 0, --loops 1...16, --rate 1...240, --drivers 1...8, --rooms 1...64")
        }
        guard (0...RefusedRetries.maximumLimit).contains(refusedRetries) else {
            throw CommandArguments.UsageError(description: "--refused-retries must be 0...\(RefusedRetries.maximumLimit)")
        }
        let hosts = try matchmaker.map { [$0.host] } ?? udp.map { [$0.host] } ?? parsed.positionals.map { try WebSocketURL($0).host }
        let sources: SourceAddressList?
        do throws(SourceAddressList.ParseError) {
            sources =
                try sourceText.map(SourceAddressList.init(parsing:)) ?? SourceAddressList.defaultList(clients: clientCount, hosts: hosts)
        } catch {
            throw CommandArguments.UsageError(description: error.description)
        }
        let rooms = roomCount > 0 ? ArenaServer.Options.roomNames(count: roomCount) : [String(url.path.drop { $0 == "/" })]

        let loops = try (0..<loopCount).map { _ throws(SystemError) -> EventLoop in
            let loop = try EventLoop()
            try loop.start()
            return loop
        }
        let clock = MonotonicClock()
        let plan = Plan(
            entries: entries, rooms: rooms, clients: clientCount, drivers: driverCount, duration: duration, ramp: ramp, rate: rate,
            seed: seed, tls: tls, sources: sources, udp: udp, matchmaker: matchmaker, mode: mode ?? "arena", refusedRetries: refusedRetries,
            loops: loops, clock: clock, start: clock.now, quiet: json)
        let given =
            entries.count > 1
            ? "\(entries.count) entry URLs (\(entries.joined(separator: " ")))"
            : udp.map { "\($0) (tokens from http://\($0.host):\($0.tokenPort)\(ArenaUDP.tokenPath))" } ?? "\(url)"
        let through = matchmaker.map { "seats from the matchmaker at \($0.url) (mode \(mode ?? "arena"))" } ?? given
        let placement = rooms.count > 1 ? "\(through) in \(rooms.count) rooms" : through
        if !json {
            print(
                "load: \(clientCount) clients on \(placement), ramp \(ramp) s, then \(duration) s at \(rate) Hz, \(driverCount) driver threads, \(loopCount) socket loops"
            )
            print(
                "source addresses: "
                    + (sources.map { "\($0), at most \($0.clientsPerAddress(clients: clientCount)) clients each" }
                        ?? "the kernel's choice (one address for every client)"))
        }
        let results = Mutex<[LoadReport]>([])
        let threads = (0..<driverCount).map { shard in
            Thread {
                let report = drive(plan, shard: shard)
                results.withLock { $0.append(report) }
            }
        }
        for thread in threads { thread.start() }
        clock.sleep(until: plan.start + .secondsValue(ramp))
        var cpu = CPUUsage(now: clock.now)
        let measureFrom = clock.now
        // Bounded wait: the drivers end at the deadline; allow them 30 s more to finish.
        let deadline = plan.start + .secondsValue(ramp + duration + 30)
        while results.withLock({ $0.count }) < driverCount, clock.now < deadline { clock.sleep(until: clock.now + .milliseconds(50)) }
        var report = LoadReport(clients: clientCount, duration: duration, ramp: ramp)
        report.outcomes.refusedRetries = refusedRetries
        report.rooms = rooms.count
        report.transport = udp == nil ? "websocket" : "udp"
        if let matchmaker {
            // The matchmaker's own count of each room, for the capacities and rooms over them.
            var figures = report.matchmaker ?? MatchmakerLoadFigures()
            do throws(MatchmakerClientError) {
                figures.listing = try matchmaker.roomsNow(mode: mode ?? "arena")
            } catch {
                figures.listingFailure = error.description
            }
            report.matchmaker = figures
        }
        report.sourceAddresses = sources
        for part in results.withLock({ $0 }) { report.merge(part) }
        report.failed += clientCount - report.connected - report.failed
        let finished = clock.now
        report.loadCPUShare = cpu.sample(now: finished)
        report.measuredSeconds = (finished - measureFrom).secondsValue
        for loop in loops { loop.stop() }
        print(json ? report.json() : report.text())
    }

    /// What every driver thread shares: every field is immutable and Sendable.
    struct Plan: Sendable {
        /// The fleet's entry URLs (one for a single server).
        let entries: [String]
        /// The rooms the players join, round robin.
        let rooms: [String]
        let clients: Int
        let drivers: Int
        let duration: Double
        let ramp: Double
        let rate: Int
        let seed: UInt64
        /// How a `wss://` URL's server is checked (`--ca`).
        let tls: TLSClientConfiguration
        /// The local addresses the players leave from, round robin, or `nil` for the kernel's choice.
        let sources: SourceAddressList?
        /// The server's UDP URL when the players play over UDP, else `nil` (WebSocket).
        let udp: ArenaUDPURL?
        /// The matchmaker each player asks for its seats (`--matchmaker`), else `nil` (the URLs given).
        let matchmaker: Matchmaker?
        /// The mode the players ask seats in (`--mode`).
        let mode: String
        /// Retries after refused attempts before a player gives up (`--refused-retries`).
        let refusedRetries: Int
        let loops: [EventLoop]
        let clock: MonotonicClock
        let start: Timestamp
        let quiet: Bool
    }

    /// Runs one driver thread's share of the players (every `drivers`-th one) to the end of the run.
    static func drive(_ plan: Plan, shard: Int) -> LoadReport {
        let clock = plan.clock
        let clientCount = (plan.clients - shard + plan.drivers - 1) / plan.drivers
        let ramp = plan.ramp, rate = plan.rate, loops = plan.loops
        var configuration = ClientConfiguration()
        configuration.predictsLocalPlayer = false
        let game = Arena()
        var tlsConfiguration = WebSocketClientConfiguration()
        tlsConfiguration.tls = plan.tls
        let socketConfiguration = tlsConfiguration
        var players: [Player] = []
        players.reserveCapacity(clientCount)
        var report = LoadReport(clients: clientCount, duration: plan.duration, ramp: ramp)
        report.outcomes.refusedRetries = plan.refusedRetries

        let start = plan.start
        let end = start + .secondsValue(ramp + plan.duration)
        let measureFrom = start + .secondsValue(ramp)
        var measuring = false
        let period = Duration.nanoseconds(1_000_000_000 / Int64(rate))
        var nextTick = start
        var nextSample = start + .seconds(1)
        let json = plan.quiet || shard != 0
        let seed = plan.seed &+ UInt64(shard) &* 0x1_0000_0001

        /// Player `index`'s session: its entries start at its own URL, its connections on its loop.
        func makePlayer(index: Int, now: Timestamp) -> Player {
            let overall = index * plan.drivers + shard
            configuration.room = plan.rooms[overall % plan.rooms.count]
            // Each round of players over the rooms starts one entry further on, so a room's players
            // come in through different processes (the first of each room through entry k mod n).
            let first = overall + overall / plan.rooms.count
            let entries = plan.entries.indices.map { plan.entries[(first + $0) % plan.entries.count] }
            let loop = loops[overall % loops.count]
            var playerSocketConfiguration = socketConfiguration
            playerSocketConfiguration.localAddress = plan.sources?.address(forClient: overall)
            let clientSocketConfiguration = playerSocketConfiguration
            if var matchmaker = plan.matchmaker {
                // The seat request leaves from the player's address, as its connection does.
                matchmaker.source = plan.sources?.address(forClient: overall)
                let opener = MatchmakerLoadOpener(matchmaker: matchmaker, mode: plan.mode, name: "load\(overall)")
                var seated = configuration
                seated.room = nil
                let connection = ReconnectingSession(
                    game: game, clock: clock, configuration: seated, entryURLs: [], policy: LoadCommand.reconnectPolicy,
                    seed: seed &+ UInt64(overall)
                ) { text in
                    try WebSocketClientTransportConnection(
                        url: try WebSocketURL(text), configuration: clientSocketConfiguration, loop: loop)
                }
                connection.rejoiner = { try opener.ticket() }
                // The first seat comes from the matchmaker too, before the first attempt.
                connection.isRejoinPending = true
                return Player(
                    connection: connection, udpOpener: nil, matchmakerOpener: opener,
                    refusedRetries: RefusedRetries(limit: plan.refusedRetries),
                    seed: seed &+ UInt64(index) &* 0x9E37_79B9, now: now)
            }
            if let udp = plan.udp {
                let opener = UDPLoadOpener(url: udp, source: plan.sources?.address(forClient: overall), loop: loop)
                let connection = ReconnectingSession(
                    game: game, clock: clock, configuration: configuration, entryURLs: entries, policy: LoadCommand.reconnectPolicy,
                    seed: seed &+ UInt64(overall)
                ) { _ in try opener.open() }
                return Player(
                    connection: connection, udpOpener: opener, refusedRetries: RefusedRetries(limit: plan.refusedRetries),
                    seed: seed &+ UInt64(index) &* 0x9E37_79B9, now: now)
            }
            let connection = ReconnectingSession(
                game: game, clock: clock, configuration: configuration, entryURLs: entries, policy: LoadCommand.reconnectPolicy,
                seed: seed &+ UInt64(overall)
            ) { text in
                try WebSocketClientTransportConnection(url: try WebSocketURL(text), configuration: clientSocketConfiguration, loop: loop)
            }
            return Player(
                connection: connection, udpOpener: nil, refusedRetries: RefusedRetries(limit: plan.refusedRetries),
                seed: seed &+ UInt64(index) &* 0x9E37_79B9, now: now)
        }

        while clock.now < end {
            clock.sleep(until: nextTick)
            nextTick = nextTick + period
            let now = clock.now
            if nextTick < now { nextTick = now }
            // Ramp: start clients linearly over the ramp time.
            let due = ramp <= 0 ? clientCount : min(clientCount, Int((now - start).secondsValue / ramp * Double(clientCount)) + 1)
            while players.count < due {
                // Player k of this driver is player k * drivers + shard overall.
                let player = makePlayer(index: players.count, now: now)
                player.connection.start()
                players.append(player)
            }
            if !measuring, now >= measureFrom {
                measuring = true
                for player in players { _ = player.session.takeSnapshotAges() }
                report.snapshotsAtStart = players.reduce(0) { $0 + $1.session.metrics.snapshotsReceived }
            }
            for player in players where !player.failed {
                player.connection.tick(input: player.nextInput())
                let connection = player.connection
                // Attempts that ended before a welcome, each counted once, by why.
                if connection.failedAttempts > player.failuresCounted, !player.wasConnected {
                    let wasRefused = report.outcomes.record(
                        failedAttemptOf: connection, tokenFailure: player.udpOpener?.takeTokenFailure(),
                        matchmakerFailure: player.matchmakerOpener?.takeFailure())
                    // A refused player retries a few times, then gives up instead of loading the server.
                    if wasRefused, player.refusedRetries.recordRefusal() {
                        report.outcomes.recordGaveUp()
                        player.failed = true
                        connection.leave()
                        continue
                    }
                }
                player.failuresCounted = connection.failedAttempts
                switch connection.state {
                case .connected:
                    player.everConnected = true
                    player.wasConnected = true
                case .refused(let reason, let text):
                    report.outcomes.recordRefusal(reason)
                    if reason == .redirect { report.disconnectReasons[text, default: 0] += 1 }
                    player.failed = true
                    continue
                case .refusedConnection(let refusal):
                    report.disconnectReasons["refused: \(refusal.status) \(refusal.reason)", default: 0] += 1
                    player.failed = true
                    continue
                case .kicked:
                    report.disconnectReasons["kicked", default: 0] += 1
                    player.failed = true
                    continue
                case .left:
                    player.failed = true
                    continue
                case .connecting, .waitingToReconnect:
                    if player.wasConnected {
                        player.wasConnected = false
                        player.disconnects += 1
                        report.disconnectReasons[DisconnectReasonKey.grouping(connection.lastFailure ?? "unknown"), default: 0] += 1
                    }
                    if !player.everConnected, now - player.startedAt > .seconds(15) {
                        player.failed = true
                        if case .connecting = connection.state { report.outcomes.recordFailure(.noWelcome) }
                    }
                }
                if measuring { report.ages.append(contentsOf: player.session.takeSnapshotAges()) }
            }
            if now >= nextSample {
                nextSample = nextSample + .seconds(1)
                var connected = 0, bytes = 0
                for player in players where player.session.status == .connected {
                    connected += 1
                    bytes += player.session.metrics.bytesInPerSecond
                }
                let stats = players.lazy.compactMap { $0.session.latestServerStats }.max { $0.tick < $1.tick }
                if measuring {
                    if connected > 0 { report.bytesPerClientSamples.append(Double(bytes) / Double(connected)) }
                    if let stats { report.serverSamples.append(stats) }
                }
                if !json {
                    let p99 = stats.map { decimalText(Double($0.tickDurationP99) / 1000, places: 2) } ?? "-"
                    let serverCPU = stats.map { "\($0.cpuPerMille / 10)%" } ?? "-"
                    print(
                        "driver 0: t+\(Int((now - start).secondsValue)) s  connected \(connected)/\(players.count)  server tick p99 \(p99) ms  server CPU \(serverCPU)  in \(connected > 0 ? bytes / connected : 0) B/s per client"
                    )
                    fflush(nil)
                }
            }
        }
        if plan.matchmaker != nil { report.matchmaker = MatchmakerLoadFigures() }
        for player in players {
            if let opener = player.matchmakerOpener {
                report.matchmaker?.record(
                    seats: opener.seats, connectedRoom: player.session.status == .connected ? player.session.room : nil)
            }
            if player.failed || !player.everConnected { report.failed += 1 } else { report.connected += 1 }
            if player.session.status == .connected { report.connectedAtEnd += 1 }
            report.disconnects += player.disconnects
            report.reconnects += player.connection.reconnects
            report.redirects += player.connection.redirectsFollowed
            report.moves += player.connection.movesFollowed
            report.snapshots += player.session.metrics.snapshotsReceived
            player.connection.leave()
        }
        report.failed += clientCount - players.count
        return report
    }

    /// The matchmaker of `--matchmaker URL`, checked against the other arguments, or `nil` without it.
    ///
    /// - Throws: ``CommandArguments/UsageError`` for URLs, `--token-port` or `--rooms` beside it,
    ///   `--mode` without it, or a URL that is not `http://HOST:PORT`.
    static func loadMatchmaker(_ url: String?, mode: String?, positionals: [String], tokenPort: Int?, rooms: Int) throws -> Matchmaker? {
        guard let url else {
            if mode != nil { throw CommandArguments.UsageError(description: "--mode goes with --matchmaker URL") }
            return nil
        }
        guard positionals.isEmpty, tokenPort == nil, rooms == 0 else {
            throw CommandArguments.UsageError(
                description: "with --matchmaker the matchmaker places the players: leave out the URLs, --token-port and --rooms")
        }
        do throws(MatchmakerClientError) {
            return try Matchmaker(url: url)
        } catch {
            throw CommandArguments.UsageError(description: error.description)
        }
    }

    /// The UDP URL when the positionals are one `udp://HOST:PORT/ROOM`, with its token port
    /// (`--token-port`, else the UDP port − 1); `nil` for WebSocket URLs.
    ///
    /// - Throws: ``CommandArguments/UsageError`` for a malformed UDP URL, several URLs with a
    ///   `udp://` one among them, or a token port out of range.
    static func udpURL(_ positionals: [String], tokenPort: Int?) throws -> ArenaUDPURL? {
        guard positionals.contains(where: { $0.hasPrefix("udp://") }) else {
            if tokenPort != nil { throw CommandArguments.UsageError(description: "--token-port goes with a udp:// URL") }
            return nil
        }
        guard positionals.count == 1 else {
            throw CommandArguments.UsageError(description: "load over UDP takes one udp://HOST:PORT/ROOM URL (no fleet entries)")
        }
        var url: ArenaUDPURL
        do throws(ArenaUDPURL.ParseError) {
            url = try ArenaUDPURL(positionals[0])
        } catch {
            throw CommandArguments.UsageError(description: error.description)
        }
        if let tokenPort {
            guard (1...65535).contains(tokenPort) else { throw CommandArguments.UsageError(description: "--token-port must be 1...65535") }
            url.tokenPort = tokenPort
        }
        return url
    }
}

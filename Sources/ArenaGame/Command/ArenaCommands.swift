import CommandLineSupport
import Tickwire

/// What each `arena` command accepts: the source of both its parser and the usage text its
/// `--help` prints (``CommandSyntax``), so that the two cannot drift apart.
///
/// The defaults shown are read from ``ArenaServer/Options`` where the server has them.
package enum ArenaCommands {
    /// The server's defaults, which the usage texts show.
    private static let defaults = ArenaServer.Options()

    /// The log levels, as `--log-level` names them.
    private static let levels = LogLevel.all.map(\.description).joined(separator: ", ")

    /// The bad-network options `arena` and `arena join` share.
    private static let badNetwork: [CommandOption] = [
        .value("lag", "MS", default: "0", "add this much delay each way, on purpose"),
        .value("jitter", "MS", default: "0", "vary that delay by up to this much"),
        .value(
            "loss", "PERCENT", default: "0",
            "lose this share of packets each way, 0...100: over ws:// and wss:// TCP retransmits them (frames wait, none is lost); over udp:// they are dropped"
        ),
    ]

    /// `arena` with no command: a server on this machine, played in this terminal.
    package static let play = CommandSyntax(
        name: "arena",
        synopsis: ["[--port P] [--bots N] [--tick HZ] [--name NAME] [--lag MS] [--jitter MS] [--loss PERCENT]", "COMMAND [options]"],
        summary: """
            starts a local server and plays on it in this terminal (the default); a second player joins
            with `arena join`, or a browser at the printed address.
            keys: WASD or arrows move, space fires, e fires the rail, n toggles the net graph, q quits
            """,
        options: [
            .value("port", "P", default: "\(defaults.port); any free one when taken", "the local server's port, 0...65535"),
            .value("bots", "N", default: "\(defaults.bots)", "bots in the room, 0...64"),
            .value("tick", "HZ", default: "\(defaults.tickRate)", "the server's tick rate, 1...240"),
            .value("name", "NAME", default: "$USER", "your name in the game"),
        ] + badNetwork,
        subcommands: [
            .init("serve", "run a headless server (rooms, bots, TLS, a fleet's room directory, metrics)"),
            .init("join", "join a server: play in this terminal, or headless with a script"),
            .init("matchmaker", "answer the matchmaker's HTTP requests alone, for a fleet on Redis"),
            .init("help", "this text"),
        ])

    /// The matchmaker's options, which `arena serve` (with `--redis` and `--udp-key`) and
    /// `arena matchmaker` share (Protocol/MATCHMAKER.md).
    private static let matchmakerOptions: [CommandOption] = [
        .value(
            "match-capacity", "N", default: "the room capacity; \(defaults.roomCapacity) for arena matchmaker",
            "players in each room the matchmaker makes (mode arena), at most the room capacity of the processes"),
        .value(
            "jwt-secret", "SECRET",
            "the matchmaker admits only players with an HS256 bearer token signed with SECRET, under the token's name (default: guests)"),
        .value(
            "max-matchmaker-requests-per-address", "N", default: "\(TokenRequestBudget.defaultLimit)",
            "matchmaker requests from one address at once, refilled every \(Int(TokenRequestBudget.window)) s (0: no limit)"),
    ]

    /// `arena matchmaker`: the matchmaker alone, on a fleet's Redis.
    package static let matchmaker = CommandSyntax(
        name: "arena matchmaker", synopsis: ["--redis redis://HOST:PORT --udp-key FILE [options]"],
        summary: """
            answers the matchmaker's HTTP requests (Protocol/MATCHMAKER.md: POST /matchmake/…, GET /rooms)
            for a fleet of `arena serve --redis … --udp-key …` processes, without running rooms itself: it
            reserves seats in the fleet's Redis and mints connect tokens with the fleet's key.
            """,
        options: [
            .value("host", "H", default: defaults.host, "the address to listen on (0.0.0.0 or :: for every one)"),
            .value("port", "P", default: "\(defaults.port)", "the port to listen on, 0...65535 (0: any free one)"),
            .value("redis", "redis://HOST:PORT", "the fleet's Redis (required)"),
            .value("udp-key", "FILE", "the fleet's connect-token key, as every `arena serve --udp-key` reads it (required)"),
            .value("tls-cert", "CHAIN.pem", "answer over https (TLS 1.2/1.3) with this certificate chain (with --tls-key)"),
            .value("tls-key", "KEY.pem", "the private key for --tls-cert"),
        ] + matchmakerOptions + [
            .value("log-level", "LEVEL", default: "info", "log records from LEVEL up to standard error: \(levels)")
        ])

    /// `arena serve`: a headless server.
    package static let serve = CommandSyntax(
        name: "arena serve", synopsis: ["[options]"],
        summary: """
            runs a headless server and prints a status line every few seconds; GET /metrics on its port
            answers in the Prometheus text format, and GET / serves the browser client.
            SIGTERM drains a fleet process (saves and releases its rooms, sends its players elsewhere) and
            stops; SIGHUP reloads the --tls-cert and --tls-key files.
            """,
        options: [
            .value("host", "H", default: defaults.host, "the address to listen on (0.0.0.0 or :: for every one)"),
            .value("port", "P", default: "\(defaults.port)", "the port to listen on, 0...65535 (0: any free one)"),
            .value(
                "udp-port", "P", default: "--port + 1; 0 with --port 0",
                "also serve udp:// (netcode.io) here, 0...65535 (0: any free one); tokens: GET /udp-token"),
            .value(
                "udp-servers", "N", default: "enough for --rooms × --capacity at 256 each",
                "netcode.io servers on ports --udp-port, +1, …, 1...\(ArenaUDPServers.maximumCount) (a token names them all, "
                    + "the least loaded first; one holds \(Netcode.maxClients) players)"),
            .flag("no-udp", "serve no udp://"),
            .value(
                "max-udp-requests-per-address", "N", default: "\(defaults.maximumUDPRequestsPerAddress)",
                "netcode.io connection requests read from one IP a second and at once, 1 or more; past it dropped"),
            .value(
                "udp-key", "FILE", default: "a fresh key per start",
                "seal UDP connect tokens with the key in FILE, made on first start; a fleet's processes share one"),
            .value("bots", "N", default: "\(defaults.bots)", "bots per room, 0...64"),
            .value("tick", "HZ", default: "\(defaults.tickRate)", "the tick rate, 1...240"),
            .value("rooms", "N", default: "1", "rooms opened at start, 1...64 (main, room2, …)"),
            .value("capacity", "N", default: "\(defaults.roomCapacity)", "players per room, 1...10000"),
            .value("max-rooms", "N", default: "\(defaults.maximumRooms)", "rooms at most, those the URL's path opens on demand included"),
            .value(
                "idle-room-timeout", "S", default: "\(Int(defaults.idleRoomTimeout))",
                "close a room opened on demand after this long without players"),
            .value(
                "resume-grace", "S", default: "\(Int(defaults.resumeGracePeriod))",
                "keep a dropped player's place this long (2 s if it never sent an input)"),
            .value("hello-timeout", "S", default: "\(Int(defaults.helloTimeout))", "seconds a connection may stay silent before its hello"),
            .value("client-timeout", "S", default: "\(Int(defaults.clientTimeout))", "seconds a playing connection may stay silent"),
            .value(
                "threads", "N", default: "one per processor", "tick the rooms on N threads, 1...\(HostConfiguration.maximumTickThreads)"),
            .value("compression", "MODE", default: "perframe", "perframe, streaming or none: the compression preferred"),
            .value("compression-level", "L", default: "\(defaults.compressionLevel)", "the zlib level, 0...9"),
            .flag(
                "require-tokens",
                "admit only players with a connect token sealed with --udp-key's key (PROTOCOL.md 5.3.1); no guest tokens"),
            .flag("entropy-deltas", "code snapshots with the motion-predicted entropy coder (PROTOCOL.md 4.5) for clients that offer it"),
            .value("state", "FILE", "save rooms and players to FILE every second and on exit; restore them on start"),
            .value("tls-cert", "CHAIN.pem", "serve wss:// (TLS 1.2/1.3) with this certificate chain (with --tls-key)"),
            .value("tls-key", "KEY.pem", "the private key for --tls-cert"),
            .value(
                "max-connections-per-address", "N", default: "\(defaults.maximumConnectionsPerAddress)",
                "connections from one address, IPv6 by /64 (0: no limit)"),
            .value(
                "max-handshakes-per-address", "N", default: "\(defaults.maximumHandshakesPerAddress)",
                "handshakes under way from one address (0: no limit)"),
            .value(
                "max-token-requests-per-address", "N", default: "\(defaults.maximumTokenRequestsPerAddress)",
                "GET /udp-token requests from one address at once, refilled every \(Int(TokenRequestBudget.window)) s (0: no limit)"),
            .value(
                "write-timeout", "S", default: "\(Int(defaults.writeTimeout))",
                "close with 1008 a client whose sends stay backed up this long (0: never)"),
            .flag("no-metrics", "do not answer GET /metrics"),
            .value(
                "redis", "redis://HOST:PORT",
                "join a fleet whose room directory is this Redis (needs --public-url; registers udp://HOST:UDP-PORT too)"),
            .value("public-url", "ws://HOST:PORT", "where other processes of the fleet send this process's clients"),
        ] + matchmakerOptions + [
            .value("status-interval", "S", default: "5", "seconds between status lines"),
            .value("log-level", "LEVEL", default: "info", "log records from LEVEL up to standard error: \(levels)"),
        ])

    /// `arena join`: a client in this terminal, or headless with a script.
    package static let join = CommandSyntax(
        name: "arena join",
        synopsis: [
            "ws://HOST:PORT/ROOM [ws://HOST2:PORT …] [--name NAME] [--lag MS] [--jitter MS] [--loss PERCENT]",
            "udp://HOST:PORT/ROOM [--token-port P] …",
            "wss://HOST:PORT/ROOM [--ca CA.pem] [--insecure-skip-verification-for-local-testing-only] …",
            "--matchmaker http://HOST:PORT [--mode M] [--room R] [--bearer TOKEN] [--name NAME] …",
            "URL --script \"d5 w3 space _10\" [--frames N] [--dump] [--record FILE]",
        ],
        summary: """
            joins a server; more URLs are more processes of a fleet, tried in turn when one fails
            (redirects to the room's process are followed by themselves); wss:// checks the server's
            certificate against the system's CAs or --ca. With --matchmaker, a matchmaker (Protocol/MATCHMAKER.md)
            gives the seat: its room, URL and connect token; past the resume grace period the client asks
            it again for a seat of the same mode. Log lines wait while the game's screen is up.
            keys: WASD or arrows move, space fires, e fires the rail, n toggles the net graph, q quits
            --dump's header: `--- frame N · you … · net KEY VALUE … · STATUS ---`, the net graph's figures as
            pairs: time (s since the first frame), transport, ping and ping-worst (median and worst of
            the last 16 pongs), jitter, interp, age (of the newest snapshot), since-snapshot, input and
            input-worst (from sending an input to the server tick that applied it: the newest and the
            worst of the last 16), all in ms;
            buffer, tick (the newest snapshot's), extrapolated E/F frames, corrections C/S snapshots since
            the start; over udp:// also loss (% of the client's packets never acknowledged), link-rtt and
            link-jitter (ms, the UDP layer's own round trip from its acks, which wait for the server's next
            packet); `-` when not known yet
            """,
        options: [.value("name", "NAME", default: "player", "your name in the game (sent to a matchmaker as the \"name\" option)")]
            + badNetwork + [
                .value(
                    "matchmaker", "http(s)://HOST:PORT",
                    "ask this matchmaker for a seat (joinOrCreate) instead of giving a URL (https: checked as wss:// is, --ca)"),
                .value("mode", "M", default: "arena", "with --matchmaker: the mode to ask a seat in"),
                .value("room", "R", "with --matchmaker: join this room by its name (joinById), a private one too"),
                .value("bearer", "TOKEN", "with --matchmaker: a JSON Web Token sent as Authorization: Bearer (else a guest)"),
                .value("script", "SCRIPT", "play headless: moves and shots such as \"d5 w3 space _10\""),
                .value("frames", "N", default: "300", "with --script: ticks to play"),
                .flag("dump", "with --script: print every frame as text, its header with the net graph's figures"),
                .flag(
                    "free-running-frames",
                    "tick at a phase of the client's own, not just after the snapshots arrive (the newest snapshot then waits up to a tick)"
                ),
                .value("width", "COLUMNS", default: "80", "with --script: the screen's width"),
                .value("height", "ROWS", default: "24", "with --script: the screen's height"),
                .value("record", "FILE", "write every frame to FILE, for `tickwire inspect FILE`"),
                .value(
                    "token-port", "P", default: "the UDP port − 1", "with udp://: the HTTP port whose GET /udp-token gives a connect token"),
                .flag("token-tls", "with udp://: the token port speaks https (an arena serve over TLS; checked as wss:// is, --ca)"),
                .value("ca", "CA.pem", "check a wss:// server's (and an https matchmaker's) certificate against this CA"),
                .flag("insecure-skip-verification-for-local-testing-only", "accept any wss:// or https certificate (local tests only)"),
                .value("log-level", "LEVEL", default: "warning", "log records from LEVEL up to standard error: \(levels)"),
            ])
}

import ArenaGame
import CommandLineSupport
import Foundation
import Synchronization
import Tickwire

// `arena`: the terminal multiplayer demo. Thin: parse arguments, call ArenaGame.

/// Ends the program with a message on standard error and the usage errors' status, 2.
func fail(_ message: String) -> Never {
    StandardError.write("arena: \(message)\n")
    exit(2)
}

/// The level `--log-level` names, or `defaultLevel` without it; a name that is no level ends the program.
func logLevel(_ parsed: inout CommandArguments, default defaultLevel: LogLevel) -> LogLevel {
    guard let name = parsed.string("log-level") else { return defaultLevel }
    guard let level = LogLevel(name: name) else {
        fail("--log-level must be one of \(LogLevel.all.map(\.description).joined(separator: ", ")), not '\(name)'")
    }
    return level
}

/// The stop flag SIGINT and SIGTERM raise for a headless server.
let serverStop = ServerStopRequest()

/// `arena serve` (``ArenaCommands/serve``): a headless server until SIGINT or SIGTERM.
func serve(_ arguments: CommandArguments) throws {
    var parsed = arguments
    var options = ArenaServer.Options()
    options.host = parsed.string("host") ?? options.host
    options.port = try parsed.integer("port", default: options.port)
    options.udpPort = try parsed.integer("udp-port", default: options.port == 0 ? 0 : options.port + 1)
    if parsed.flag("no-udp") { options.udpPort = nil }
    options.udpServerCount = try parsed.string("udp-servers").map { _ in try parsed.integer("udp-servers", default: 1) }
    options.udpKeyPath = parsed.string("udp-key")
    options.maximumUDPRequestsPerAddress = try parsed.integer("max-udp-requests-per-address", default: options.maximumUDPRequestsPerAddress)
    options.bots = try parsed.integer("bots", default: options.bots)
    options.tickRate = try parsed.integer("tick", default: options.tickRate)
    let roomCount = try parsed.integer("rooms", default: 1)
    options.roomCapacity = try parsed.integer("capacity", default: options.roomCapacity)
    options.compressionLevel = try parsed.integer("compression-level", default: options.compressionLevel)
    switch parsed.string("compression") ?? "perframe" {
    case "perframe": options.compressionPreference = [.perFrame, .streaming]
    case "streaming": options.compressionPreference = [.streaming, .perFrame]
    case "none": options.compressionPreference = []
    default: fail("--compression must be perframe, streaming or none")
    }
    guard (0...9).contains(options.compressionLevel) else { fail("--compression-level must be 0...9") }
    options.entropyDeltas = parsed.flag("entropy-deltas")
    options.requiresTokens = parsed.flag("require-tokens")
    let statusInterval = try parsed.double("status-interval", default: 5)
    options.statePath = parsed.string("state")
    options.maximumRooms = try parsed.integer("max-rooms", default: options.maximumRooms)
    options.idleRoomTimeout = try parsed.double("idle-room-timeout", default: options.idleRoomTimeout)
    options.resumeGracePeriod = try parsed.double("resume-grace", default: options.resumeGracePeriod)
    options.helloTimeout = try parsed.double("hello-timeout", default: options.helloTimeout)
    options.clientTimeout = try parsed.double("client-timeout", default: options.clientTimeout)
    options.tickThreads = try parsed.integer("threads", default: options.tickThreads)
    let certificateFile = parsed.string("tls-cert"), keyFile = parsed.string("tls-key")
    let perAddress = try parsed.integer("max-connections-per-address", default: options.maximumConnectionsPerAddress)
    let handshakesPerAddress = try parsed.integer("max-handshakes-per-address", default: options.maximumHandshakesPerAddress)
    let tokenRequests = try parsed.integer("max-token-requests-per-address", default: options.maximumTokenRequestsPerAddress)
    options.maximumTokenRequestsPerAddress = tokenRequests
    options.writeTimeout = try parsed.double("write-timeout", default: options.writeTimeout)
    options.servesMetrics = !parsed.flag("no-metrics")
    options.logLevel = logLevel(&parsed, default: .info)
    options.publicURL = parsed.string("public-url")
    if let url = options.publicURL {
        do throws(WebSocketURL.ParseError) { _ = try WebSocketURL(url) } catch { fail("--public-url: \(error)") }
    }
    let redisText = parsed.string("redis"), publicURL = options.publicURL
    let matchmakerOptions = try parseMatchmakerOptions(&parsed, defaultCapacity: options.roomCapacity)
    guard perAddress >= 0, handshakesPerAddress >= 0 else {
        fail("--max-connections-per-address and --max-handshakes-per-address must be 0 (no limit) or more")
    }
    guard options.maximumTokenRequestsPerAddress >= 0 else { fail("--max-token-requests-per-address must be 0 (no limit) or more") }
    guard options.writeTimeout >= 0 else { fail("--write-timeout must be 0 (none) or more seconds") }
    options.maximumConnectionsPerAddress = perAddress == 0 ? .max : perAddress
    options.maximumHandshakesPerAddress = handshakesPerAddress == 0 ? .max : handshakesPerAddress
    try parsed.rejectUnknown()
    if let certificateFile, let keyFile {
        do { options.tls = try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile) } catch {
            fail(error.description)
        }
    } else if certificateFile != nil || keyFile != nil {
        fail("--tls-cert and --tls-key go together")
    }
    if let path = options.statePath, path.isEmpty { fail("--state needs a file name") }
    guard (0...65535).contains(options.port) else { fail("--port must be 0...65535") }
    if let udpPort = options.udpPort, !(0...65535).contains(udpPort) { fail("--udp-port must be 0...65535 (or --no-udp)") }
    if let count = options.udpServerCount, !(1...ArenaUDPServers.maximumCount).contains(count) {
        fail(
            "--udp-servers must be 1...\(ArenaUDPServers.maximumCount): a connect token names at most \(ArenaUDPServers.maximumCount) addresses"
        )
    }
    guard options.maximumUDPRequestsPerAddress >= 1 else { fail("--max-udp-requests-per-address must be 1 or more") }
    guard (1...240).contains(options.tickRate) else { fail("--tick must be 1...240 Hz") }
    guard (0...64).contains(options.bots) else { fail("--bots must be 0...64") }
    guard (1...64).contains(roomCount) else { fail("--rooms must be 1...64") }
    guard (1...1024).contains(options.maximumRooms) else { fail("--max-rooms must be 1...1024") }
    guard (1...HostConfiguration.maximumTickThreads).contains(options.tickThreads) else {
        fail("--threads must be 1...\(HostConfiguration.maximumTickThreads)")
    }
    let durations = [
        ("idle-room-timeout", options.idleRoomTimeout), ("resume-grace", options.resumeGracePeriod),
        ("hello-timeout", options.helloTimeout), ("client-timeout", options.clientTimeout),
    ]
    for (name, seconds) in durations where !(0.05...86_400).contains(seconds) {
        fail("--\(name) must be 0.05...86400 seconds")
    }
    guard (1...10_000).contains(options.roomCapacity) else { fail("--capacity must be 1...10000") }
    options.rooms = ArenaServer.Options.roomNames(count: roomCount)
    options.maximumRooms = max(options.maximumRooms, roomCount)
    // The tick threads' freed memory stays with them rather than being faulted in anew every
    // tick (glibc's trim threshold; AllocatorTuning in TickwireSim).
    AllocatorTuning.keepFreedHeapMemory()
    // The fleet's room directory (#21): connects in the background; while Redis is down the
    // server runs its rooms standalone (README, "Running a fleet").
    var directory: RedisRoomDirectory?
    if let redisText {
        guard let publicURL, !publicURL.isEmpty else {
            fail("--redis needs --public-url ws://HOST:PORT (where clients reach this process)")
        }
        // Registered beside the public URL, so that other processes send UDP clients here with a token.
        var publicUDPURL: String?
        if let udpPort = options.udpPort {
            guard udpPort != 0 else { fail("--redis needs a fixed --udp-port (not 0), which the fleet registers, or --no-udp") }
            guard let url = ArenaUDP.publicURL(host: options.host, port: udpPort) else {
                fail("--redis with UDP needs a numeric --host, not '\(options.host)'")
            }
            publicUDPURL = url
        }
        do {
            directory = try RedisRoomDirectory(
                configuration: RedisDirectoryConfiguration(
                    url: try RedisURL(parsing: redisText), publicURL: publicURL, publicUDPURL: publicUDPURL))
        } catch { fail("--redis: \(error)") }
    }
    defer { directory?.stop() }
    // The fleet's matchmaker (Protocol/MATCHMAKER.md), on the same Redis, when the fleet shares a
    // token key: every process answers it, and checks the tokens any of them mints.
    var matchmakerStore: RedisMatchmaker?
    if let directory, options.udpKeyPath != nil {
        guard matchmakerOptions.capacity <= options.roomCapacity else {
            fail("--match-capacity must be 1...--capacity (\(options.roomCapacity))")
        }
        matchmakerStore = makeMatchmakerStore(
            redis: directory.configuration.url, keyPrefix: directory.configuration.keyPrefix, capacity: matchmakerOptions.capacity)
    }
    defer { matchmakerStore?.stop() }
    let matchmaking = matchmakerStore.map { store in
        ArenaMatchmaking(
            store: store, jwtSecret: matchmakerOptions.jwtSecret, requestsPerAddress: matchmakerOptions.requestsPerAddress)
    }
    let server = try ArenaServer(options: options, stopRequest: serverStop, directory: directory, matchmaking: matchmaking)
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber) { _ in serverStop.requestStop() }
    }
    let scheme = options.tls == nil ? "ws" : "wss"
    print(
        "arena server on \(scheme)://\(options.host):\(server.port)/ — rooms \(options.rooms.joined(separator: ", ")), \(options.bots) bots per room, \(options.tickRate) Hz, \(options.tickThreads) tick threads"
    )
    let shownHost =
        options.host == "0.0.0.0" || options.host == "::" ? "HOST" : options.host.contains(":") ? "[\(options.host)]" : options.host
    print("join with: swift run arena join \(scheme)://\(shownHost):\(server.port)/main --name YOU")
    print("open \(options.tls == nil ? "http" : "https")://\(shownHost):\(server.port)/ in a browser to play")
    if let udpPort = server.udpPort {
        let tokenPort = (udpPort == server.port + 1 ? "" : " --token-port \(server.port)") + (options.tls == nil ? "" : " --token-tls")
        let ports = server.udpPorts
        let servers =
            ports.count > 1 ? " (\(ports.count) netcode.io servers, UDP ports \(ports.map(String.init).joined(separator: ", ")))" : ""
        print("or over UDP: swift run arena join udp://\(shownHost):\(udpPort)/main\(tokenPort) --name YOU\(servers)")
    }
    let reload = options.tls.map { _ in reloadCertificatesOnHangup(server) }
    defer { reload?.cancel() }
    if let directory {
        let udp = directory.configuration.publicUDPURL.map { " and \($0)" } ?? ""
        print(
            "room directory: \(directory.configuration.url) as process \(directory.processID) at \(directory.configuration.publicURL)\(udp)"
        )
        if matchmaking != nil {
            let who = matchmakerOptions.jwtSecret == nil ? "guests" : "bearer tokens (--jwt-secret)"
            print(
                "matchmaker: POST /matchmake/joinOrCreate/\(ArenaMatchmaking.mode) and GET /rooms on this port, rooms of \(matchmakerOptions.capacity), for \(who)"
            )
        } else {
            print("matchmaker: off (it needs the fleet's shared --udp-key FILE, which seals its connect tokens)")
        }
    }
    if let path = options.statePath {
        switch server.stateRestore {
        case .none:
            print("state: \(path) does not exist yet; starting fresh, saving every \(decimalText(options.stateSaveInterval, places: 1)) s")
        case .restored(let rooms, let clients, let age):
            print(
                "state: restored \(rooms) room\(rooms == 1 ? "" : "s") and \(clients) resumable client\(clients == 1 ? "" : "s") from \(path), saved \(decimalText(age, places: 1)) s ago"
            )
        case .refused(let error):
            StandardError.write("arena: not restoring the state in \(path): \(error); starting fresh\n")
        }
    }
    fflush(nil)
    server.run(statusInterval: statusInterval) { line in
        print(line)
        fflush(nil)
    }
    print("arena server stopped")
}

/// What `arena serve` and `arena matchmaker` read of the matchmaker's options.
struct MatchmakerCommandOptions {
    var capacity: Int
    var jwtSecret: String?
    var requestsPerAddress: Int
}

/// `--match-capacity`, `--jwt-secret` and `--max-matchmaker-requests-per-address`.
func parseMatchmakerOptions(_ parsed: inout CommandArguments, defaultCapacity: Int) throws -> MatchmakerCommandOptions {
    let capacity = try parsed.integer("match-capacity", default: defaultCapacity)
    let requests = try parsed.integer("max-matchmaker-requests-per-address", default: TokenRequestBudget.defaultLimit)
    let secret = parsed.string("jwt-secret")
    guard capacity >= 1 else { fail("--match-capacity must be 1 or more") }
    guard requests >= 0 else { fail("--max-matchmaker-requests-per-address must be 0 (no limit) or more") }
    if let secret, secret.utf8.count < HS256WebToken.minimumSecretBytes {
        fail("--jwt-secret must be at least \(HS256WebToken.minimumSecretBytes) bytes (it is \(secret.utf8.count))")
    }
    return MatchmakerCommandOptions(capacity: capacity, jwtSecret: secret, requestsPerAddress: requests)
}

/// The fleet's matchmaker store on `redis`, under the directory's key prefix.
func makeMatchmakerStore(redis: RedisURL, keyPrefix: String, capacity: Int) -> RedisMatchmaker {
    do {
        return try RedisMatchmaker(url: redis, keyPrefix: keyPrefix, rules: ArenaMatchmaking.rules(capacity: capacity))
    } catch {
        fail("the matchmaker cannot start its Redis client: \(error)")
    }
}

/// `arena matchmaker` (``ArenaCommands/matchmaker``): the matchmaker alone until SIGINT or SIGTERM.
func matchmake(_ arguments: CommandArguments) throws {
    var parsed = arguments
    let host = parsed.string("host") ?? ArenaServer.Options().host
    let port = try parsed.integer("port", default: ArenaServer.Options().port)
    let redisText = parsed.string("redis"), keyPath = parsed.string("udp-key")
    let certificateFile = parsed.string("tls-cert"), keyFile = parsed.string("tls-key")
    let options = try parseMatchmakerOptions(&parsed, defaultCapacity: ArenaServer.Options().roomCapacity)
    let level = logLevel(&parsed, default: .info)
    try parsed.rejectUnknown()
    guard (0...65535).contains(port) else { fail("--port must be 0...65535") }
    guard let redisText else { fail("--redis redis://HOST:PORT is required: the fleet's seats and rooms are kept there") }
    guard let keyPath else { fail("--udp-key FILE is required: the fleet's key, which seals the connect tokens every process checks") }
    guard (certificateFile == nil) == (keyFile == nil) else { fail("--tls-cert and --tls-key go together") }
    var tls: TLSServerContext?
    if let certificateFile, let keyFile {
        do throws(TLSError) {
            tls = try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile)
        } catch {
            fail("\(error)")
        }
    }
    let url: RedisURL
    do { url = try RedisURL(parsing: redisText) } catch { fail("--redis: \(error)") }
    let store = makeMatchmakerStore(
        redis: url, keyPrefix: RedisDirectoryConfiguration(url: url, publicURL: "").keyPrefix, capacity: options.capacity)
    defer { store.stop() }
    let matchmaking = ArenaMatchmaking(store: store, jwtSecret: options.jwtSecret, requestsPerAddress: options.requestsPerAddress)
    let server: ArenaMatchmakerServer
    do {
        server = try ArenaMatchmakerServer(
            host: host, port: port, matchmaking: matchmaking, keyPath: keyPath, tls: tls,
            logSink: .standardError(label: "arena", minimumLevel: level))
    } catch { fail("\(error)") }
    defer { server.stop() }
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber) { _ in serverStop.requestStop() }
    }
    let who = options.jwtSecret == nil ? "guests" : "bearer tokens (--jwt-secret)"
    print(
        "arena matchmaker on \(tls == nil ? "http" : "https")://\(host):\(server.address.port)/ — POST /matchmake/joinOrCreate/\(ArenaMatchmaking.mode), GET /rooms; rooms of \(options.capacity), for \(who); Redis \(url)"
    )
    fflush(nil)
    while !serverStop.isStopRequested {
        usleep(100_000)
    }
    print("arena matchmaker stopped")
}

/// The client's options from `url` and the options `arena` and `arena join` share (`--name` and the bad network).
func makeClientOptions(url: String, parsed: inout CommandArguments) throws -> ArenaClient.Options {
    let parsedURL: WebSocketURL
    do { parsedURL = try WebSocketURL(url) } catch { fail(error.description) }
    return try makeClientOptions(url: parsedURL, parsed: &parsed)
}

/// The client's options for a WebSocket URL (a `udp://` join names its server's WebSocket URL for
/// the room, and its UDP address in `udp`, which the bad network's loss follows).
func makeClientOptions(url parsedURL: WebSocketURL, udp: ArenaUDPURL? = nil, parsed: inout CommandArguments) throws -> ArenaClient.Options {
    let name = parsed.string("name") ?? "player"
    var options = ArenaClient.Options(url: parsedURL, name: name)
    options.udp = udp
    let lag = try parsed.double("lag", default: 0), jitter = try parsed.double("jitter", default: 0)
    let loss = try parsed.double("loss", default: 0)
    guard lag >= 0, jitter >= 0, (0...100).contains(loss) else { fail("--lag and --jitter must be ≥ 0 ms, --loss 0...100 %") }
    options.setBadNetwork(lag: .secondsValue(lag / 1000), jitter: .secondsValue(jitter / 1000), loss: loss / 100)
    return options
}

/// `arena join` (``ArenaCommands/join``): plays on a server, in this terminal or headless.
func join(_ arguments: CommandArguments) throws {
    var parsed = arguments
    let matchmakerURL = parsed.string("matchmaker")
    let mode = parsed.string("mode") ?? "arena"
    let bearer = parsed.string("bearer")
    let room = parsed.string("room")
    // How a wss:// server (and an https matchmaker or token port) is checked: --ca, or the loudly named skip.
    var tls = TLSClientConfiguration()
    tls.caFile = parsed.string("ca")
    tls.insecureSkipVerificationForLocalTestingOnly = parsed.flag("insecure-skip-verification-for-local-testing-only")
    if matchmakerURL == nil, parsed.string("mode") != nil || bearer != nil || room != nil {
        throw CommandArguments.UsageError(description: "--mode, --bearer and --room go with --matchmaker URL")
    }
    var options: ArenaClient.Options
    if let matchmakerURL {
        if let url = parsed.positionals.first {
            throw CommandArguments.UsageError(description: "with --matchmaker the matchmaker gives the URL: leave out \(url)")
        }
        let join: ArenaClient.MatchmakerJoin
        do throws(MatchmakerClientError) {
            // An https matchmaker is checked as the wss:// seat is.
            let matchmaker = try Matchmaker(url: matchmakerURL, bearerToken: bearer, tls: tls)
            join = try ArenaClient.MatchmakerJoin.ask(matchmaker, mode: mode, room: room, name: parsed.string("name") ?? "player")
        } catch {
            fail("arena join --matchmaker: \(error)")
        }
        guard let seatURL = join.seat.webSocketURL else {
            fail("arena join --matchmaker: the seat in room \(join.seat.room) has no ws:// or wss:// URL (\(join.seat.urls))")
        }
        options = try makeClientOptions(url: seatURL, parsed: &parsed)
        options.matchmaker = join
        StandardError.write(
            "arena: the matchmaker seated \(join.seat.displayName) in room \(join.seat.room)\(join.seat.isNewRoom ? " (new)" : "") at \(seatURL)\n"
        )
    } else if let url = parsed.positionals.first, url.hasPrefix("udp://") {
        var udp: ArenaUDPURL
        do throws(ArenaUDPURL.ParseError) { udp = try ArenaUDPURL(url) } catch { fail(error.description) }
        udp.tokenPort = try parsed.integer("token-port", default: udp.tokenPort)
        udp.isTokenTLS = parsed.flag("token-tls")
        guard (1...65535).contains(udp.tokenPort) else { fail("--token-port must be 1...65535") }
        let room: WebSocketURL
        do { room = try WebSocketURL(udp.webSocketURL) } catch { fail(error.description) }
        options = try makeClientOptions(url: room, udp: udp, parsed: &parsed)
    } else if let url = parsed.positionals.first {
        options = try makeClientOptions(url: url, parsed: &parsed)
    } else {
        throw CommandArguments.UsageError(description: "join needs a URL, e.g. ws://127.0.0.1:7777/main, or --matchmaker http://HOST:PORT")
    }
    options.tls = tls
    let level = logLevel(&parsed, default: .warning)
    for more in parsed.positionals.dropFirst() {
        do throws(WebSocketURL.ParseError) { options.moreEntryURLs.append(try WebSocketURL(more)) } catch { fail(error.description) }
    }
    let script = parsed.string("script")
    let frames = try parsed.integer("frames", default: 300)
    let dump = parsed.flag("dump")
    let phaseLock: FramePhaseLock? = parsed.flag("free-running-frames") ? nil : FramePhaseLock()
    let width = try parsed.integer("width", default: 80), height = try parsed.integer("height", default: 24)
    let recordPath = parsed.string("record")
    try parsed.rejectUnknown()
    var recorder: RecordingWriter?
    if let recordPath {
        do { recorder = try RecordingWriter(path: recordPath, schema: Arena().schema) } catch { fail(error.description) }
    }
    defer { recorder?.close() }
    // While the game draws on the terminal, log lines wait and come out when it lets go.
    let heldLines = script == nil && isatty(STDERR_FILENO) != 0 ? HeldLogLines() : nil
    defer { heldLines?.release() }
    let logSink = heldLines?.sink(label: "arena", minimumLevel: level) ?? .standardError(label: "arena", minimumLevel: level)
    let client = ArenaClient(options: options, recorder: recorder, logSink: logSink)
    if let script {
        let parsedScript: ArenaScript
        do { parsedScript = try ArenaScript(script) } catch { fail(error.description) }
        let scene = ArenaPlayLoop.playScript(
            client, script: parsedScript, frames: frames, width: width, height: height, phaseLock: phaseLock,
            output: dump ? { print($0) } : nil)
        client.leave()
        if !dump { print(ArenaRenderer.render(scene, width: width, height: height).plainText) }
        return
    }
    let reason: String
    do {
        reason = try ArenaPlayLoop.playInteractively(client, notice: "", usesColor: usesColor(), phaseLock: phaseLock)
    } catch {
        heldLines?.release()
        fail(error.description)
    }
    heldLines?.release()
    print("arena: \(reason)")
}

/// Reloads the server's certificate files on SIGHUP (renewed certificates without a restart).
func reloadCertificatesOnHangup(_ server: ArenaServer) -> any DispatchSourceSignal {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    source.setEventHandler {
        do {
            try server.reloadCertificates()
            print("arena: SIGHUP: reloaded the TLS certificate files for new connections")
        } catch {
            StandardError.write("arena: SIGHUP: keeping the old certificates: \(error)\n")
        }
        fflush(nil)
    }
    source.resume()
    return source
}

/// Colour unless `NO_COLOR` is set to anything (no-color.org).
func usesColor() -> Bool { ProcessInfo.processInfo.environment["NO_COLOR"] == nil }

/// The default: a server on this machine, joined from this terminal.
func playLocally(_ arguments: CommandArguments) throws {
    var parsed = arguments
    if let word = parsed.positionals.first {
        let names = ArenaCommands.play.subcommands.map(\.name)
        let suggestion = closestName(to: word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw CommandArguments.UsageError(description: "unknown command '\(word)'\(suggestion)")
    }
    var serverOptions = ArenaServer.Options()
    serverOptions.port = try parsed.integer("port", default: 7777)
    serverOptions.bots = try parsed.integer("bots", default: 6)
    serverOptions.tickRate = try parsed.integer("tick", default: 30)
    guard (0...65535).contains(serverOptions.port), (1...240).contains(serverOptions.tickRate), (0...64).contains(serverOptions.bots) else {
        fail("--port 0...65535, --tick 1...240, --bots 0...64")
    }
    // Check for a terminal before starting anything, so a pipe gets a clear message.
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
        fail(
            "the arena needs a terminal (standard input and output are not one); for headless play use `arena serve` and `arena join … --script … --dump`"
        )
    }
    let port = startBackgroundServer(serverOptions)
    var clientOptions = try makeClientOptions(url: "ws://127.0.0.1:\(port)/main", parsed: &parsed)
    if clientOptions.name == "player" {
        clientOptions.name = ProcessInfo.processInfo.environment["USER"].map { String($0.prefix(10)) } ?? "you"
    }
    try parsed.rejectUnknown()
    let client = ArenaClient(options: clientOptions)
    let notice =
        "second player: swift run arena join ws://127.0.0.1:\(port)/main --name NAME, or open http://127.0.0.1:\(port)/ in a browser to play"
    print("open http://127.0.0.1:\(port)/ in a browser to play")
    let reason: String
    do {
        reason = try ArenaPlayLoop.playInteractively(client, notice: notice, usesColor: usesColor())
    } catch {
        fail(error.description)
    }
    serverStop.requestStop()
    print("arena: \(reason)")
}

/// Starts an ``ArenaServer`` on its own thread (on the port asked for, or any free one if
/// that is taken) and returns its port once it listens.
func startBackgroundServer(_ options: ArenaServer.Options) -> Int {
    let started = Mutex<Result<Int, SystemError>?>(nil)
    let thread = Thread {
        var options = options
        var server: ArenaServer
        do {
            server = try ArenaServer(options: options, stopRequest: serverStop)
        } catch {
            options.port = 0
            do throws(SystemError) {
                server = try ArenaServer(options: options, stopRequest: serverStop)
            } catch {
                started.withLock { $0 = .failure(error) }
                return
            }
        }
        started.withLock { $0 = .success(server.port) }
        server.run()
    }
    thread.start()
    for _ in 0..<500 {
        if let result = started.withLock({ $0 }) {
            switch result {
            case .success(let port): return port
            case .failure(let error): fail("cannot start the local server: \(error)")
            }
        }
        usleep(10_000)
    }
    fail("the local server did not start within 5 s")
}

/// Parses `arguments` against `syntax`, prints its usage for `--help` and runs `command` otherwise;
/// a usage error ends the program with the error and the line that points to `--help`.
func run(_ syntax: CommandSyntax, _ arguments: [String], _ command: (CommandArguments) throws -> Void) {
    do {
        let parsed = try syntax.parse(arguments)
        if parsed.wantsHelp {
            print(syntax.usage)
            return
        }
        try command(parsed)
    } catch let error as CommandArguments.UsageError {
        fail("\(error.description)\n\(syntax.helpHint)")
    } catch {
        fail("\(error)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve": run(ArenaCommands.serve, Array(arguments.dropFirst()), serve)
case "join": run(ArenaCommands.join, Array(arguments.dropFirst()), join)
case "matchmaker": run(ArenaCommands.matchmaker, Array(arguments.dropFirst()), matchmake)
case "help": print(ArenaCommands.play.usage)
default: run(ArenaCommands.play, arguments, playLocally)
}

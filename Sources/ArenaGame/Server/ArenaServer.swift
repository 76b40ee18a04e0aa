import CommandLineSupport
import Synchronization
import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The arena's game server: a Tickwire ``Host`` of the ``Arena`` game behind a WebSocket
/// listener, ticking in real time on the thread that calls ``run(status:)``.
///
/// Rooms are picked by the URL path (`ws://host:port/ROOM`); unknown rooms open on demand
/// up to ``Options/maximumRooms``. With ``Options/statePath`` the rooms and their resumable
/// players survive a restart of the process (see ``ArenaStateFile``).
///
/// With a ``RoomDirectory`` (``init(options:stopRequest:directory:)``) the server is one process
/// of a fleet: it runs the rooms the directory places here (``Host/init(game:listener:clock:configuration:directory:)``),
/// redirects clients of other rooms, saves its rooms there every second, and when stopped
/// (SIGTERM) drains: saves and releases every room and sends its players to another process.
/// Its configured ``Options/rooms`` then open only when a client asks for them, and the state
/// file is written but not read at start (the directory holds the rooms' states).
package final class ArenaServer {
    /// How the server runs.
    package struct Options: Hashable, Sendable {
        /// The address to listen on (`127.0.0.1` for this machine only, `0.0.0.0` for all).
        package var host = "127.0.0.1"
        /// The port; 0 lets the kernel pick one.
        package var port = 7777
        /// The UDP port (netcode.io, `udp://HOST:PORT/ROOM`) on the same address; 0 lets the
        /// kernel pick one, `nil` (the default here) serves no UDP. `arena serve` takes the
        /// WebSocket port + 1 (any free one when `--port` is 0) unless told `--udp-port` or
        /// `--no-udp`. Guest connect tokens come from `GET /udp-token` on ``port``.
        package var udpPort: Int?
        /// How many netcode.io servers serve UDP, each on its own port from ``udpPort`` on (P,
        /// P + 1, …; each any free one for port 0), all in the same rooms: one holds at most
        /// `Netcode.maxClients` (256) players, and a guest token names every one, the least
        /// loaded first (``ArenaUDPServers``). 1...``ArenaUDPServers/maximumCount`` (32, the
        /// addresses a connect token can name); `nil` (default): enough for
        /// ``rooms`` × ``roomCapacity`` players at 256 each.
        package var udpServerCount: Int?
        /// The file of the private key UDP connect tokens are sealed with, made (random) on the
        /// first start when it does not exist; `nil`: a fresh random key for this process, which
        /// only this process's `/udp-token` can mint tokens for.
        package var udpKeyPath: String?
        /// The netcode.io connection requests the UDP port reads from one host a second, and at
        /// once (``UDPTransportLimits/connectionRequestsPerAddressPerSecond``).
        package var maximumUDPRequestsPerAddress = UDPTransportLimits().connectionRequestsPerAddressPerSecond
        /// Bots in each room.
        package var bots = 6
        /// Ticks per second.
        package var tickRate = 30
        /// Rooms opened at start (more open on demand while under ``maximumRooms``). With a room
        /// directory none opens at start: each opens on the process that claims it, at its first
        /// hello, so that a room is never held by two processes.
        package var rooms = ["main"]
        /// The most rooms the server runs.
        package var maximumRooms = 16
        /// Players per room.
        package var roomCapacity = 32
        /// Seconds a disconnected player's place is kept for it to resume; also the oldest a
        /// state file (``statePath``) may be to be restored.
        package var resumeGracePeriod = 30.0
        /// Seconds a room opened on demand stays open without players or held slots
        /// (``HostConfiguration/idleRoomTimeout``); the configured ``rooms`` stay.
        package var idleRoomTimeout = 30.0
        /// Seconds a new connection has to send its hello (``HostConfiguration/handshakeTimeout``).
        package var helloTimeout = 5.0
        /// Seconds a player may stay silent (no input, no acknowledgement) before it is
        /// disconnected as timed out (``HostConfiguration/clientTimeout``).
        package var clientTimeout = 5.0
        /// Snapshot compression modes in order of preference (the first the client offers is
        /// used); empty sends every frame uncompressed.
        package var compressionPreference: [CompressionMode] = [.perFrame, .streaming]
        /// zlib level for compressed snapshot frames, 0…9.
        package var compressionLevel = 6
        /// Whether clients whose hello offers them get entropy-coded snapshot deltas, motion-predicted
        /// when the hello offers that too (``HostConfiguration/entropyDeltas``, `Protocol/PROTOCOL.md`
        /// §4.5); off, every client gets the bit-packed delta.
        package var entropyDeltas = false
        /// Admit only players with a connect token sealed with the key of ``udpKeyPath``
        /// (`arena serve --require-tokens`, `Protocol/PROTOCOL.md` 5.3.1): a WebSocket hello must
        /// carry one, minted by the operator's backend with that key (``ConnectTokenIssuer``), and
        /// `GET /udp-token` hands out no guest tokens.
        package var requiresTokens = false
        /// Seconds between the stats messages each room sends its clients (PROTOCOL.md 5.11); 0 sends none.
        package var statsInterval = 1.0
        /// Where to save the server's state (an ``ArenaStateFile``) every ``stateSaveInterval``
        /// and on stopping, and to restore it from on start when it is younger than
        /// ``resumeGracePeriod``; `nil` saves nothing.
        package var statePath: String?
        /// TLS (`wss://`) with this certificate chain and key, or `nil` (default) for plain `ws://`.
        package var tls: TLSServerContext?
        /// Seconds between two saves of the state file.
        package var stateSaveInterval = 1.0
        /// Whether plain HTTP requests on the port get the browser client (``ArenaWebSite``):
        /// `GET /` the page, its scripts, 404 for anything else. `false`: they are refused as
        /// failed WebSocket handshakes.
        package var servesWebClient = true
        /// Whether `GET /metrics` on the port answers with the server's metrics in the Prometheus
        /// text format (``metrics``; README, "Metrics"). With ``servesWebClient`` off, other plain
        /// HTTP requests get `404`.
        package var servesMetrics = true
        /// The most connections from one address (IPv6: one /64), handshaking or open; `Int.max`
        /// for no limit (``WebSocketServerConfiguration/maximumConnectionsPerAddress``).
        package var maximumConnectionsPerAddress = WebSocketServerConfiguration().maximumConnectionsPerAddress
        /// The most handshakes in progress from one address
        /// (``WebSocketServerConfiguration/maximumHandshakesPerAddress``).
        package var maximumHandshakesPerAddress = WebSocketServerConfiguration().maximumHandshakesPerAddress
        /// The most `GET /udp-token` requests one source address may make at once, refilled over
        /// ``TokenRequestBudget/window`` seconds; past it the endpoint answers 429
        /// (``TokenRequestBudget``). 0 lifts the limit. Default 32.
        package var maximumTokenRequestsPerAddress = TokenRequestBudget.defaultLimit
        /// Seconds a client's send buffer may stay over the host's outbound budget (it stopped
        /// reading) before it is closed with 1008; 0 never (``WebSocketServerConfiguration/writeTimeout``).
        package var writeTimeout = 10.0
        /// This process's public URL (`--public-url`), where other processes of a fleet send
        /// the clients of its rooms; a room directory is made with it. `nil`: none (standalone).
        package var publicURL: String?
        /// Threads that tick the rooms (``HostConfiguration/tickThreads``): by default one per
        /// processor online; each room ticks on one of them.
        package var tickThreads = HostConfiguration.processorCount
        /// The least severe level the server logs to standard error (`--log-level`): the host's
        /// and the WebSocket server's records, one line each, prefixed `arena: `. `nil`
        /// (default): no logging.
        package var logLevel: LogLevel?

        /// The defaults: port 7777 on this machine, six bots, 30 Hz, one room `main`.
        package init() {}

        /// The names of `count` rooms as `arena serve --rooms N` opens them: `main`, `room2`, `room3`, …
        ///
        /// - Parameter count: How many rooms (at least one).
        /// - Returns: The names, `main` first.
        package static func roomNames(count: Int) -> [String] {
            (1...max(1, count)).map { $0 == 1 ? "main" : "room\($0)" }
        }
    }

    /// What became of ``Options/statePath`` when the server started.
    package enum StateRestore: Sendable {
        /// No state file was asked for, or there was none yet.
        case none
        /// The file's rooms and clients were restored; it was saved `age` seconds before.
        case restored(rooms: Int, clients: Int, age: Double)
        /// The file was refused (too old, damaged, of another version or schema, unreadable):
        /// the server started fresh.
        case refused(ArenaStateError)
    }

    /// The options the server runs with.
    package let options: Options
    /// What became of the state file at start.
    package let stateRestore: StateRestore
    /// The port the server listens on (the kernel's choice when asked for port 0).
    package let port: Int
    /// What `GET /metrics` on ``port`` renders (with ``Options/servesMetrics``): the host's
    /// figures (with a directory, its `tickwire_fleet_*` counters), the WebSocket server's
    /// connections, the arena's bots and, when the directory is a ``MetricsSource`` (a
    /// `RedisRoomDirectory`), the directory's state, in that order. Register more sources here.
    package let metrics = MetricsRegistry()
    private let arenaMetrics = ArenaMetrics()
    let transport: WebSocketTransportServer
    /// The UDP servers, with ``Options/udpPort``.
    let udpServers: ArenaUDPServers?
    /// The first UDP server: the one on ``Options/udpPort``, which a fleet registers.
    var udpTransport: UDPTransportServer? { udpServers?.servers.first }
    /// The first UDP server's port (the kernel's choice when asked for port 0), or `nil`.
    package var udpPort: Int? { udpTransport?.address.port }
    /// Every UDP server's port, in order (``Options/udpServerCount``); empty without UDP.
    package var udpPorts: [Int] { udpServers?.servers.map(\.address.port) ?? [] }
    private let host: Host<Arena>
    /// Whether the host admits only players with connect tokens (``Options/requiresTokens``).
    package var requiresTokens: Bool { host.configuration.requiresTokens && host.configuration.tokenVerifier != nil }
    private let clock = MonotonicClock()
    private let stopRequest: ServerStopRequest
    /// Writes the state file off the tick thread, when there is one.
    private let saver: ArenaStateSaver?

    /// Opens the listening socket and the configured rooms, restoring the rooms and
    /// resumable clients of ``Options/statePath`` when it holds a recent enough state (see
    /// ``stateRestore``).
    ///
    /// - Parameters:
    ///   - options: Address, rates, rooms and bots.
    ///   - stopRequest: The flag that ends ``run(status:)``; pass one to stop the server from another thread.
    ///   - directory: The fleet's room directory, or `nil` (default) for a standalone server.
    ///   - matchmaking: The fleet's matchmaker, answered on the HTTP port (`POST /matchmake/…`,
    ///     `GET /rooms`), or `nil` (default) for none; it mints tokens with the key of
    ///     ``Options/udpKeyPath``, which also checks the connect tokens players bring.
    /// - Throws: ``SystemError`` when a port cannot be bound, or with `EINVAL` for a
    ///   ``Options/udpServerCount`` out of 1...``ArenaUDPServers/maximumCount``, or when a
    ///   matchmaker has no ``Options/udpKeyPath`` or its JWT secret is too short.
    package init(
        options: Options, stopRequest: ServerStopRequest = ServerStopRequest(), directory: (any RoomDirectory)? = nil,
        matchmaking: ArenaMatchmaking? = nil
    ) throws(SystemError) {
        self.options = options
        self.stopRequest = stopRequest
        // The fleet's key (--udp-key), read once before any socket opens: it seals the UDP
        // servers' tokens, checks the connect tokens players bring, and the matchmaker mints with it.
        let fleetKey = try options.udpKeyPath.map { path throws(SystemError) in try ArenaUDP.key(at: path) }
        if options.requiresTokens, fleetKey == nil {
            throw SystemError(
                call: "--require-tokens: tokens are checked with the key of --udp-key FILE, and none was given", code: EINVAL)
        }
        let matchmaker = try matchmaking.map { matchmaking throws(SystemError) in
            guard let fleetKey else {
                throw SystemError(
                    call: "the matchmaker mints connect tokens with the key of --udp-key FILE, and none was given", code: EINVAL)
            }
            return try matchmaking.makeService(key: fleetKey)
        }
        let udp = try Self.makeUDPServers(options, key: fleetKey ?? NetcodeKey.random())
        udpServers = udp
        var socket = WebSocketServerConfiguration(host: options.host, port: options.port)
        socket.maximumConnections = options.roomCapacity * options.maximumRooms + 64
        socket.tls = options.tls
        let webSite: (@Sendable (HTTPRequestHead) -> HTTPResponse)? = options.servesWebClient ? ArenaWebSite.respond(to:) : nil
        socket.httpHandler = options.servesMetrics ? metrics.httpHandler(otherwise: webSite) : webSite
        let tokenEndpoint = udp.flatMap { servers in
            // With tokens required, players get theirs from the operator's backend, not as guests.
            options.requiresTokens
                ? nil
                : ArenaUDPTokenEndpoint(
                    key: servers.key, addresses: { servers.addressesByFreeSlots() }, limitPerAddress: options.maximumTokenRequestsPerAddress
                )
        }
        if let tokenEndpoint { socket.httpHandler = tokenEndpoint.handler(otherwise: socket.httpHandler) }
        if let matchmaker { socket.httpRequestHandler = matchmaker.handler(otherwise: socket.httpHandler) }
        socket.maximumConnectionsPerAddress = options.maximumConnectionsPerAddress
        socket.maximumHandshakesPerAddress = options.maximumHandshakesPerAddress
        socket.writeTimeout = options.writeTimeout > 0 ? .milliseconds(Int64(options.writeTimeout * 1000)) : nil
        // The host stops sending snapshots to a client once it holds its outbound budget: the
        // high-water mark there makes a client that stopped reading stay over it, and so closed
        // after the write timeout, while a slow one that still reads keeps dipping under it.
        socket.sendBuffer.highWaterMark = HostConfiguration().outboundBudgetBytes
        let logSink = options.logLevel.map { LogSink.standardError(label: "arena", minimumLevel: $0) } ?? .disabled
        socket.logSink = logSink
        transport = try WebSocketTransportServer(configuration: socket)
        port = transport.address?.port ?? options.port
        // WebSocket and UDP clients play in the same rooms.
        let listener: any TransportListener
        if let udp { listener = CombinedTransportListener([transport] + udp.servers) } else { listener = transport }
        var configuration = HostConfiguration()
        configuration.logSink = logSink
        configuration.tickRate = options.tickRate
        configuration.rooms = options.rooms
        configuration.createsRoomsOnDemand = true
        configuration.maximumRooms = max(options.maximumRooms, options.rooms.count)
        configuration.roomCapacity = options.roomCapacity
        configuration.resumeGracePeriod = .milliseconds(Int64(options.resumeGracePeriod * 1000))
        configuration.resumeGracePeriodWithoutInput = min(configuration.resumeGracePeriodWithoutInput, configuration.resumeGracePeriod)
        configuration.idleRoomTimeout = .milliseconds(Int64(options.idleRoomTimeout * 1000))
        configuration.handshakeTimeout = .milliseconds(Int64(options.helloTimeout * 1000))
        configuration.clientTimeout = .milliseconds(Int64(options.clientTimeout * 1000))
        configuration.compressionPreference = options.compressionPreference
        configuration.compressionLevel = options.compressionLevel
        configuration.entropyDeltas = options.entropyDeltas
        if let fleetKey, options.requiresTokens || matchmaker != nil {
            // Without --require-tokens anonymous play stays open; a hello that brings a token is checked.
            configuration.requiresTokens = options.requiresTokens
            configuration.tokenVerifier = NetcodeConnectTokenVerifier(key: fleetKey, protocolID: ArenaUDP.protocolID)
        }
        configuration.tickThreads = options.tickThreads
        configuration.statsInterval = options.statsInterval > 0 ? .milliseconds(Int64(options.statsInterval * 1000)) : nil
        let game = Arena(botCount: options.bots)
        var restore = StateRestore.none
        var restored: Host<Arena>?
        if let path = options.statePath, directory == nil {
            do throws(ArenaStateError) {
                if let file = try ArenaStateFile.read(from: path) {
                    let now = ArenaStateFile.wallClockMilliseconds()
                    try file.checkAge(now: now, maximumAge: options.resumeGracePeriod)
                    if let world = file.state.rooms.map(\.world).first(where: { $0.map != game.map }) {
                        throw ArenaStateError(.otherMap(width: world.map.width, height: world.map.height))
                    }
                    do {
                        restored = try Host(
                            game: game, listener: listener, clock: clock, configuration: configuration, restoring: file.state)
                    } catch {
                        throw ArenaStateError(.refusedByHost(error.description))
                    }
                    restore = .restored(
                        rooms: file.state.rooms.count, clients: file.state.rooms.reduce(0) { $0 + $1.clients.count },
                        age: file.age(now: now))
                }
            } catch {
                restore = .refused(error)
            }
        }
        stateRestore = restore
        saver = options.statePath.map(ArenaStateSaver.init(path:))
        if let directory {
            host = Host(game: game, listener: listener, clock: clock, configuration: configuration, directory: directory)
        } else {
            host = restored ?? Host(game: game, listener: listener, clock: clock, configuration: configuration)
        }
        // Who comes and goes, in the server's log (refusals are logged by the host itself).
        host.onEvent = { event in
            guard event.kind != .refused else { return }
            var metadata = ["room": event.room ?? "", "client": event.clientID.map { "\($0)" } ?? "none"]
            if let departure = event.departure { metadata["why"] = "\(departure)" }
            logSink.log(.info, "player \(event.kind)", metadata: metadata, source: "arena")
        }
        metrics.register(host.publishedMetrics)
        let transport = self.transport
        metrics.register { writer in transport.statistics.writeMetrics(to: &writer) }
        metrics.register(arenaMetrics)
        if let udp {
            metrics.register { writer in udp.statistics.writeMetrics(to: &writer) }
        }
        if let tokenEndpoint { metrics.register(tokenEndpoint) }
        if let matchmaker { metrics.register(matchmaker) }
        // A directory with figures of its own (a Redis directory: connected, claims, reconnects).
        if let source = directory as? any MetricsSource { metrics.register(source) }
    }

    /// Saves every room's world and resumable clients to ``Options/statePath`` now, on this
    /// thread, after any save still under way (atomically: see ``ArenaStateFile/write(to:)``);
    /// does nothing without a path.
    ///
    /// ``run(statusInterval:status:)`` saves every ``Options/stateSaveInterval`` on a
    /// background queue (so the disk never stalls a tick), and with this call on stopping.
    ///
    /// - Throws: ``ArenaStateError`` when the file cannot be written (also reported on standard error).
    package func saveState() throws(ArenaStateError) {
        try saver?.write(currentStateFile())
    }

    private func currentStateFile() -> ArenaStateFile {
        ArenaStateFile(state: host.exportState(), savedAt: ArenaStateFile.wallClockMilliseconds())
    }

    /// Ticks every room in real time until ``ServerStopRequest/requestStop()``, then saves
    /// the state (with ``Options/statePath``), tells every player the server is shutting down
    /// (``Host/shutdown(text:)``), closes every connection (code 1001) and returns. With a room
    /// directory it drains instead (``Host/drain(text:)``): every room saved and released, every
    /// player told to reconnect at once to another process (close code 4007).
    ///
    /// - Parameter status: Called every `statusInterval` seconds with a line describing the
    ///   server (clients, bots, tick p99, kbit/s out), on this thread.
    /// - Parameter statusInterval: Seconds between status lines.
    package func run(statusInterval: Double = 5, status: (String) -> Void = { _ in }) {
        var nextStatus = clock.now + .secondsValue(statusInterval)
        let saveInterval = Duration.secondsValue(max(options.stateSaveInterval, 0.05))
        var nextSave = clock.now + saveInterval
        host.run {
            recordArenaMetrics()
            if clock.now >= nextStatus {
                status(statusLine())
                nextStatus = clock.now + .secondsValue(statusInterval)
            }
            if let saver, clock.now >= nextSave {
                saver.submit(currentStateFile())
                nextSave = clock.now + saveInterval
            }
            return stopRequest.isStopRequested
        }
        // A failure was reported on standard error; the server stops all the same.
        try? saveState()
        // Every player hears why (disconnect message, close 1001, or moved and 4007 when
        // draining a fleet process) before the sockets go.
        host.drain()
        transport.shutdown(timeout: .seconds(1))
        udpServers?.shutdown()
    }

    /// The UDP servers of ``Options/udpPort`` and ``Options/udpServerCount``, on ``Options/host``,
    /// sealing tokens with `key` (the key of ``Options/udpKeyPath``, or a fresh one).
    private static func makeUDPServers(_ options: Options, key: NetcodeKey) throws(SystemError) -> ArenaUDPServers? {
        guard let udpPort = options.udpPort else { return nil }
        guard let address = SocketAddress(numericHost: options.host, port: udpPort) else {
            throw SystemError(call: "UDP on \(options.host):\(udpPort): a numeric address is needed", code: EINVAL)
        }
        var configuration = UDPTransportServerConfiguration(address: address, protocolID: ArenaUDP.protocolID, privateKey: key)
        let players = options.roomCapacity * max(options.rooms.count, 1)
        configuration.maxClients = min(Netcode.maxClients, options.roomCapacity * options.maximumRooms)
        configuration.limits.connectionRequestsPerAddressPerSecond = options.maximumUDPRequestsPerAddress
        return try ArenaUDPServers(
            count: options.udpServerCount ?? ArenaUDPServers.defaultCount(players: players), host: options.host, firstPort: udpPort,
            configuration: configuration)
    }

    /// Stores the bots for ``metrics``, between passes.
    private func recordArenaMetrics() {
        var bots = 0
        for name in host.roomNames { bots += host.room(named: name)?.state.bots.count ?? 0 }
        arenaMetrics.record(bots: bots)
    }

    /// One line about the server now: rooms, clients, bots, tick p99 and outgoing kbit/s.
    ///
    /// The tick p99 is the host's (``Host/passStatistics``): every room's tick of one period
    /// together, each tick thread's rooms one after another.
    package func statusLine() -> String {
        var clients = 0, bots = 0, bytesOut = 0, ticks: UInt64 = 0
        for name in host.roomNames {
            guard let room = host.room(named: name) else { continue }
            let metrics = room.metrics
            clients += metrics.connectedClients
            bots += room.state.bots.count
            bytesOut += metrics.bytesOutPerSecond
            ticks += metrics.ticks.ticksRun
        }
        let passP99 = host.passStatistics.p99
        let p99 = Double(passP99.components.seconds) * 1000 + Double(passP99.components.attoseconds) / 1e15
        // A listener that paused after accept(2) failed, or gave up, is logged; say it here too.
        let accepting = transport.statistics.isListenerAccepting ? "" : "  NOT ACCEPTING connections (see the log)"
        return "rooms \(host.roomNames.count)  clients \(clients)  bots \(bots)  ticks \(ticks)"
            + "  tick p99 \(decimalText(p99, places: 2)) ms  out \(decimalText(Double(bytesOut) * 8 / 1000, places: 1)) kbit/s"
            + accepting
    }
}

@available(*, unavailable, message: "An ArenaServer runs on one thread; stop it through its ServerStopRequest.")
extension ArenaServer: Sendable {}

/// A flag another thread (or a signal handler) raises to stop an ``ArenaServer``.
package final class ServerStopRequest: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Creates a lowered flag.
    package init() {}

    /// Asks the server to stop after its current tick.
    package func requestStop() { flag.store(true, ordering: .releasing) }

    /// Whether a stop was asked for.
    package var isStopRequested: Bool { flag.load(ordering: .acquiring) }
}

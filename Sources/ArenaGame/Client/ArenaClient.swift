import CommandLineSupport
import Tickwire

/// One player's side of the arena: a Tickwire ``ReconnectingSession`` over a WebSocket (with
/// an optional bad-network layer), which reconnects with backoff and resumes the same player,
/// and the ``ArenaScene`` each frame shows.
///
/// Driven by calls on one thread: ``tick(input:)`` once per client tick, then ``scene(showsNetGraph:)``.
package final class ArenaClient {
    /// How the client connects and plays.
    package struct Options: Hashable, Sendable {
        /// The server and room, `ws://HOST:PORT/ROOM`: the first entry URL.
        package var url: WebSocketURL
        /// More processes of a fleet to enter through (`arena join URL URL…`), tried in turn after
        /// ``url`` when an attempt fails; the room is ``url``'s. Redirects and moved disconnects
        /// are followed whatever the entries (``ReconnectingSession``).
        package var moreEntryURLs: [WebSocketURL] = []
        /// Play over UDP instead (`arena join udp://HOST:PORT/ROOM`): a guest connect token is
        /// fetched from the server's HTTP port before each connection; ``url`` then names the room.
        package var udp: ArenaUDPURL?
        /// The name on the scoreboard.
        package var name: String
        /// How a `wss://` URL's server is checked (the system trust store by default, or a CA file).
        package var tls = TLSClientConfiguration()
        /// A bad network to play through, client to server (`--lag`, `--jitter`, `--loss`; see
        /// ``setBadNetwork(lag:jitter:loss:)``), or ``LinkConditions/perfect``.
        package var upstream: LinkConditions { badNetwork.map(conditions) ?? .perfect }
        /// A bad network to play through, server to client: the same as ``upstream``.
        package var downstream: LinkConditions { badNetwork.map(conditions) ?? .perfect }
        /// The delay, jitter and loss asked for, each way; `nil` for none.
        private var badNetwork: BadNetwork?

        /// A bad network's one-way delay, jitter and loss, whatever the transport.
        private struct BadNetwork: Hashable, Sendable {
            var lag: Duration
            var jitter: Duration
            var loss: Double
        }
        /// Play through a matchmaker's seat (`arena join --matchmaker`): ``url`` is then the
        /// seat's WebSocket URL, and the session asks the matchmaker again once it loses its
        /// player for good.
        package var matchmaker: MatchmakerJoin?
        /// Backoff between reconnection attempts.
        package var reconnect = ReconnectPolicy(baseDelay: .milliseconds(500), maximumDelay: .seconds(8))

        /// Creates options.
        ///
        /// - Parameters:
        ///   - url: The server and room.
        ///   - name: The scoreboard name.
        package init(url: WebSocketURL, name: String) {
            self.url = url
            self.name = name
        }

        /// The room the URL names (`main` for an empty path).
        package var room: String {
            let path = url.path.drop { $0 == "/" }
            return path.isEmpty ? "main" : String(path)
        }

        /// Sets a bad network as `arena join` takes it: the same one-way delay, jitter and packet loss
        /// each way, loss doing what it does on the transport played
        /// (``LinkConditions/Delivery-swift.struct/init(urlScheme:)`` of `udp` when ``udp`` is set,
        /// else of ``url``'s scheme, whichever is set first): over a WebSocket (TCP) lost segments
        /// are retransmitted and the frames behind them wait; over UDP datagrams are dropped. All
        /// zero is no bad network at all.
        ///
        /// - Parameters:
        ///   - lag: Added one-way delay, each direction.
        ///   - jitter: Largest extra random one-way delay, each direction.
        ///   - loss: Share of packets lost each way, 0...1.
        package mutating func setBadNetwork(lag: Duration, jitter: Duration, loss: Double) {
            badNetwork = lag == .zero && jitter == .zero && loss == 0 ? nil : BadNetwork(lag: lag, jitter: jitter, loss: loss)
        }

        /// The link of a bad network on the transport played.
        private func conditions(_ network: BadNetwork) -> LinkConditions {
            // The one place the URL picks the model: every scheme the arena dials has a transport, so the
            // fallback only reads a scheme added later as TCP, the transport most schemes ride on.
            let delivery = LinkConditions.Delivery(urlScheme: urlScheme) ?? .reliable
            return LinkConditions(latency: network.lag, jitter: network.jitter, delivery: delivery, lossRate: network.loss)
        }

        /// The scheme of the transport played: `udp` when ``udp`` is set (``url`` then names the
        /// room's WebSocket address), else ``url``'s, before `://`.
        private var urlScheme: String { udp != nil ? "udp" : String(url.description.prefix { $0 != ":" }) }

        /// Whether play goes through a bad network.
        package var isImpaired: Bool { upstream != .perfect || downstream != .perfect }
    }

    /// A seat a matchmaker gave, and how to ask it for another (`arena join --matchmaker`).
    package struct MatchmakerJoin: Hashable, Sendable {
        /// The matchmaker asked.
        package var matchmaker: Matchmaker
        /// The seat to play through.
        package var seat: MatchmakerSeat
        /// The options sent when asking again (the `"name"`).
        package var options: [String: JSONValue]

        /// Asks `matchmaker` for a seat, blocking the calling thread up to its timeout:
        /// `joinById` when `room` is given, else `joinOrCreate` of `mode`.
        ///
        /// - Parameters:
        ///   - matchmaker: The matchmaker.
        ///   - mode: The mode asked for.
        ///   - room: A room to join by its name, or `nil`.
        ///   - name: The name sent as the `"name"` option.
        /// - Returns: The seat and how to ask again.
        /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
        package static func ask(_ matchmaker: Matchmaker, mode: String, room: String?, name: String) throws(MatchmakerClientError)
            -> MatchmakerJoin
        {
            let options: [String: JSONValue] = ["name": .string(name)]
            let request: Matchmaker.SeatRequest = room.map { .joinByID(room: $0) } ?? .joinOrCreate(mode: mode)
            let seat = try matchmaker.seatNow(request, options: options)
            return MatchmakerJoin(matchmaker: matchmaker, seat: seat, options: options)
        }
    }

    /// Opens the connections: a WebSocket, under the bad-network layer and the recorder when asked for.
    private final class Dialer {
        let options: Options
        let clock: any TickClock
        let recorder: RecordingWriter?
        let logSink: LogSink
        /// The bad-network layer of the newest connection, when playing through one.
        var impaired: ImpairedTransportConnection?
        /// The newest UDP connection: a redirect or move over UDP follows with the token its server handed over.
        var lastUDP: UDPClientTransportConnection?
        var attempts: UInt64 = 0

        init(options: Options, clock: any TickClock, recorder: RecordingWriter?, logSink: LogSink) {
            self.options = options
            self.logSink = logSink
            self.clock = clock
            self.recorder = recorder
        }

        func open(_ text: String) throws -> any TransportConnection {
            attempts += 1
            if let udp = options.udp, text == udp.description {
                return wrap(try openUDP(udp))
            }
            if text.hasPrefix("udp://"), let previous = lastUDP {
                // A redirect or a move over UDP (PROTOCOL.md 1A.11): the server handed over a token for the process it names.
                let next = try previous.followingHandover(to: text)
                lastUDP = next
                return wrap(next)
            }
            var configuration = WebSocketClientConfiguration()
            configuration.handshakeTimeout = .seconds(3)
            configuration.tls = options.tls
            configuration.logSink = logSink
            let url = try WebSocketURL(text)
            let socket = try WebSocketClientTransportConnection(url: url, configuration: configuration)
            return wrap(socket)
        }

        /// A UDP connection with a fresh guest token from the server's `/udp-token`.
        func openUDP(_ udp: ArenaUDPURL) throws -> any TransportConnection {
            let token = try ConnectTokenFetch.fetch(
                host: udp.host, port: udp.tokenPort, path: ArenaUDP.tokenPath, tls: udp.isTokenTLS ? options.tls : nil)
            let connection = try UDPClientTransportConnection(token: token, requestPath: udp.path)
            lastUDP = connection
            return connection
        }

        /// `socket` under the bad-network layer and the recorder, when asked for.
        func wrap(_ socket: any TransportConnection) -> any TransportConnection {
            // Over datagrams, every message the UDP transport sends unreliably may be lost.
            let droppable =
                options.downstream.delivery == .unreliable
                ? ImpairedTransportConnection.isUnreliableOverUDP : ImpairedTransportConnection.isSnapshotFrame
            impaired =
                options.isImpaired
                ? ImpairedTransportConnection(
                    wrapping: socket, upstream: options.upstream, downstream: options.downstream, clock: clock, seed: attempts,
                    droppable: droppable)
                : nil
            var connection: any TransportConnection = impaired ?? socket
            // Record what the session sees: after the bad-network layer, so lost snapshots are absent.
            if let recorder { connection = RecordingConnection(wrapping: connection, recorder: recorder, clock: clock) }
            return connection
        }
    }

    /// The options the client runs with.
    package let options: Options
    /// The reconnecting session: connection state, counters, and the Tickwire session inside.
    package let connection: ReconnectingSession<Arena>
    private let dialer: Dialer

    /// Creates a client and starts connecting.
    ///
    /// - Parameters:
    ///   - options: Server, name and network.
    ///   - clock: The clock to run on.
    ///   - recorder: Records every frame the session sends and receives (for `tickwire inspect`).
    ///   - logSink: Where the session and its WebSocket connections log (`arena join --log-level`).
    package init(
        options: Options, clock: any TickClock = MonotonicClock(), recorder: RecordingWriter? = nil, logSink: LogSink = .disabled
    ) {
        self.options = options
        var configuration = ClientConfiguration()
        configuration.logSink = logSink
        configuration.room = options.matchmaker?.seat.room ?? options.room
        configuration.connectToken = options.matchmaker?.seat.helloToken
        configuration.helloPayload = Array(options.name.utf8.prefix(64))
        if options.downstream.delivery == .unreliable {
            // A lost frame would break a streaming deflate context: use per-frame compression.
            configuration.compressionModes = [.perFrame]
        }
        let dialer = Dialer(options: options, clock: clock, recorder: recorder, logSink: logSink)
        self.dialer = dialer
        connection = ReconnectingSession(
            game: Arena(), clock: clock, configuration: configuration,
            entryURLs: options.udp.map { [$0.description] } ?? ([options.url] + options.moreEntryURLs).map(\.description),
            policy: options.reconnect
        ) { url in
            try dialer.open(url)
        }
        if let join = options.matchmaker {
            connection.rejoiner = join.matchmaker.rejoiner(mode: join.seat.mode, options: join.options)
        }
        connection.start()
    }

    deinit {
        connection.connection?.close()
    }

    /// The Tickwire session.
    package var session: ClientSession<Arena> { connection.session }

    /// The clock every time here is read from.
    package var clock: any TickClock { connection.clock }

    /// Where the connection stands.
    package var connectionState: ConnectionState { connection.state }

    /// The client's tick rate: the server's once welcomed.
    package var tickRate: Int { connection.tickRate }

    /// One client tick: reconnects when due, then sends this tick's input.
    ///
    /// - Parameter input: The local player's input.
    package func tick(input: ArenaInput) {
        connection.tick(input: input)
    }

    /// What to draw now.
    ///
    /// - Parameter showsNetGraph: Whether the net graph overlay is on.
    /// - Returns: The scene.
    package func scene(showsNetGraph: Bool = false) -> ArenaScene {
        var scene = ArenaScene(map: Arena().map)
        if let view = connection.render() {
            for entity in view.entities {
                switch entity.typeIndex {
                case ArenaSchema.playerType: scene.players.append(ArenaSchema.player(from: entity))
                case ArenaSchema.bulletType: scene.bullets.append(ArenaSchema.bullet(from: entity))
                case ArenaSchema.railType: scene.rails.append(ArenaSchema.rail(from: entity))
                default: continue
                }
            }
        }
        scene.localPlayerID = session.clientID
        scene.roomName = options.room
        scene.connectionStatus = statusText
        if case .connected = connectionState { scene.isConnected = true }
        scene.showsNetGraph = showsNetGraph
        scene.netGraph = netGraphLines
        return scene
    }

    /// The connection in words.
    package var statusText: String {
        switch connectionState {
        case .connecting(let attempt): attempt > 1 ? "connecting (attempt \(attempt))…" : "connecting…"
        case .connected(let resumed): resumed ? "connected (resumed)" : "connected"
        case .waitingToReconnect(let attempt, let at):
            "reconnecting in \(decimalText(max((at - clock.now).secondsValue, 0), places: 1)) s (attempt \(attempt))"
        case .refused(let reason, let text): text.isEmpty ? "refused: \(reason)" : "refused: \(reason): \(text)"
        case .refusedConnection(let refusal): "refused: \(refusal)"
        case .kicked(let text): text.isEmpty ? "kicked" : "kicked: \(text)"
        case .left: connection.hasGivenUp ? "gave up reconnecting" : "left"
        }
    }

    /// The session's net graph figures. A connection that reports its link (UDP) names its
    /// transport and gives its loss, round trip and jitter; otherwise the transport is the scheme
    /// of the URL in use (`ws`, `wss`).
    package var figures: NetGraphFigures {
        var figures = session.figures
        if figures.transport == nil {
            let url = connection.currentURL ?? options.url.description
            figures.transport = url.range(of: "://").map { String(url[..<$0.lowerBound]) }
        }
        return figures
    }

    /// The net graph's lines: ping (median and recent worst), jitter, interpolation, sizes, rates,
    /// corrections and extrapolation, and the view's staleness (the newest tick, its age, the time
    /// since a snapshot arrived), the same figures as the dump's `net` segment (``NetGraphLine``).
    package var netGraphLines: [String] {
        let metrics = session.metrics
        let figures = self.figures
        let milliseconds = { (seconds: Double?) in seconds.map { decimalText($0 * 1000, places: 0) } ?? "-" }
        let kilobits = { (bytes: Int) in decimalText(Double(bytes) * 8 / 1000, places: 1) }
        var lines = [
            "ping \(milliseconds(figures.roundTrip)) ms  worst \(milliseconds(figures.worstRoundTrip)) ms  jitter \(milliseconds(figures.roundTripJitter)) ms",
            "interp \(milliseconds(figures.interpolationDelay)) ms  buffer \(figures.bufferDepth)  rate \(decimalText(metrics.playbackRate, places: 2))",
            "snapshot \(metrics.lastSnapshotBytes) B  in \(kilobits(metrics.bytesInPerSecond)) kbit/s  out \(kilobits(metrics.bytesOutPerSecond)) kbit/s",
            "tick \(session.tickRate) Hz  snapshots \(figures.snapshotsReceived) (\(metrics.fullSnapshotsReceived) full)",
            "newest \(figures.newestTick.map { "\($0)" } ?? "-")  age \(milliseconds(figures.newestSnapshotAge)) ms  last \(milliseconds(figures.timeSinceLastSnapshot)) ms ago",
            "corrections \(figures.predictionCorrections)  extrapolated \(figures.extrapolatedFrames)/\(figures.framesRendered)"
                + "  input \(milliseconds(figures.inputDelay)) ms  worst \(milliseconds(figures.worstInputDelay)) ms",
            "\(figures.transport ?? "-")  \(statusText)  reconnects \(connection.reconnects)",
        ]
        if let loss = figures.loss { lines[0] += "  loss \(decimalText(loss * 100, places: 1)) %" }
        if let linkRoundTrip = figures.linkRoundTrip {
            lines[6] += "  link rtt \(milliseconds(linkRoundTrip)) ms  jitter \(milliseconds(figures.linkJitter)) ms"
        }
        if let impaired = dialer.impaired {
            let network = options.downstream
            let delay = "+\(milliseconds(network.latency.secondsValue)) ms ±\(milliseconds(network.jitter.secondsValue)) ms"
            let loss =
                network.delivery == .unreliable
                ? "\(impaired.incomingFramesLost) lost" : "\(impaired.incomingSegmentsRetransmitted) retransmitted"
            lines.append("bad net: \(delay), \(loss)")
        }
        return lines
    }

    /// Leaves the game cleanly (the server frees the player at once).
    package func leave() {
        connection.leave()
    }
}

@available(*, unavailable, message: "An ArenaClient is driven from one thread.")
extension ArenaClient: Sendable {}

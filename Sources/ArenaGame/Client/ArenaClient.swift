import CommandLineSupport
import TickwireCodec
import TickwireSim
import TickwireWebSocket

/// One player's side of the arena: a Tickwire ``ClientSession`` over a WebSocket (with an
/// optional bad-network layer), reconnection with backoff that resumes the same player, and
/// the ``ArenaScene`` each frame shows.
///
/// Driven by calls on one thread: ``tick(input:)`` once per client tick, then ``scene()``.
public final class ArenaClient {
    /// How the client connects and plays.
    public struct Options: Hashable, Sendable {
        /// The server and room, `ws://HOST:PORT/ROOM`.
        public var url: WebSocketURL
        /// The name on the scoreboard.
        public var name: String
        /// A bad network to play through.
        public var impairment = ImpairedConnection.Impairment()
        /// Backoff between reconnection attempts.
        public var reconnect = ReconnectPolicy(baseDelay: .milliseconds(500), maximumDelay: .seconds(8))

        /// Creates options.
        ///
        /// - Parameters:
        ///   - url: The server and room.
        ///   - name: The scoreboard name.
        public init(url: WebSocketURL, name: String) {
            self.url = url
            self.name = name
        }

        /// The room the URL names (`main` for an empty path).
        public var room: String {
            let path = url.path.drop { $0 == "/" }
            return path.isEmpty ? "main" : String(path)
        }
    }

    /// Where the connection stands, for the HUD.
    public enum ConnectionState: Hashable, Sendable {
        /// Opening a connection (attempt number, from 1).
        case connecting(attempt: Int)
        /// Welcomed and playing.
        case connected(resumed: Bool)
        /// Lost; the next attempt starts at `at` (seconds on the client's clock).
        case waitingToReconnect(attempt: Int, at: Double)
        /// The server refused to let this client play; no retry.
        case refused(String)
    }

    /// The options the client runs with.
    public let options: Options
    /// The clock every time here is read from.
    public let clock: any TickClock
    /// The Tickwire session.
    public let session: ClientSession<Arena>
    /// Where the connection stands.
    public private(set) var connectionState = ConnectionState.connecting(attempt: 1)
    /// Reconnections made after the first connection.
    public private(set) var reconnections = 0
    private var connection: (any TransportConnection)?
    /// The bad-network layer of the current connection, when playing through one.
    private var impaired: ImpairedConnection?
    /// Where every frame in and out is recorded, when recording (`arena join --record`).
    private let recorder: RecordingWriter?
    private var failedAttempts = 0
    private var random = SplitMix64(seed: 0x7157)
    private var hasConnectedOnce = false

    /// Creates a client and starts connecting.
    ///
    /// - Parameters:
    ///   - options: Server, name and network.
    ///   - clock: The clock to run on.
    ///   - recorder: Records every frame the session sends and receives (for `tickwire inspect`).
    public init(options: Options, clock: any TickClock = MonotonicClock(), recorder: RecordingWriter? = nil) {
        self.options = options
        self.clock = clock
        self.recorder = recorder
        var configuration = ClientConfiguration()
        configuration.room = options.room
        configuration.helloPayload = Array(options.name.utf8.prefix(64))
        if options.impairment.snapshotLoss > 0 {
            // A lost frame would break a streaming deflate context: use per-frame compression.
            configuration.compressionModes = [.perFrame]
        }
        session = ClientSession(game: Arena(), clock: clock, configuration: configuration)
        openConnection()
    }

    deinit {
        connection?.close()
    }

    /// The client's tick rate: the server's once welcomed.
    public var tickRate: Int { session.tickRate }

    /// One client tick: reconnects when due, then sends this tick's input.
    ///
    /// - Parameter input: The local player's input.
    public func tick(input: ArenaInput) {
        let now = clock.now.seconds
        switch session.status {
        case .connected:
            if case .connected = connectionState {} else {
                connectionState = .connected(resumed: session.wasResumed)
                if hasConnectedOnce { reconnections += 1 }
                hasConnectedOnce = true
                failedAttempts = 0
            }
        case .rejected(let reason, let text):
            connectionState = .refused("\(reason): \(text)")
            return
        case .disconnected:
            if case .waitingToReconnect(_, let at) = connectionState {
                if now >= at { openConnection() }
            } else if case .refused = connectionState {
                return
            } else {
                failedAttempts += 1
                let unit = Double(random.next() % 1_000_000) / 1_000_000
                let delay = options.reconnect.delay(forAttempt: failedAttempts, unitRandom: unit)
                connectionState = .waitingToReconnect(attempt: failedAttempts + 1, at: now + delay.secondsValue)
            }
        case .idle, .handshaking:
            break
        }
        session.tick(input: input)
    }

    /// What to draw now.
    ///
    /// - Parameter showsNetGraph: Whether the net graph overlay is on.
    /// - Returns: The scene.
    public func scene(showsNetGraph: Bool = false) -> ArenaScene {
        var scene = ArenaScene(map: Arena().map)
        if let view = session.render() {
            for entity in view.entities {
                switch entity.typeIndex {
                case ArenaSchema.playerType: scene.players.append(ArenaSchema.player(from: entity))
                case ArenaSchema.bulletType: scene.bullets.append(ArenaSchema.bullet(from: entity))
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
    public var statusText: String {
        switch connectionState {
        case .connecting(let attempt): attempt > 1 ? "connecting (attempt \(attempt))…" : "connecting…"
        case .connected(let resumed): resumed ? "connected (resumed)" : "connected"
        case .waitingToReconnect(let attempt, let at):
            "reconnecting in \(decimalText(max(at - clock.now.seconds, 0), places: 1)) s (attempt \(attempt))"
        case .refused(let reason): "refused: \(reason)"
        }
    }

    /// The net graph's lines: ping, jitter, interpolation, sizes, rates and corrections.
    public var netGraphLines: [String] {
        let metrics = session.metrics
        let milliseconds = { (seconds: Double) in decimalText(seconds * 1000, places: 0) }
        let kilobits = { (bytes: Int) in decimalText(Double(bytes) * 8 / 1000, places: 1) }
        var lines = [
            "ping \(milliseconds(metrics.roundTrip)) ms  jitter \(milliseconds(metrics.roundTripJitter)) ms",
            "interp \(milliseconds(metrics.interpolationDelay)) ms  buffer \(metrics.bufferDepth)  rate \(decimalText(metrics.playbackRate, places: 2))",
            "snapshot \(metrics.lastSnapshotBytes) B  in \(kilobits(metrics.bytesInPerSecond)) kbit/s  out \(kilobits(metrics.bytesOutPerSecond)) kbit/s",
            "tick \(session.tickRate) Hz  snapshots \(metrics.snapshotsReceived) (\(metrics.fullSnapshotsReceived) full)",
            "corrections \(metrics.predictionCorrections)  extrapolated \(metrics.extrapolatedFrames)",
            "\(statusText)  reconnects \(reconnections)",
        ]
        if let impaired {
            let impairment = options.impairment
            lines.append("bad net: +\(milliseconds(impairment.latency)) ms ±\(milliseconds(impairment.jitter)) ms, \(impaired.droppedSnapshots) snapshots lost")
        }
        return lines
    }

    /// Leaves the game cleanly (the server frees the player at once).
    public func leave() {
        session.leave()
        connection = nil
    }

    private func openConnection() {
        let attempt = failedAttempts + 1
        connectionState = .connecting(attempt: attempt)
        do {
            var configuration = WebSocketClientConfiguration()
            configuration.handshakeTimeout = .seconds(3)
            let socket = try WebSocketClientTransportConnection(url: options.url, configuration: configuration)
            impaired = options.impairment.isNone
                ? nil
                : ImpairedConnection(wrapping: socket, impairment: options.impairment, clock: clock, seed: UInt64(attempt))
            var connection: any TransportConnection = impaired ?? socket
            // Record what the session sees: after the bad-network layer, so lost snapshots are absent.
            if let recorder { connection = RecordingConnection(wrapping: connection, recorder: recorder, clock: clock) }
            self.connection = connection
            session.connect(over: connection)
        } catch {
            // The client's own event loop could not start: count it as a failed attempt.
            failedAttempts += 1
            let delay = options.reconnect.delay(forAttempt: failedAttempts, unitRandom: 0.5)
            connectionState = .waitingToReconnect(attempt: failedAttempts + 1, at: clock.now.seconds + delay.secondsValue)
        }
    }
}

@available(*, unavailable, message: "An ArenaClient is driven from one thread.")
extension ArenaClient: Sendable {}

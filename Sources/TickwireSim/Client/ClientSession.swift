import TickwireCodec

/// A game client's side of the protocol: connects and handshakes, decodes snapshots
/// against stored baselines and acknowledges them, estimates the server clock, sends an
/// input every client tick (repeating the last few unacknowledged ones), keeps an
/// interpolation buffer sampled at `estimated server time − adaptive delay` with a nudged
/// playback rate, and predicts and reconciles the local player.
///
/// Driven by calls: ``tick(input:)`` once per client tick, ``render()`` once per frame.
/// After a disconnect, ``connect(over:)`` with a new connection resumes the session (same
/// player, if within the host's grace period) and resets the view cleanly.
///
/// Not thread-safe: one thread drives it.
public final class ClientSession<G: Game> {
    /// The game played.
    public let game: G
    /// The clock the session reads.
    public let clock: any TickClock
    /// The session's configuration.
    public let configuration: ClientConfiguration
    let codec: SnapshotCodec

    /// Where the session stands.
    public private(set) var status = ClientStatus.idle
    /// The room the session joins (sent in every hello), decided at ``connect(over:)``:
    /// ``ClientConfiguration/room`` when it is set; otherwise the room the first connection's
    /// ``TransportConnection/requestPath`` named (the URL's path without its leading `/`,
    /// percent-decoded: `ws://host:7777/main` gives `main`), kept for every later connection
    /// (a redirect's or a moved disconnect's URL names a process, not a room); otherwise the
    /// host's default room, the empty string.
    public private(set) var room = ""
    /// The room a connection's path named first, when the configuration names none.
    private var roomFromPath: String?
    /// The room ``rejoin(room:connectToken:)`` named, which wins over the configuration's.
    private var rejoinRoom: String?
    /// The id the host gave this client (its player number), once welcomed.
    public private(set) var clientID: UInt32?
    /// The token to resume this session with, once welcomed.
    public private(set) var resumeToken: [UInt8]?
    /// The connect token the next hello that joins as a new player carries (PROTOCOL.md 5.3.1),
    /// from ``ClientConfiguration/connectToken``. A hello that resumes (with ``resumeToken``) never
    /// carries it, and a welcome spends it (each token joins once): it is `nil` from then on. Set
    /// a fresh token from the issuer here before a session that can no longer resume joins again.
    public var connectToken: Message.Hello.ConnectToken?
    /// Whether the last hello carried ``connectToken``: its welcome spends it.
    private var helloCarriedConnectToken = false
    /// Whether the last welcome gave back the same player as before (a resumed session): the
    /// same id and the resume token this client sent.
    public private(set) var wasResumed = false
    /// Welcomes received over the session's life: a welcome whose connection ended within the
    /// same tick still counts, so that a ``ReconnectingSession`` reports it as connected.
    var welcomes = 0
    /// The server's tick rate, from the welcome.
    public private(set) var tickRate = 20
    /// How the host codes the snapshot deltas it sends, from the welcome.
    public private(set) var deltaCoding = DeltaCoding.bitPacked
    /// Whether the host asked for render times with inputs (its welcome accepted them), for lag
    /// compensation; the session then sends one with every input.
    public private(set) var sendsRenderTimes = false
    /// The newest snapshot decoded.
    public internal(set) var latestSnapshot: Snapshot?
    /// The last input sequence the server reported applied.
    public internal(set) var lastProcessedInput: UInt32 = 0
    /// The newest stats message from the host (sent when the host is configured to; PROTOCOL.md 5.11).
    public internal(set) var latestServerStats: Message.Stats?
    /// The predicted world (only the local player's entity is meaningful), when predicting.
    public internal(set) var predictedState: G.State?
    /// How the last connection ended, as its transport reported it: the close code and text
    /// the host sent (PROTOCOL.md 1.3), or ``TransportCloseReason/connectionLost``. `nil` while
    /// connected, and when the session closed the connection itself first.
    ///
    /// After a reject or a disconnect message the session keeps the connection until the
    /// host's close arrives (at most ``closeWait``), so that this holds its code: 4000 (schema
    /// mismatch) and 4003 (unsupported version) say that trying again is pointless.
    public private(set) var closeReason: TransportCloseReason?
    /// The disconnect message that ended the last connection, if the host sent one (its reason,
    /// and its text: for ``Message/Disconnect/Reason/moved``, the URL to reconnect to). `nil`
    /// from ``connect(over:)`` until one arrives.
    public private(set) var lastDisconnect: Message.Disconnect?
    /// The close code of ``closeReason``, if the host sent one.
    public var closeCode: CloseCode? { closeReason?.code }
    /// How long the session waits, after a reject or a disconnect message, for the host's close
    /// before closing the connection itself.
    public static var closeWait: Duration { .seconds(1) }
    /// When the session began waiting for the host's close (after a reject or a disconnect).
    var closingSince: Timestamp?

    var connection: (any TransportConnection)?
    /// The newest connection, when it measures its own link: kept after it closes, so that the
    /// figures still name the transport while reconnecting.
    var link: (any LinkStatisticsReporting)?
    var compressor: FrameCompressor
    var decompressor: FrameDecompressor
    var received: SnapshotHistory
    /// The snapshot the history dropped last, decoded into next to reuse its storage.
    var spareSnapshot: Snapshot?
    var buffer: InterpolationBuffer
    var delay: InterpolationDelay
    var playback = PlaybackClock()
    var clockSync = ClockSync()
    var provisionalOffset: Double?
    var prediction = PredictionBuffer<G.Input>()
    var smoother: CorrectionSmoother
    /// The local player's entity as last read from a predicted world (reused, so reading it
    /// every render frame allocates nothing).
    var localCapture: QuantizedEntity
    var sequence: UInt32 = 0  // the newest input sequence sent on this connection
    /// The render time of each of the newest inputs (at most ``FrameLimits/maximumInputsPerMessage``),
    /// oldest first, one per sequence number up to `sequence`, while ``sendsRenderTimes``.
    var inputRenderTimes: [Message.RenderTime] = []
    /// Changes the render time claimed for each input (tests only: a client that lies).
    var renderTimeClaim: ((Message.RenderTime) -> Message.RenderTime)?
    var lastPing: Timestamp?
    var lastRender: Timestamp?
    var bytesIn = RateMeter()
    var bytesOut = RateMeter()
    var counters = ClientMetrics()
    var snapshotAges: [Double] = []
    /// When each input in flight was sent, and how long the applied ones took (``figures``).
    var inputDelays = InputDelayMeter()
    /// The newest snapshot's arrival and the frames rendered, for ``figures``.
    var freshness = ViewFreshness()

    /// Creates a session that is not connected yet.
    ///
    /// - Parameters:
    ///   - game: The game (the same schema and step as the host's).
    ///   - clock: The clock to read.
    ///   - configuration: Room, redundancy, intervals and view settings.
    public init(game: G, clock: any TickClock, configuration: ClientConfiguration = ClientConfiguration()) {
        self.game = game
        self.clock = clock
        self.configuration = configuration
        self.connectToken = configuration.connectToken
        self.codec = SnapshotCodec(schema: game.schema, limits: configuration.codecLimits)
        self.compressor = .uncompressed(limits: configuration.frameLimits)
        self.decompressor = .uncompressed(limits: configuration.frameLimits)
        self.received = SnapshotHistory(capacity: configuration.historySize)
        self.buffer = InterpolationBuffer(
            capacity: configuration.interpolationCapacity, maximumExtrapolation: configuration.maximumExtrapolation)
        self.delay = ClientSession.makeDelay(configuration, interval: 0.05)
        self.smoother = CorrectionSmoother(halfLife: configuration.correctionHalfLife, snapDistance: configuration.correctionSnapDistance)
        self.localCapture = QuantizedEntity(schema: game.schema)
    }

    static func makeDelay(_ configuration: ClientConfiguration, interval: Double) -> InterpolationDelay {
        var delay = InterpolationDelay(snapshotInterval: interval)
        delay.minimum = configuration.interpolationDelayRange.lowerBound
        delay.maximum = configuration.interpolationDelayRange.upperBound
        return delay
    }

    /// Connects over `connection` and sends the hello, resuming the previous session if
    /// there was one. Everything learned on an earlier connection (baselines, the
    /// interpolation buffer, the clock estimate, pending predictions) is reset.
    ///
    /// - Parameter connection: A fresh transport connection to the host.
    public func connect(over connection: any TransportConnection) {
        self.connection?.close()
        self.connection = connection
        link = connection as? any LinkStatisticsReporting
        closeReason = nil
        closingSince = nil
        lastDisconnect = nil
        compressor = .uncompressed(limits: configuration.frameLimits)
        decompressor = .uncompressed(limits: configuration.frameLimits)
        received.removeAll()
        buffer.removeAll()
        playback.reset()
        clockSync.reset()
        provisionalOffset = nil
        prediction.removeAll()
        smoother.reset()
        predictedState = nil
        latestSnapshot = nil
        lastProcessedInput = 0
        sequence = 0
        inputDelays.forgetPending()
        inputRenderTimes.removeAll()
        sendsRenderTimes = false
        lastPing = nil
        lastRender = nil
        status = .handshaking
        if roomFromPath == nil { roomFromPath = Self.room(fromPath: connection.requestPath) }
        room = rejoinRoom ?? configuration.room ?? roomFromPath ?? ""
        let joinToken = resumeToken == nil ? connectToken : nil
        helloCarriedConnectToken = joinToken != nil
        let hello = Message.Hello(
            protocolVersion: configuration.protocolVersion, schemaFingerprint: game.schema.fingerprint,
            compressionModes: configuration.compressionModes, room: room, resumeToken: resumeToken,
            payload: configuration.helloPayload, offersEntropyDeltas: configuration.offersEntropyDeltas,
            offersRenderTimes: configuration.offersRenderTimes, offersMotionPrediction: configuration.offersEntropyDeltas,
            offersPongHold: configuration.offersPongHold, offersTextFields: true, connectToken: joinToken)
        send(.hello(hello))
    }

    /// The room a request path names: the path without its leading slashes, percent-decoded
    /// (`/main` gives `main`, `/red%20team` gives `red team`); `nil` for no path, `/`, or a
    /// path that does not decode to UTF-8.
    ///
    /// - Parameter path: A request path, such as ``WebSocketURL/path``.
    /// - Returns: The room's name, or `nil` when the path names none.
    static func room(fromPath path: String?) -> String? {
        guard let path else { return nil }
        let encoded = Array(path.utf8.drop { $0 == UInt8(ascii: "/") })
        guard !encoded.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = 0
        while index < encoded.count {
            if encoded[index] == UInt8(ascii: "%"), index + 2 < encoded.count,
                let high = hexValue(encoded[index + 1]), let low = hexValue(encoded[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(encoded[index])
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Starts over as a new player: forgets the resume token and the player's id, so that the
    /// next ``connect(over:)`` joins rather than resumes, naming `room` and carrying
    /// `connectToken`. For a player whose host no longer holds it (past the resume grace period)
    /// and whose connect token is spent: a ``ReconnectingSession`` calls it with what its
    /// ``ReconnectingSession/rejoiner`` gives.
    ///
    /// - Parameters:
    ///   - room: The room to join from now on (over ``ClientConfiguration/room``), or `nil` for
    ///     the configuration's, else the one the next connection's path names.
    ///   - connectToken: The connect token the next hello carries, or `nil`.
    public func rejoin(room: String?, connectToken: Message.Hello.ConnectToken?) {
        resumeToken = nil
        clientID = nil
        wasResumed = false
        rejoinRoom = room
        if room == nil { roomFromPath = nil }
        self.connectToken = connectToken
    }

    /// Leaves the game: tells the host (which removes the player at once) and closes.
    public func leave() {
        send(.disconnect(Message.Disconnect(reason: .leaving)))
        connection?.close()
        connection = nil
        closingSince = nil
        resumeToken = nil
        status = .disconnected("left")
    }

    /// One client tick: takes in what arrived, then, when connected, records and predicts
    /// `input` (if any), sends the input message (with the acknowledgement), and pings when due.
    ///
    /// - Parameter input: This tick's input, or `nil` to send only the acknowledgement.
    public func tick(input: G.Input?) {
        receive()
        guard status == .connected, let me = clientID else { return }
        if let input {
            sequence &+= 1
            prediction.record(input, sequence: sequence)
            inputDelays.sent(sequence: sequence, at: clock.now.seconds)
            if sendsRenderTimes { recordRenderTime() }
            if configuration.predictsLocalPlayer, let state = predictedState {
                predictedState = game.step(state, inputs: [me: input], dt: 1 / Double(tickRate))
            }
        }
        let inputs = prediction.newest(min(configuration.inputRedundancy, Int(sequence), configuration.frameLimits.maximumInputsPerMessage))
        let renderTimes = sendsRenderTimes ? Array(inputRenderTimes.suffix(inputs.count).reversed()) : nil
        send(
            .input(
                Message.Input(
                    ackTick: received.newestTick, newestSequence: sequence, inputs: inputs.map(game.encode),
                    renderTimes: renderTimes?.count == inputs.count ? renderTimes : nil)))
        let now = clock.now
        if lastPing.map({ now - $0 >= configuration.pingInterval }) ?? true {
            lastPing = now
            send(.ping(Message.Ping(clientTime: UInt64(max(0, now.nanoseconds / 1000)))))
        }
    }

    /// Takes in every frame that has arrived (``tick(input:)`` does this first).
    public func receive() {
        guard let connection else { return }
        let now = clock.now
        for arrival in connection.drainArrivals() {
            switch arrival.event {
            case .frame(let bytes):
                bytesIn.add(bytes.count, at: now)
                // After a reject or a disconnect only the host's close matters.
                if closingSince == nil { handle(bytes, now: now, arrivedAt: now - arrival.waited) }
            case .closed(let reason):
                self.connection = nil
                closingSince = nil
                closeReason = reason
                if case .connected = status { status = .disconnected(reason.description) }
                if case .handshaking = status { status = .disconnected(reason.description) }
            }
            if self.connection == nil { break }
        }
        if let since = closingSince, now - since >= Self.closeWait {
            // The host did not close: close without learning its code.
            self.connection?.close()
            self.connection = nil
            closingSince = nil
        }
    }

    /// Sends `message` through the send pipeline (the compressor alone decides on compression).
    /// A frame refused after it joined the streaming history has closed the connection: the
    /// session is then disconnected, and ``connect(over:)`` resumes it with fresh streams.
    private func send(_ message: Message) {
        guard let connection else { return }
        switch compressor.send(message, over: connection) {
        case .sent(let bytes):
            bytesOut.add(bytes, at: clock.now)
        case .closedBrokenStream(let result):
            self.connection = nil
            status = .disconnected("the connection refused a compressed frame (\(result)); the compression stream would break")
        case .notSent:
            break
        case .notEncoded(let error):
            configuration.logSink.log(
                .error, "could not encode a message for the server; it was not sent",
                metadata: ["message": "\(message.type)", "error": "\(error)"], source: "client")
        }
    }

    /// What a welcome chose that this session's hello did not offer, in words, or `nil`.
    private func unofferedChoice(of welcome: Message.Welcome) -> String? {
        if welcome.deltaCoding != .bitPacked && !configuration.offersEntropyDeltas { return "entropy-coded deltas" }
        if welcome.acceptsRenderTimes && !configuration.offersRenderTimes { return "render times with inputs" }
        if !configuration.compressionModes.offers(welcome.compression) {
            return "compression mode \(welcome.compression)"
        }
        return nil
    }

    private func handle(_ bytes: [UInt8], now: Timestamp, arrivedAt: Timestamp) {
        let message: Message
        do {
            message = try decompressor.decode(bytes)
        } catch {
            counters.snapshotsUndecodable += 1
            configuration.logSink.log(
                decompressor.isBroken ? .error : .warning, "could not decode a frame from the server; it was dropped",
                metadata: ["error": "\(error)", "bytes": "\(bytes.count)"], source: "client")
            if decompressor.isBroken {
                connection?.close(code: .malformedFrame, reason: "malformed frame")
                connection = nil
                status = .disconnected("the server's compression stream broke: \(error)")
            } else if case .handshaking = status {
                // A welcome that does not decode (PROTOCOL.md 5.4: bit 5 without bit 7, an unknown
                // mode) leaves the handshake nowhere to go.
                connection?.close(code: .malformedFrame, reason: "malformed frame")
                connection = nil
                status = .disconnected("the server's answer to the hello cannot be decoded: \(error)")
            }
            return
        }
        switch message {
        case .welcome(let welcome):
            guard case .handshaking = status else { return }
            // A host that resumed us hands back the token we sent; a fresh host may reuse our old
            // id for a new player, but not our token.
            wasResumed = resumeToken != nil && clientID == welcome.clientID && welcome.resumeToken == resumeToken
            clientID = welcome.clientID
            resumeToken = welcome.resumeToken.isEmpty ? nil : welcome.resumeToken
            if helloCarriedConnectToken { connectToken = nil }
            tickRate = max(1, Int(welcome.tickRate))
            provisionalOffset = Double(welcome.serverTime) / 1e6 - now.seconds
            delay = ClientSession.makeDelay(configuration, interval: 1 / Double(tickRate))
            // A welcome may choose only what the hello offered (PROTOCOL.md 5.4): 4004 otherwise.
            if let unoffered = unofferedChoice(of: welcome) {
                status = .disconnected("the welcome chose \(unoffered), which the hello did not offer")
                connection?.close(code: .malformedFrame, reason: "welcome chose what the hello did not offer")
                connection = nil
                return
            }
            deltaCoding = welcome.deltaCoding
            sendsRenderTimes = welcome.acceptsRenderTimes
            do {
                compressor = try FrameCompressor(mode: welcome.compression, limits: configuration.frameLimits)
                decompressor = try FrameDecompressor(mode: welcome.compression, limits: configuration.frameLimits)
            } catch {
                status = .disconnected("could not set up compression: \(error)")
                connection?.close()
                connection = nil
                return
            }
            status = .connected
            welcomes += 1
        case .reject(let reject):
            status = .rejected(reject.reason, reject.text)
            closingSince = now
        case .snapshot(let snapshot):
            take(snapshot, frameBytes: bytes.count, arrivedAt: arrivedAt)
        case .stats(let stats):
            latestServerStats = stats
        case .pong(let pong):
            // Timed from the pong's arrival, not from this drain: the client's own tick wait is no part of the network.
            clockSync.addSample(
                sent: Double(pong.clientTime) / 1e6, serverTime: Double(pong.serverTime) / 1e6,
                hold: Double(pong.hold ?? 0) / 1e6, received: Double(arrivedAt.nanoseconds / 1000) / 1e6)
        case .disconnect(let disconnect):
            lastDisconnect = disconnect
            // A kicked player is gone from the room: its token resumes nothing.
            if disconnect.reason == .kicked || disconnect.reason == .kickedMayRejoin { resumeToken = nil }
            status = .disconnected(disconnect.text.isEmpty ? disconnect.reason.description : "\(disconnect.reason): \(disconnect.text)")
            closingSince = now
        default:
            break
        }
    }
}

@available(*, unavailable)
extension ClientSession: Sendable {}

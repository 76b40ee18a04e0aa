import TickwireCodec

/// A room's record of one client: its connection (while connected), compression streams,
/// acknowledged snapshot, the snapshots sent to it, its queued inputs and its metrics.
///
/// Not thread-safe: owned and driven by its room on the tick thread.
final class RoomClient<G: Game> {
    let id: UInt32
    let token: [UInt8]
    var connection: (any TransportConnection)?
    /// The identity the client's connect token verified when it joined (PROTOCOL.md 5.3.1), kept
    /// for its resumes and departures, and saved with the room's state (``ResumableClient/identity``);
    /// `nil` for anonymous play.
    var identity: PlayerIdentity?
    /// The client's compression stream; it alone decides which frames are deflated.
    var compressor: FrameCompressor
    var decompressor: FrameDecompressor
    /// How this client's snapshot deltas are coded: entropy-coded when its hello offered it and
    /// the host allows it (``HostConfiguration/entropyDeltas``), motion-predicted when the hello
    /// offered that too and the host allows it (``HostConfiguration/motionPrediction``).
    var deltaCoding = DeltaCoding.bitPacked
    /// Whether the welcome told this client to send render times with its inputs (its hello
    /// offered them and the game compensates lag, ``Game/compensatesLag``).
    var acceptsRenderTimes = false
    /// Whether the welcome told this client that pongs carry their hold (its hello offered it,
    /// ``Message/Hello/offersPongHold``): its pings are then answered with the hold.
    var acceptsPongHold = false
    /// The snapshots sent to this client (after its interest filter), by tick.
    var sent: SnapshotHistory
    /// The server time each snapshot in `sent` was sent at (a ring by tick, like `sent`),
    /// for round-trip estimates.
    var sentTimes: [(tick: UInt32, time: Int64)]
    var acknowledgedTick: UInt32?
    /// Forces the next snapshot to be full (after resumption, the client holds no baseline).
    var needsFullSnapshot = true
    var snapshotInterval: Int
    /// Inputs waiting to be applied, oldest first, each with the render time the client claimed
    /// for it (when it sends them) and when it arrived (for the host's own estimate).
    var inputQueue: [QueuedInput<G.Input>] = []
    var lastReceivedSequence: UInt32 = 0
    var lastAppliedSequence: UInt32 = 0
    var lastHeard: Timestamp
    var disconnectedAt: Timestamp?
    /// Whether the client has sent an input the game could decode (on any of its connections):
    /// its held slot gets the full ``HostConfiguration/resumeGracePeriod``, else only
    /// ``HostConfiguration/resumeGracePeriodWithoutInput``.
    var hasSentInput: Bool
    /// Whether the client was restored from a ``HostState`` and has not come back since: its held
    /// slot does not count towards ``HostConfiguration/heldSlotLimit``.
    var isRestored: Bool
    /// The bad-frame policy's count of this client's recent bad frames.
    var badFrames: BadFrameLimiter
    var metrics = HostClientMetrics()
    var bytesOut = RateMeter()
    var bytesIn = RateMeter()

    /// Creates the record of a client; a `nil` connection makes it one restored from a
    /// ``ResumableClient``, disconnected since `now` and waiting to resume.
    init(
        id: UInt32, token: [UInt8], connection: (any TransportConnection)?, compression: CompressionMode,
        configuration: HostConfiguration, now: Timestamp
    ) throws(FrameError) {
        self.id = id
        self.token = token
        self.connection = connection
        self.compressor = try RoomClient.makeCompressor(compression, configuration: configuration)
        self.decompressor = try FrameDecompressor(mode: compression, limits: configuration.frameLimits)
        self.sent = SnapshotHistory(capacity: configuration.historySize)
        self.sentTimes = Array(repeating: (0, -1), count: max(1, configuration.historySize))
        self.snapshotInterval = max(1, configuration.snapshotInterval)
        self.lastHeard = now
        self.disconnectedAt = connection == nil ? now : nil
        self.hasSentInput = connection == nil
        self.isRestored = connection == nil
        self.badFrames = BadFrameLimiter(limit: configuration.badFrameLimit, window: configuration.badFrameWindow)
    }

    static func makeCompressor(_ mode: CompressionMode, configuration: HostConfiguration) throws(FrameError) -> FrameCompressor {
        try FrameCompressor(
            mode: mode, level: configuration.compressionLevel, windowBits: configuration.compressionWindowBits,
            memoryLevel: configuration.compressionMemoryLevel, limits: configuration.frameLimits)
    }

    /// Attaches a new connection after resumption: fresh compression streams, no baseline.
    func resume(on connection: any TransportConnection, compression: CompressionMode, configuration: HostConfiguration, now: Timestamp)
        throws(FrameError)
    {
        self.connection = connection
        compressor = try RoomClient.makeCompressor(compression, configuration: configuration)
        decompressor = try FrameDecompressor(mode: compression, limits: configuration.frameLimits)
        sent.removeAll()
        sentTimes = Array(repeating: (0, -1), count: sentTimes.count)
        acknowledgedTick = nil
        needsFullSnapshot = true
        // Sequence numbers restart at 1 on each connection (PROTOCOL.md 5.7).
        lastReceivedSequence = 0
        lastAppliedSequence = 0
        inputQueue.removeAll()
        lastHeard = now
        disconnectedAt = nil
        isRestored = false
    }

    var isConnected: Bool { connection != nil }

    func recordSendTime(tick: UInt32, time: Int64) {
        sentTimes[Int(tick % UInt32(sentTimes.count))] = (tick, time)
    }

    func sendTime(of tick: UInt32) -> Int64? {
        let entry = sentTimes[Int(tick % UInt32(sentTimes.count))]
        return entry.tick == tick && entry.time >= 0 ? entry.time : nil
    }

    /// Sends `message` through the send pipeline and counts its bytes.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - now: The time, for the byte rate.
    ///   - budgetBytes: The most bytes this client may have waiting before the message is
    ///     skipped (the outbound budget for snapshots); by default only the transport's limit.
    /// - Returns: What became of it. After ``MessageSendOutcome/closedBrokenStream(_:)`` the
    ///   client is disconnected (it may resume).
    @discardableResult
    func send(_ message: Message, now: Timestamp, budgetBytes: Int = .max) -> MessageSendOutcome {
        guard let connection else { return .notSent(.closed) }
        let outcome = compressor.send(message, over: connection, budgetBytes: budgetBytes)
        switch outcome {
        case .sent(let bytes):
            bytesOut.add(bytes, at: now)
        case .closedBrokenStream:
            self.connection = nil
            disconnectedAt = now
        case .notSent, .notEncoded:
            break
        }
        return outcome
    }

    /// Queues the inputs of an input message that are newer than any received before.
    ///
    /// - Parameters:
    ///   - message: The input message.
    ///   - game: The game, to decode the inputs.
    ///   - limit: The most inputs queued.
    ///   - now: When the message arrived.
    /// - Returns: How many of those new inputs the game could not decode (bad frames to the
    ///   bad-frame policy; each sequence number is looked at once, so repeats count once).
    func enqueue(_ message: Message.Input, game: G, limit: Int, now: Timestamp) -> Int {
        var undecodable = 0
        // Inputs come newest first; walk them oldest first.
        for index in stride(from: message.inputs.count - 1, through: 0, by: -1) {
            let sequence = message.sequence(at: index)
            guard sequence > lastReceivedSequence else { continue }
            lastReceivedSequence = sequence
            guard let input = game.decodeInput(message.inputs[index]) else {
                undecodable += 1
                continue
            }
            hasSentInput = true
            inputQueue.append(QueuedInput(sequence: sequence, input: input, renderTime: message.renderTime(at: index), arrival: now))
        }
        if inputQueue.count > limit { inputQueue.removeFirst(inputQueue.count - limit) }
        return undecodable
    }
}

/// One input waiting in a ``RoomClient``'s queue.
struct QueuedInput<Input: Sendable>: Sendable {
    /// Its sequence number.
    var sequence: UInt32
    /// The decoded input.
    var input: Input
    /// What the client said it showed when it sampled the input, if it sends render times.
    var renderTime: Message.RenderTime?
    /// When the input message carrying it arrived.
    var arrival: Timestamp
}

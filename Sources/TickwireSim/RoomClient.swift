import TickwireCodec

/// A room's record of one client: its connection (while connected), compression streams,
/// acknowledged snapshot, the snapshots sent to it, its queued inputs and its metrics.
///
/// Not thread-safe: owned and driven by its room on the tick thread.
final class RoomClient<G: Game> {
    let id: UInt32
    let token: [UInt8]
    var connection: (any TransportConnection)?
    var compressor: FrameCompressor
    var compression: CompressionMode
    /// Per-frame mode only: whether deflating snapshots has recently made them at least 10%
    /// smaller. When it has not, snapshots go uncompressed (each per-frame frame stands
    /// alone, so this is allowed) and deflate is tried again every ``compressionProbeInterval``
    /// frames. Snapshots whose delta is under ``Message/smallSnapshotBytes`` are never deflated:
    /// a few bytes saved are not worth a deflate call.
    var compressionPays = true
    var framesUntilProbe = 0
    static var compressionProbeInterval: Int { 32 }
    var decompressor: FrameDecompressor
    /// The snapshots sent to this client (after its interest filter), by tick.
    var sent: SnapshotHistory
    /// The server time each snapshot in `sent` was sent at (a ring by tick, like `sent`),
    /// for round-trip estimates.
    var sentTimes: [(tick: UInt32, time: Int64)]
    var acknowledgedTick: UInt32?
    /// Forces the next snapshot to be full (after resumption, the client holds no baseline).
    var needsFullSnapshot = true
    var snapshotInterval: Int
    var inputQueue: [(sequence: UInt32, input: G.Input)] = []
    var lastReceivedSequence: UInt32 = 0
    var lastAppliedSequence: UInt32 = 0
    var lastHeard: Timestamp
    var disconnectedAt: Timestamp?
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
        self.compression = compression
        self.sent = SnapshotHistory(capacity: configuration.historySize)
        self.sentTimes = Array(repeating: (0, -1), count: max(1, configuration.historySize))
        self.snapshotInterval = max(1, configuration.snapshotInterval)
        self.lastHeard = now
        self.disconnectedAt = connection == nil ? now : nil
    }

    static func makeCompressor(_ mode: CompressionMode, configuration: HostConfiguration) throws(FrameError) -> FrameCompressor {
        try FrameCompressor(
            mode: mode, level: configuration.compressionLevel, windowBits: configuration.compressionWindowBits,
            memoryLevel: configuration.compressionMemoryLevel, limits: configuration.frameLimits)
    }

    /// Attaches a new connection after resumption: fresh compression streams, no baseline.
    func resume(on connection: any TransportConnection, compression: CompressionMode, configuration: HostConfiguration, now: Timestamp) throws(FrameError) {
        self.connection = connection
        compressor = try RoomClient.makeCompressor(compression, configuration: configuration)
        decompressor = try FrameDecompressor(mode: compression, limits: configuration.frameLimits)
        self.compression = compression
        compressionPays = true
        framesUntilProbe = 0
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
    }

    var isConnected: Bool { connection != nil }

    func recordSendTime(tick: UInt32, time: Int64) {
        sentTimes[Int(tick % UInt32(sentTimes.count))] = (tick, time)
    }

    func sendTime(of tick: UInt32) -> Int64? {
        let entry = sentTimes[Int(tick % UInt32(sentTimes.count))]
        return entry.tick == tick && entry.time >= 0 ? entry.time : nil
    }

    /// Sends `message` and counts its bytes.
    func send(_ message: Message, now: Timestamp) -> Int? {
        guard let connection else { return nil }
        let frame: [UInt8]
        if compression == .perFrame, let body = try? message.encodeBody(limits: compressor.limits), body.count < 128 {
            // Pongs and disconnects are a few bytes that deflate cannot shrink; a per-frame
            // frame may always go uncompressed.
            frame = Frame(type: message.type, body: body).bytes
        } else {
            guard let encoded = try? compressor.encode(message) else { return nil }
            frame = encoded
        }
        connection.send(frame)
        bytesOut.add(frame.count, at: now)
        return frame.count
    }

    /// Sends a snapshot message, deflating it only when that pays (see ``compressionPays``).
    func sendSnapshot(_ message: Message, now: Timestamp, limits: FrameLimits) -> Int? {
        guard let connection else { return nil }
        let frame: [UInt8]
        if compression == .perFrame, !compressionPays && framesUntilProbe > 0 || message.isSmallSnapshot {
            if !compressionPays { framesUntilProbe -= 1 }
            guard let body = try? message.encodeBody(limits: limits), body.count + 1 <= limits.maximumFrameBytes else { return nil }
            frame = Frame(type: message.type, body: body).bytes
        } else {
            let rawBefore = compressor.uncompressedByteCount
            guard let encoded = try? compressor.encode(message) else { return nil }
            frame = encoded
            if compression == .perFrame {
                let raw = compressor.uncompressedByteCount - rawBefore
                compressionPays = frame.count * 10 <= raw * 9
                framesUntilProbe = compressionPays ? 0 : RoomClient.compressionProbeInterval
            }
        }
        connection.send(frame)
        bytesOut.add(frame.count, at: now)
        return frame.count
    }

    /// Queues the inputs of an input message that are newer than any received before.
    func enqueue(_ message: Message.Input, game: G, limit: Int) {
        // Inputs come newest first; walk them oldest first.
        for index in stride(from: message.inputs.count - 1, through: 0, by: -1) {
            let sequence = message.sequence(at: index)
            guard sequence > lastReceivedSequence else { continue }
            lastReceivedSequence = sequence
            guard let input = game.decodeInput(message.inputs[index]) else {
                metrics.badFrames += 1
                continue
            }
            inputQueue.append((sequence, input))
        }
        if inputQueue.count > limit { inputQueue.removeFirst(inputQueue.count - limit) }
    }
}

extension Message {
    /// Snapshot deltas shorter than this go uncompressed in per-frame mode.
    static var smallSnapshotBytes: Int { 256 }

    var isSmallSnapshot: Bool {
        if case .snapshot(let snapshot) = self { return snapshot.delta.count < Message.smallSnapshotBytes }
        return false
    }
}

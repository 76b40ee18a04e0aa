/// What a host knows about one client's traffic, readable through ``Room/clientMetrics(_:)``.
public struct HostClientMetrics: Sendable {
    /// Round trip estimated from acknowledgements: the time from sending a snapshot to
    /// receiving its acknowledgement (includes up to one client tick of waiting), seconds.
    public var roundTrip = 0.0
    /// Frame bytes sent to the client in the last complete second.
    public var bytesOutPerSecond = 0
    /// Frame bytes received from the client in the last complete second.
    public var bytesInPerSecond = 0
    /// Snapshots sent.
    public var snapshotsSent = 0
    /// Snapshots skipped because the client's transport was backed up.
    public var snapshotsSkipped = 0
    /// Snapshots dropped because they could not be encoded for the client (a codec or frame
    /// limit); each was logged (``HostConfiguration/logSink``).
    public var snapshotsNotEncoded = 0
    /// Full snapshots sent because no acknowledged baseline was still in the history
    /// (including the first one).
    public var fullSnapshotsSent = 0
    /// Size in bytes of the last snapshot frame sent (after compression).
    public var lastSnapshotBytes = 0
    /// The largest snapshot frame sent.
    public var largestSnapshotBytes = 0
    /// Total snapshot frame bytes sent.
    public var snapshotBytesTotal = 0
    /// The newest snapshot tick the client acknowledged.
    public var acknowledgedTick: UInt32?
    /// Inputs applied.
    public var inputsApplied = 0
    /// Bad frames from the client: frames the host could not decode, inputs the game could not
    /// decode, messages of a type clients do not send.
    public var badFrames = 0

    /// The mean size of the snapshot frames sent.
    public var averageSnapshotBytes: Double {
        snapshotsSent == 0 ? 0 : Double(snapshotBytesTotal) / Double(snapshotsSent)
    }
}

/// A room's figures, readable through ``Room/metrics``.
public struct RoomMetrics: Sendable {
    /// Ticks run, dropped, overruns and tick duration percentiles.
    public var ticks = TickStatistics()
    /// Clients connected now.
    public var connectedClients = 0
    /// Clients disconnected and still within their resumption grace period.
    public var resumableClients = 0
    /// Frame bytes sent to all clients in the last complete second.
    public var bytesOutPerSecond = 0
    /// Frame bytes received from all clients in the last complete second.
    public var bytesInPerSecond = 0
    /// Frame bytes sent to all clients (snapshots, pongs, stats), over the room's life.
    public var bytesOutTotal = 0
    /// Frame bytes received from all clients, over the room's life.
    public var bytesInTotal = 0
    /// Snapshots sent, over the room's life.
    public var snapshotsSent = 0
    /// Snapshots skipped for backed-up clients, over the room's life.
    public var snapshotsSkipped = 0
    /// Ticks whose snapshot the game could not capture (``Game/capture(_:into:)`` threw), so
    /// that no client got one, over the room's life.
    public var snapshotsNotCaptured = 0
    /// Snapshots dropped because they could not be encoded for a client (a codec or frame
    /// limit), over the room's life.
    public var snapshotsNotEncoded = 0
    /// Full snapshots sent (baselines missed), over the room's life.
    public var fullSnapshotsSent = 0
    /// Total bytes of snapshot frames sent, over the room's life.
    public var snapshotBytesTotal = 0
    /// Bad frames received from all clients (frames that failed to decode, inputs the game
    /// could not decode, messages of a type clients do not send), over the room's life.
    public var badFrames = 0
    /// Clients disconnected by the bad-frame policy (``HostConfiguration/badFrameLimit``), over
    /// the room's life.
    public var clientsDroppedForBadFrames = 0
    /// Pongs sent (answers to pings), over the room's life.
    public var pongsSent = 0
    /// The time the answered pings waited in the room, from their arrival to their pong
    /// (the tick wait a client subtracts, PROTOCOL.md §5.9.1), summed over the room's life, seconds.
    public var pingHoldSecondsTotal = 0.0
    /// Held slots whose grace period ran out, over the room's life.
    public var heldSlotsExpired = 0
    /// Held slots let go early (over ``HostConfiguration/heldSlotLimit``, or to make room for a
    /// new client in a full room), over the room's life.
    public var heldSlotsReleased = 0
}

/// What a client session knows about its connection and its view, readable through
/// ``ClientSession/metrics``.
public struct ClientMetrics: Sendable {
    /// Median network round trip from pings, seconds: the time from sending a ping to
    /// receiving its pong, less the time the server held it (when its pongs carry the hold,
    /// ``Message/Welcome/acceptsPongHold``; otherwise the hold, up to a server tick, is in it).
    public var roundTrip = 0.0
    /// Median time the server held a ping before answering it (its tick wait), seconds; zero
    /// when the server's pongs do not carry the hold.
    public var serverHold = 0.0
    /// Jitter of ping round trips, seconds.
    public var roundTripJitter = 0.0
    /// Jitter of snapshot arrivals, seconds (drives the interpolation delay).
    public var snapshotJitter = 0.0
    /// The current interpolation delay, seconds.
    public var interpolationDelay = 0.0
    /// Snapshots held ahead of the render time.
    public var bufferDepth = 0
    /// The current playback rate (1 = real time).
    public var playbackRate = 1.0
    /// Frame bytes received in the last complete second.
    public var bytesInPerSecond = 0
    /// Frame bytes sent in the last complete second.
    public var bytesOutPerSecond = 0
    /// Frame bytes received over the session's life: a count to difference over any window,
    /// where ``bytesInPerSecond`` covers only the last complete second.
    public var bytesInTotal = 0
    /// Frame bytes sent over the session's life.
    public var bytesOutTotal = 0
    /// Snapshots received.
    public var snapshotsReceived = 0
    /// Full snapshots received (no baseline).
    public var fullSnapshotsReceived = 0
    /// Size of the last snapshot frame received.
    public var lastSnapshotBytes = 0
    /// Snapshots that could not be decoded (missing baseline or bad data).
    public var snapshotsUndecodable = 0
    /// Prediction corrections (reconciliation changed the predicted local player).
    public var predictionCorrections = 0
    /// The largest prediction correction, in field units.
    public var largestCorrection = 0.0
    /// Frames the render view was extrapolated past the newest snapshot.
    public var extrapolatedFrames = 0
    /// Frames rendered: calls to ``ClientSession/render()`` that returned a view.
    public var renderedFrames = 0

    /// The share (0...1) of rendered frames that were extrapolated, ``extrapolatedFrames`` over
    /// ``renderedFrames``: how often the network left the view without a snapshot to interpolate
    /// towards. `0` before the first frame.
    public var extrapolatedShare: Double {
        renderedFrames > 0 ? Double(extrapolatedFrames) / Double(renderedFrames) : 0
    }
}

/// What a player experiences at one render frame, as a net graph shows it: ping (the median and
/// the recent worst), jitter, the interpolation delay and buffer, totals of extrapolated frames
/// and corrections since the session began, and how stale the view is; over a transport that
/// measures its own link (``LinkStatisticsReporting``, such as UDP), its name, loss, round trip
/// and jitter too.
///
/// Read it from ``ClientSession/figures`` once per frame, after ``ClientSession/render()``.
/// Times are in seconds. A figure the session cannot know yet is `nil` (no snapshot yet, no
/// pong yet), never a made-up zero.
///
/// ```swift
/// _ = session.render()
/// let figures = session.figures
/// if let since = figures.timeSinceLastSnapshot, since > 0.25 {
///     print("stalled: no snapshot for \(Int(since * 1000)) ms, newest tick \(figures.newestTick ?? 0)")
/// }
/// ```
public struct NetGraphFigures: Hashable, Sendable {
    /// The session clock's time when the figures were taken (``TickClock/now``).
    public var time = Timestamp.zero
    /// The transport's name (`udp`, `ws`, `wss`): ``TransportLinkStatistics/transport`` when the
    /// connection reports its link (``LinkStatisticsReporting``, as a UDP connection does);
    /// otherwise `nil`, for the app to fill in (it knows the URL it dialed).
    public var transport: String?
    /// The median round trip of the recent pings (the clock estimate's window of 16), seconds;
    /// `nil` before the first pong.
    public var roundTrip: Double?
    /// The longest round trip among the same recent pings, seconds; `nil` before the first pong.
    ///
    /// The median is robust by design and so hides a stall: while a few pongs take 300 ms, the
    /// median of 16 stays where the fast ones put it. This figure shows them.
    public var worstRoundTrip: Double?
    /// The pongs the recent round trips are taken over (at most 16).
    public var roundTripSamples = 0
    /// The jitter of ping round trips (a running mean of differences), seconds.
    public var roundTripJitter = 0.0
    /// The current interpolation delay, seconds.
    public var interpolationDelay = 0.0
    /// Snapshots held ahead of the render time.
    public var bufferDepth = 0
    /// Frames that drew a view (``ClientSession/render()`` returned one), since the session began.
    public var framesRendered = 0
    /// Of ``framesRendered``, those extrapolated past the newest snapshot.
    public var extrapolatedFrames = 0
    /// Snapshots received since the session began.
    public var snapshotsReceived = 0
    /// Prediction corrections (reconciliation moved the predicted local player) since the
    /// session began: at most one per received snapshot.
    public var predictionCorrections = 0
    /// The newest snapshot's tick; `nil` before the first snapshot of the current connection.
    public var newestTick: UInt32?
    /// The newest snapshot's age at this frame: the estimated server time now minus the server
    /// time stamped in it, seconds (the clock estimate's error is in it, at most half a round
    /// trip); `nil` before the first snapshot of the current connection.
    public var newestSnapshotAge: Double?
    /// The local time since the last snapshot arrived, seconds: during a stall it grows by a
    /// frame's time each frame. `nil` before the first snapshot of the session.
    public var timeSinceLastSnapshot: Double?
    /// How long the newest applied input took to reach the game, seconds: from the client
    /// sending it to the server time of the first snapshot this client received that says it was
    /// applied (the path one way, any resend that got it there, the wait for the server's tick,
    /// the clock estimate's error, and the ticks of snapshots lost or not sent in between).
    /// `nil` before the first snapshot that applies an input.
    public var inputDelay: Double?
    /// The longest of the last 16 input delays, seconds; `nil` before the first.
    public var worstInputDelay: Double?
    /// The share of packets lost (0...1), when the transport measures it
    /// (``TransportLinkStatistics/packetLoss``: the share of this side's recent packets the peer
    /// never acknowledged); `nil` otherwise (the WebSocket transport runs over TCP, which hides
    /// loss as delay).
    public var loss: Double?
    /// The transport's own smoothed round trip, seconds (``TransportLinkStatistics/roundTripTime``),
    /// when the transport measures it; `nil` otherwise.
    ///
    /// Taken from the transport's acknowledgements on every packet, not from pings: an ack that
    /// rides on the peer's next packet holds the wait for that packet (up to a host's tick), so on
    /// a quiet link it may read above ``roundTrip``, whose pong subtracts the host's hold.
    public var linkRoundTrip: Double?
    /// The jitter of the transport's own round trips, seconds (``TransportLinkStatistics/jitter``),
    /// when the transport measures it; `nil` otherwise.
    public var linkJitter: Double?

    /// Creates figures of a session that has seen nothing yet.
    public init() {}
}

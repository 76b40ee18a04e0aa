/// How fresh a client's view is: the newest snapshot taken in (its tick and server time), the
/// local time it arrived, and the frames rendered since the session began.
///
/// What a stall needs to be seen: while no snapshot arrives, the time since the last arrival
/// and the newest snapshot's age grow frame by frame. The counts survive reconnects; the newest
/// snapshot is only reported while the session holds one (``ClientSession/latestSnapshot``).
struct ViewFreshness: Sendable {
    /// The newest snapshot's tick.
    private(set) var newestTick: UInt32?
    /// The server time stamped in the newest snapshot, seconds.
    private(set) var newestServerTime: Double?
    /// The local time the newest snapshot arrived.
    private(set) var lastArrival: Timestamp?
    /// Frames that drew a view (interpolated or extrapolated), over the session's life.
    var framesRendered = 0

    /// Creates a record of no snapshot and no frame.
    init() {}

    /// Notes a snapshot taken into the view.
    ///
    /// - Parameters:
    ///   - tick: Its tick.
    ///   - serverTime: The server time stamped in it, seconds.
    ///   - arrival: The local time it arrived.
    mutating func recordSnapshot(tick: UInt32, serverTime: Double, arrival: Timestamp) {
        newestTick = tick
        newestServerTime = serverTime
        lastArrival = arrival
    }
}

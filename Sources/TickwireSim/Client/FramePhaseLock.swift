/// Keeps a client's frames a little after its snapshots arrive.
///
/// A client that ticks and draws at the server's rate, at a phase of its own, holds each
/// snapshot for up to a whole period before a frame takes it in: at an unlucky phase the newest
/// snapshot it draws from is always almost a tick older than the path makes it, and a snapshot
/// lost on the way costs a second tick on top of that. The lock measures, at every frame, the
/// time since the newest snapshot arrived (``NetGraphFigures/timeSinceLastSnapshot``), and moves
/// the next frame toward `lead` after the arrivals by a bounded step, the shorter way round. The
/// frames keep their rate: once locked, the adjustments are near zero, and follow only the
/// drift between the two clocks.
///
/// ```swift
/// let lock = FramePhaseLock()
/// nextFrame = nextFrame + period + .secondsValue(
///     lock.adjustment(sinceSnapshot: figures.timeSinceLastSnapshot, period: period.secondsValue, jitter: figures.roundTripJitter))
/// ```
///
/// The arrival times must be the transport's own (``TransportConnection/drainArrivals()``), not
/// the drains': a transport that stamps its frames at the drain ties the arrivals to the frames,
/// and the lock then chases its own frames (every real transport here, and
/// ``ImpairedTransportConnection`` over one, stamps them where they arrive).
///
/// A frame with no snapshot in the last period (one was lost, or none has come) moves nothing.
/// The lead grows with the path's jitter (twice the measured jitter), so that a snapshot a little
/// late still arrives before its frame.
public struct FramePhaseLock: Sendable, Equatable {
    /// How long after a snapshot's arrival the frames aim to land, before jitter (seconds).
    public let lead: Double
    /// The largest move of one frame (seconds).
    public let maximumStep: Double
    /// The share of the phase error corrected at each frame, 0 to 1.
    public let gain: Double

    /// Creates a lock.
    ///
    /// - Parameters:
    ///   - lead: How long after an arrival frames aim to land, before jitter (default 3 ms).
    ///   - maximumStep: The largest move of one frame (default 2 ms, so a frame's period
    ///     changes by at most that much).
    ///   - gain: The share of the phase error corrected at each frame (default 0.5).
    public init(lead: Double = 0.003, maximumStep: Double = 0.002, gain: Double = 0.5) {
        self.lead = max(0, lead)
        self.maximumStep = max(0, maximumStep)
        self.gain = min(max(gain, 0), 1)
    }

    /// The move of the next frame, in seconds: negative brings it earlier, positive later.
    ///
    /// - Parameters:
    ///   - sinceSnapshot: The time since the newest snapshot arrived, read at this frame; `nil`
    ///     before the first.
    ///   - period: The time between frames (seconds); one snapshot is expected per period.
    ///   - jitter: The path's jitter (seconds); the lead grows by twice it, up to half a period.
    /// - Returns: The move, at most ``maximumStep`` either way; zero when no snapshot arrived
    ///   in the last period.
    public func adjustment(sinceSnapshot: Double?, period: Double, jitter: Double = 0) -> Double {
        guard let since = sinceSnapshot, period > 0, since >= 0, since < period else { return 0 }
        let target = min(lead + 2 * max(0, jitter), period / 2)
        var error = since - target
        // A frame just before the arrivals is nearer to them going later than going earlier.
        if error > period / 2 { error -= period }
        return -min(max(error * gain, -maximumStep), maximumStep)
    }
}

/// Chooses how far behind the estimated server time a client renders, from the snapshot
/// interval and the measured jitter of snapshot arrivals.
///
/// Jitter is measured RFC 3550 style on the transit time of snapshots (local arrival time
/// minus the server time stamped in the snapshot): `J += (|ΔD| − J) / 16`. The target
/// delay is `intervalMultiple × snapshotInterval + jitterMultiple × jitter`, clamped to
/// `minimum...maximum`, so that on a steady link the client holds about two snapshots and
/// on a jittery one it holds enough to ride out the late ones. All times are in seconds.
public struct InterpolationDelay: Sendable {
    /// Snapshot intervals of delay to keep on a perfect link.
    public var intervalMultiple = 2.0
    /// Multiples of the measured jitter added on top.
    public var jitterMultiple = 3.0
    /// The smallest delay ever used.
    public var minimum = 0.03
    /// The largest delay ever used.
    public var maximum = 0.5

    /// The interval between snapshots (seconds), measured from their server times.
    public private(set) var snapshotInterval: Double
    /// The smoothed jitter of snapshot transit times (seconds).
    public private(set) var jitter: Double = 0
    private var lastTransit: Double?
    private var lastServerTime: Double?

    /// Creates the estimator.
    ///
    /// - Parameter snapshotInterval: The expected interval between snapshots, in seconds.
    public init(snapshotInterval: Double) {
        self.snapshotInterval = snapshotInterval
    }

    /// Records a snapshot's arrival.
    ///
    /// - Parameters:
    ///   - serverTime: The server time stamped in the snapshot.
    ///   - arrival: The local time it arrived.
    public mutating func recordArrival(serverTime: Double, arrival: Double) {
        let transit = arrival - serverTime
        if let lastTransit { jitter += (abs(transit - lastTransit) - jitter) / 16 }
        lastTransit = transit
        if let lastServerTime, serverTime > lastServerTime {
            // Follow the actual interval slowly (it changes when snapshots are skipped).
            snapshotInterval += (serverTime - lastServerTime - snapshotInterval) / 16
        }
        lastServerTime = serverTime
    }

    /// The delay to render at, in seconds.
    public var target: Double {
        min(max(intervalMultiple * snapshotInterval + jitterMultiple * jitter, minimum), maximum)
    }

    /// Forgets the measurements (after a reconnect); keeps the configuration.
    ///
    /// - Parameter snapshotInterval: The expected interval between snapshots.
    public mutating func reset(snapshotInterval: Double) {
        self.snapshotInterval = snapshotInterval
        jitter = 0
        lastTransit = nil
        lastServerTime = nil
    }
}

/// Chooses how far behind the estimated server time a client renders, from the age of
/// snapshots on arrival, the snapshot interval and the measured jitter of arrivals.
///
/// Each snapshot's age on arrival is the estimated server time when it arrived minus the
/// server time stamped in it (about the one-way latency; any error of the clock estimate
/// cancels out, since the render time is computed from the same estimate). The age is
/// smoothed (`A += (age − A) / 16`), and jitter is measured RFC 3550 style on the same ages:
/// `J += (|Δage| − J) / 16`. The target delay is `A + intervalMultiple × snapshotInterval +
/// jitterMultiple × J`, clamped to `minimum...maximum`: on a steady link the client holds
/// about two snapshots ahead of its render time, on a jittery one enough to ride out the
/// late ones. All times are in seconds.
struct InterpolationDelay: Sendable {
    /// Snapshot intervals of delay to keep on a perfect link.
    var intervalMultiple = 2.0
    /// Multiples of the measured jitter added on top.
    var jitterMultiple = 3.0
    /// The smallest delay ever used.
    var minimum = 0.03
    /// The largest delay ever used.
    var maximum = 0.5

    /// The interval between snapshots (seconds), measured from their server times.
    private(set) var snapshotInterval: Double
    /// The smoothed jitter of snapshot ages on arrival (seconds).
    private(set) var jitter: Double = 0
    /// The smoothed age of snapshots on arrival (seconds, about the one-way latency).
    private(set) var age: Double = 0
    private var lastTransit: Double?
    private var lastServerTime: Double?

    /// Creates the estimator.
    ///
    /// - Parameter snapshotInterval: The expected interval between snapshots, in seconds.
    init(snapshotInterval: Double) {
        self.snapshotInterval = snapshotInterval
    }

    /// Records a snapshot's arrival.
    ///
    /// - Parameters:
    ///   - serverTime: The server time stamped in the snapshot.
    ///   - arrival: The estimated server time when it arrived.
    mutating func recordArrival(serverTime: Double, arrival: Double) {
        let transit = arrival - serverTime
        if let lastTransit {
            jitter += (abs(transit - lastTransit) - jitter) / 16
            age += (transit - age) / 16
        } else {
            age = transit
        }
        lastTransit = transit
        if let lastServerTime, serverTime > lastServerTime {
            // Follow the actual interval slowly (it changes when snapshots are skipped).
            snapshotInterval += (serverTime - lastServerTime - snapshotInterval) / 16
        }
        lastServerTime = serverTime
    }

    /// The delay to render at, in seconds.
    var target: Double {
        min(max(age + intervalMultiple * snapshotInterval + jitterMultiple * jitter, minimum), maximum)
    }

    /// Forgets the measurements (after a reconnect); keeps the configuration.
    ///
    /// - Parameter snapshotInterval: The expected interval between snapshots.
    mutating func reset(snapshotInterval: Double) {
        self.snapshotInterval = snapshotInterval
        jitter = 0
        age = 0
        lastTransit = nil
        lastServerTime = nil
    }
}

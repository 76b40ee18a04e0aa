/// Estimates the server's clock from ping round trips: smoothed, and robust to outliers.
///
/// Each pong gives a round trip `rtt = received − sent` and an offset sample
/// `serverTime + rtt / 2 − received` (the server stamped its time, on average, half a
/// round trip ago). Delayed packets make both too large, never too small, so the
/// estimator keeps the last ``windowSize`` samples and trusts those with the shortest
/// round trips: the offset is the median offset of the fastest third, and the published
/// estimate moves toward it gradually (so the derived server time does not jump), except
/// for the first sample or a change larger than ``snapThreshold`` (a reconnect or a clock
/// step), where it snaps. All times are in seconds.
struct ClockSync: Sendable {
    /// How many recent samples the estimate is computed over.
    static let windowSize = 16
    /// A change of the robust offset larger than this (seconds) is adopted at once.
    static let snapThreshold = 0.25
    /// The fraction of the distance to the robust offset covered per new sample.
    static let smoothing = 0.2

    /// The round trips of the window's samples, in slot order (not time order), seconds.
    private(set) var roundTrips: [Double] = []
    private var offsets: [Double] = []
    private var nextSlot = 0

    /// The smoothed offset: server time ≈ local time + offset. `nil` before the first sample.
    private(set) var offset: Double?
    /// The median round trip over the window (seconds); zero before the first sample.
    private(set) var roundTrip: Double = 0
    /// The mean absolute difference between consecutive round trips (RFC 3550 style, seconds).
    private(set) var jitter: Double = 0
    /// Samples taken so far.
    private(set) var sampleCount = 0
    private var lastRoundTrip: Double?

    /// Creates an estimator with no samples.
    init() {}

    /// Adds one ping/pong exchange.
    ///
    /// - Parameters:
    ///   - sent: Local time the ping left.
    ///   - serverTime: The server time stamped in the pong.
    ///   - received: Local time the pong arrived.
    mutating func addSample(sent: Double, serverTime: Double, received: Double) {
        let rtt = max(0, received - sent)
        let sampleOffset = serverTime + rtt / 2 - received
        if roundTrips.count < Self.windowSize {
            roundTrips.append(rtt)
            offsets.append(sampleOffset)
        } else {
            roundTrips[nextSlot] = rtt
            offsets[nextSlot] = sampleOffset
            nextSlot = (nextSlot + 1) % Self.windowSize
        }
        sampleCount += 1
        if let lastRoundTrip { jitter += (abs(rtt - lastRoundTrip) - jitter) / 16 }
        lastRoundTrip = rtt
        roundTrip = Self.median(roundTrips)

        let fastest = roundTrips.indices.sorted { roundTrips[$0] < roundTrips[$1] }
        let trusted = fastest.prefix(max(1, fastest.count / 3)).map { offsets[$0] }
        let robust = Self.median(trusted)
        if let current = offset, abs(robust - current) <= Self.snapThreshold {
            offset = current + (robust - current) * Self.smoothing
        } else {
            offset = robust
        }
    }

    /// The estimated server time at local time `local`, or `nil` before the first sample.
    ///
    /// - Parameter local: A local time in seconds.
    /// - Returns: The server time in seconds.
    func serverTime(at local: Double) -> Double? {
        offset.map { local + $0 }
    }

    /// Forgets every sample (after a reconnect to a possibly different server).
    mutating func reset() {
        self = ClockSync()
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Observations counted in buckets, for a Prometheus histogram family
/// (``PrometheusWriter/histogram(_:help:_:labels:)``).
///
/// Each bucket counts the observations at or below its upper bound and above the bound before
/// it; the writer adds them up into the format's cumulative `le` buckets and the `+Inf` one.
/// Memory is fixed by the bounds: observing allocates nothing.
public struct MetricsHistogram: Hashable, Sendable {
    /// Bounds for durations of a game tick, in seconds: 100 µs to 250 ms, so that a 30 Hz
    /// period (33 ms) and a 60 Hz one (16.7 ms) fall between buckets that tell them apart.
    public static let tickDurationBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.0167, 0.025, 0.0333, 0.05, 0.1, 0.25,
    ]

    /// The buckets' upper bounds, ascending, finite, without repeats.
    public let upperBounds: [Double]
    /// Observations per bucket (not cumulative): index *i* counts those in
    /// (`upperBounds[i - 1]`, `upperBounds[i]`]; the last entry, one past the bounds, those above
    /// every bound.
    public private(set) var bucketCounts: [UInt64]
    /// Observations made.
    public private(set) var count: UInt64 = 0
    /// The sum of the observations.
    public private(set) var sum: Double = 0

    /// Creates an empty histogram.
    ///
    /// - Parameter upperBounds: The buckets' upper bounds, in any order; bounds that are not
    ///   finite or repeat are left out (the `+Inf` bucket is always there).
    public init(upperBounds: [Double]) {
        var bounds: [Double] = []
        for bound in upperBounds.filter(\.isFinite).sorted() where bounds.last != bound { bounds.append(bound) }
        self.upperBounds = bounds
        self.bucketCounts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts one observation; NaN is ignored.
    ///
    /// - Parameter value: The value observed, in the family's unit (seconds, bytes).
    public mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        var index = 0
        while index < upperBounds.count && value > upperBounds[index] { index += 1 }
        bucketCounts[index] += 1
        count += 1
        sum += value
    }

    /// The format's cumulative counts, one per upper bound and then the `+Inf` one (equal to
    /// ``count``).
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return bucketCounts.map { bucket in
            running += bucket
            return running
        }
    }
}

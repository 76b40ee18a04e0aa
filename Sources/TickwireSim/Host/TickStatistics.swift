/// Running statistics of how long ticks take: percentiles over a recent window,
/// the all-time maximum, overruns and dropped ticks.
///
/// Percentiles are computed over the last ``windowSize`` samples, so a long-running loop
/// keeps a bounded memory and the figures reflect current behaviour.
public struct TickStatistics: Sendable {
    /// How many recent tick durations the percentiles are computed over.
    public static let windowSize = 1024

    private var samples: [Int64] = []
    private var nextSlot = 0

    /// Ticks run so far.
    public private(set) var ticksRun: UInt64 = 0
    /// Ticks skipped after stalls because catching up would have exceeded the bound.
    public private(set) var ticksDropped: UInt64 = 0
    /// Ticks whose step took longer than the tick period.
    public private(set) var overruns: UInt64 = 0
    /// The longest tick ever measured.
    public private(set) var maximum: Duration = .zero

    /// Creates empty statistics.
    public init() {}

    /// Records one tick's duration.
    ///
    /// - Parameters:
    ///   - duration: How long the tick took.
    ///   - period: The tick period; a longer tick counts as an overrun.
    public mutating func record(_ duration: Duration, period: Duration) {
        let nanoseconds = duration.wholeNanoseconds
        if samples.count < Self.windowSize {
            samples.append(nanoseconds)
        } else {
            samples[nextSlot] = nanoseconds
            nextSlot = (nextSlot + 1) % Self.windowSize
        }
        ticksRun += 1
        if duration > period { overruns += 1 }
        if duration > maximum { maximum = duration }
    }

    /// Records ticks that were dropped rather than run.
    ///
    /// - Parameter count: How many ticks were dropped.
    public mutating func recordDropped(_ count: UInt64) {
        ticksDropped += count
    }

    /// The median tick duration over the recent window (zero before any tick).
    public var p50: Duration { percentile(0.50) }

    /// The 99th-percentile tick duration over the recent window (zero before any tick).
    public var p99: Duration { percentile(0.99) }

    /// The duration below which `fraction` of recent ticks fall (nearest-rank method).
    ///
    /// - Parameter fraction: A value in 0...1.
    /// - Returns: The percentile, or zero when there are no samples.
    public func percentile(_ fraction: Double) -> Duration {
        guard !samples.isEmpty else { return .zero }
        let sorted = samples.sorted()
        let rank = Int((min(max(fraction, 0), 1) * Double(sorted.count)).rounded(.up))
        return .nanoseconds(sorted[max(0, min(sorted.count - 1, rank - 1))])
    }
}

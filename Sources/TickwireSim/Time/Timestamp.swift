/// A point on a ``TickClock``'s timeline, in whole nanoseconds since the clock's origin.
///
/// Integer nanoseconds keep schedules exact: a tick deadline computed as
/// `origin + k * 1e9 / rate` never accumulates rounding error, however long the loop runs.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// Creates a timestamp `nanoseconds` after the clock's origin.
    ///
    /// - Parameter nanoseconds: Nanoseconds since the origin.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The clock's origin.
    public static let zero = Timestamp(nanoseconds: 0)

    /// The timestamp in seconds, as a floating-point number.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Creates a timestamp from seconds since the origin, rounded to the nearest nanosecond.
    ///
    /// - Parameter seconds: Seconds since the origin.
    public init(seconds: Double) {
        self.nanoseconds = Int64((seconds * 1e9).rounded())
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Returns the timestamp `duration` after `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: The starting point.
    ///   - rhs: How far to move.
    /// - Returns: The later (or, for a negative duration, earlier) timestamp.
    public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        Timestamp(nanoseconds: lhs.nanoseconds + rhs.wholeNanoseconds)
    }

    /// Returns the timestamp `duration` before `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: The starting point.
    ///   - rhs: How far to move back.
    /// - Returns: The earlier timestamp.
    public static func - (lhs: Timestamp, rhs: Duration) -> Timestamp {
        Timestamp(nanoseconds: lhs.nanoseconds - rhs.wholeNanoseconds)
    }

    /// Returns the time from `rhs` to `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: The later point.
    ///   - rhs: The earlier point.
    /// - Returns: The elapsed duration (negative when `lhs` is earlier).
    public static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
        .nanoseconds(lhs.nanoseconds - rhs.nanoseconds)
    }

    /// The time in seconds, such as `1.5s`.
    public var description: String { "\(seconds)s" }
}

extension Duration {
    /// The duration in whole nanoseconds (truncated toward zero; saturating at ±2^63 ns, about 292 years).
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return scaled &+ attoseconds / 1_000_000_000
    }

    /// The duration in seconds, as a floating-point number.
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Creates a duration from floating-point seconds, rounded to the nearest nanosecond.
    ///
    /// - Parameter seconds: The length in seconds.
    /// - Returns: The duration.
    public static func secondsValue(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}

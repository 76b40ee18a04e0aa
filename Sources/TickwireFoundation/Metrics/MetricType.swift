/// The type of a metric family, as its `# TYPE` line names it in the Prometheus text
/// exposition format 0.0.4: an extensible value, like the format's own list.
public struct MetricType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The word on the `# TYPE` line.
    public let rawValue: String

    /// Creates a type from its word.
    ///
    /// - Parameter rawValue: A lowercase word (`a`...`z` only), such as `counter`.
    /// - Returns: The type, or `nil` for an empty word or one with other characters, which
    ///   would break the `# TYPE` line.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else {
            return nil
        }
        self.rawValue = rawValue
    }

    private init(word: StaticString) {
        self.rawValue = word.description
    }

    /// A value that only goes up (and back to zero when the process restarts); its name ends in `_total`.
    public static let counter = MetricType(word: "counter")
    /// A value that goes up and down.
    public static let gauge = MetricType(word: "gauge")
    /// Observations counted in cumulative buckets (`_bucket{le="…"}`), with `_sum` and `_count`.
    public static let histogram = MetricType(word: "histogram")
    /// Observations summarised by quantiles (`{quantile="…"}`), with `_sum` and `_count`.
    public static let summary = MetricType(word: "summary")
    /// A value of no stated type.
    public static let untyped = MetricType(word: "untyped")

    /// The word on the `# TYPE` line.
    public var description: String { rawValue }
}

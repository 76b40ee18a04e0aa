import Synchronization

/// The latest figures of something that runs on one thread (a host, a room directory),
/// published there and read on another (the event loop answering `GET /metrics`).
///
/// The owner calls ``publish(_:)`` or ``update(_:)`` now and then (a host: once per pass),
/// never on a per-message path; readers take ``latest``. One `Mutex`, held only to copy the value.
public final class PublishedMetrics<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    /// Creates the cell with its first value.
    ///
    /// - Parameter initial: What readers see until the first publication.
    public init(_ initial: Value) {
        value = Mutex(initial)
    }

    /// The value published last.
    public var latest: Value { value.withLock { $0 } }

    /// Replaces the value.
    ///
    /// - Parameter newValue: The figures now.
    public func publish(_ newValue: Value) {
        value.withLock { $0 = newValue }
    }

    /// Changes the value in place, under the lock (keep it short: readers wait).
    ///
    /// - Parameter change: Changes the value.
    public func update(_ change: (inout Value) -> Void) {
        value.withLock { change(&$0) }
    }
}

extension PublishedMetrics: MetricsSource where Value: MetricsSource {
    /// Writes the latest value's families.
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        latest.writeMetrics(to: &writer)
    }
}

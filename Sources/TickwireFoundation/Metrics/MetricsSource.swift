/// Something that writes metric families when a ``MetricsRegistry`` renders them, on the
/// thread that asks for them (for `GET /metrics`, the server's event loop thread).
///
/// A source must be quick and thread-safe: it reads figures that another thread published
/// (a ``PublishedMetrics`` value, atomics), never the live state of a host or a room.
public protocol MetricsSource: Sendable {
    /// Appends this source's families.
    ///
    /// - Parameter writer: The body being written; write each family once, its samples together.
    func writeMetrics(to writer: inout PrometheusWriter)
}

/// A source made of a closure, as `MetricsRegistry.register(_:)` takes one.
struct ClosureMetricsSource: MetricsSource {
    let write: @Sendable (inout PrometheusWriter) -> Void

    func writeMetrics(to writer: inout PrometheusWriter) { write(&writer) }
}

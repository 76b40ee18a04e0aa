import TickwireFoundation

/// A Redis directory's state on `GET /metrics`: register the directory with the server's
/// ``MetricsRegistry`` (`arena serve --redis` does).
extension RedisRoomDirectory: MetricsSource {
    /// Writes `tickwire_directory_connected` (1 while the connection to Redis is open, else 0),
    /// `tickwire_directory_claims` (rooms this process holds a claim on) and
    /// `tickwire_directory_reconnects_total` (times the connection to Redis opened again).
    ///
    /// Each figure is read under the directory's own lock, on the thread that renders.
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        writer.gauge(
            "tickwire_directory_connected", help: "1 while the room directory's connection to Redis is open, else 0.",
            value: isConnected ? 1 : 0)
        writer.gauge("tickwire_directory_claims", help: "Rooms this process holds a claim on in the directory.", value: claimsHeld)
        writer.counter(
            "tickwire_directory_reconnects_total", help: "Times the directory's connection to Redis opened again after the first.",
            value: reconnectCount)
    }
}

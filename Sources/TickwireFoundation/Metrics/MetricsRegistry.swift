import Synchronization

/// The metric sources of one process, rendered together in the Prometheus text format for
/// `GET /metrics`.
///
/// Register sources once, in any order, from any thread (a host's published figures, a
/// server's connection counters, a game's own gauges, a room directory's state); each scrape
/// writes them in the order they were registered. A WebSocket server serves it on its port
/// through `httpHandler(otherwise:)` (TickwireWebSocket):
///
/// ```swift
/// let metrics = MetricsRegistry()
/// var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
/// configuration.httpHandler = metrics.httpHandler(otherwise: nil)
/// let server = try WebSocketServer(configuration: configuration) { _ in }
/// metrics.register(server.statistics)   // a source: the server's counters
/// metrics.register { writer in writer.gauge("mygame_lobbies", help: "Lobbies open.", value: 2) }
/// ```
///
/// Every family name must be written by one source only (two sources writing the same family
/// make a body Prometheus refuses).
public final class MetricsRegistry: Sendable {
    /// The path metrics are served at.
    public static let path = "/metrics"

    private let sources = Mutex<[any MetricsSource]>([])

    /// Creates a registry without sources.
    public init() {}

    /// Adds a source; it is written after the ones registered before it.
    ///
    /// - Parameter source: The source.
    public func register(_ source: any MetricsSource) {
        sources.withLock { $0.append(source) }
    }

    /// Adds a source made of a closure, called on the thread that renders (keep it quick and
    /// read only thread-safe figures).
    ///
    /// - Parameter write: Appends the source's families.
    public func register(_ write: @escaping @Sendable (inout PrometheusWriter) -> Void) {
        register(ClosureMetricsSource(write: write))
    }

    /// Writes every source's families, in the order they were registered.
    ///
    /// - Returns: The body of a `GET /metrics` answer.
    public func render() -> PrometheusWriter {
        let current = sources.withLock { $0 }
        var writer = PrometheusWriter()
        for source in current { source.writeMetrics(to: &writer) }
        return writer
    }
}

import Synchronization
import Tickwire

/// The arena's own lines on `GET /metrics`, after the host's and the server's: the bots.
///
/// The server's driving thread stores the figures between passes (``record(bots:)``); a
/// scrape reads them on the event loop thread.
final class ArenaMetrics: MetricsSource {
    private let bots = Atomic<Int>(0)

    /// Stores the bots in every room now.
    ///
    /// - Parameter count: The bots.
    func record(bots count: Int) {
        bots.store(count, ordering: .relaxed)
    }

    /// Writes `tickwire_arena_bots`.
    ///
    /// - Parameter writer: The body being written.
    func writeMetrics(to writer: inout PrometheusWriter) {
        writer.gauge("tickwire_arena_bots", help: "Bots playing in the arena's rooms.", value: bots.load(ordering: .relaxed))
    }
}

import TickwireFoundation

extension UDPTransportServer.Statistics {
    /// Writes `tickwire_udp_datagrams_dropped_total`: the datagrams the server dropped without
    /// serving them, by `reason`: `short` and `oversized` (no netcode.io packet has that size,
    /// dropped unread), `request_rate` (a connection request past its host's budget, dropped
    /// unread), `replayed` (netcode.io's replay protection) and `refused` (every other check of
    /// netcode.io's: bad keys or tokens, unknown senders, a token used from a second address).
    ///
    /// - Parameter writer: The body being written.
    public func writeDroppedDatagramMetrics(to writer: inout PrometheusWriter) {
        writer.counter(
            "tickwire_udp_datagrams_dropped_total", help: "UDP datagrams the server dropped without serving them, by reason.",
            label: "reason",
            values: [
                ("short", datagramsTooShort), ("oversized", datagramsTooLarge), ("request_rate", connectionRequestsOverBudget),
                ("replayed", packetsReplayed), ("refused", packetsIgnored - packetsReplayed),
            ])
    }
}

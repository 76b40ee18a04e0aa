import TickwireFoundation

extension UDPTransportServer.Statistics {
    /// Every ``UDPTransportServer/IgnoreReason``, in the order the metrics list them (each
    /// reason is written, zero or not, so that a dashboard's series exist from the start).
    static let ignoreReasons: [UDPTransportServer.IgnoreReason] = [
        .short, .oversized, .requestRate, .badMAC, .replay, .unknownAddress, .refusedRequest, .garbage,
    ]

    /// Every datagram ignored, by reason: those dropped unread before netcode.io (``datagramsTooShort``,
    /// ``datagramsTooLarge``, ``connectionRequestsOverBudget``) and those netcode.io read and refused.
    var ignoredByReason: [UDPTransportServer.IgnoreReason: Int] {
        var reasons = packetsIgnoredByReason
        reasons[.short, default: 0] += datagramsTooShort
        reasons[.oversized, default: 0] += datagramsTooLarge
        reasons[.requestRate, default: 0] += connectionRequestsOverBudget
        return reasons
    }

    /// Adds another server's figures to these: the counts of several servers on one process
    /// (`arena serve --udp-servers`), written as one set of metrics.
    ///
    /// - Parameter other: The other server's figures.
    public mutating func add(_ other: UDPTransportServer.Statistics) {
        connectedClients += other.connectedClients
        connectionsAccepted += other.connectionsAccepted
        packetsIgnored += other.packetsIgnored
        datagramsDropped += other.datagramsDropped
        datagramsFromUnreadableAddresses += other.datagramsFromUnreadableAddresses
        packetsToFreedSlots += other.packetsToFreedSlots
        datagramsTooShort += other.datagramsTooShort
        datagramsTooLarge += other.datagramsTooLarge
        connectionRequestsOverBudget += other.connectionRequestsOverBudget
        packetsReplayed += other.packetsReplayed
        datagramsReceived += other.datagramsReceived
        bytesReceived += other.bytesReceived
        datagramsSent += other.datagramsSent
        bytesSent += other.bytesSent
        for (reason, count) in other.packetsIgnoredByReason { packetsIgnoredByReason[reason, default: 0] += count }
    }

    /// Writes `tickwire_udp_clients`, `tickwire_udp_connections_accepted_total`,
    /// `tickwire_udp_datagrams_received_total`, `tickwire_udp_bytes_received_total`,
    /// `tickwire_udp_datagrams_sent_total`, `tickwire_udp_bytes_sent_total`,
    /// `tickwire_udp_datagrams_ignored_total` (by `reason`: `short`, `oversized`, `request_rate`, `bad_mac`,
    /// `replay`, `unknown_address`, `refused_request`, `garbage`) and
    /// `tickwire_udp_datagrams_dropped_total` (by `reason`: `send_failed`, `unreadable_address`,
    /// `freed_slot`).
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        writer.gauge("tickwire_udp_clients", help: "Clients netcode.io holds connected over UDP.", value: connectedClients)
        writer.counter(
            "tickwire_udp_connections_accepted_total", help: "Clients netcode.io connected since the server started.",
            value: connectionsAccepted)
        writer.counter(
            "tickwire_udp_datagrams_received_total", help: "Datagrams the UDP socket received, from any sender.", value: datagramsReceived)
        writer.counter("tickwire_udp_bytes_received_total", help: "UDP payload bytes received.", value: bytesReceived)
        writer.counter("tickwire_udp_datagrams_sent_total", help: "Datagrams handed to the UDP socket.", value: datagramsSent)
        writer.counter("tickwire_udp_bytes_sent_total", help: "UDP payload bytes sent.", value: bytesSent)
        writer.counter(
            "tickwire_udp_datagrams_ignored_total", help: "Datagrams the netcode.io port ignored, by why.", label: "reason",
            values: Self.ignoreReasons.map { ($0.rawValue, ignoredByReason[$0, default: 0]) })
        writer.counter(
            "tickwire_udp_datagrams_dropped_total",
            help:
                "Datagrams the server could not handle: refused by the socket's send queue, from an unreadable address, for a freed slot.",
            label: "reason",
            values: [
                ("send_failed", datagramsDropped), ("unreadable_address", datagramsFromUnreadableAddresses),
                ("freed_slot", packetsToFreedSlots),
            ])
    }
}

import TickwireSim

extension UDPConnectionStatistics {
    /// The figures a net graph shows, transport-neutral: `udp`, the packet layer's round trip and
    /// jitter once it has a sample, and its loss (of this side's sent packets) from the same
    /// moment (before the peer has acknowledged anything, no loss can be told from none).
    public var linkStatistics: TransportLinkStatistics {
        guard roundTripSamples > 0 else { return TransportLinkStatistics(transport: "udp") }
        return TransportLinkStatistics(transport: "udp", roundTripTime: roundTripTime, jitter: jitter, packetLoss: packetLoss)
    }
}

extension UDPClientTransportConnection: LinkStatisticsReporting {
    /// ``statistics`` as ``TransportLinkStatistics``, for a ``ClientSession``'s figures.
    public var linkStatistics: TransportLinkStatistics? { statistics.linkStatistics }
}

extension UDPServerTransportConnection: LinkStatisticsReporting {
    /// ``statistics`` as ``TransportLinkStatistics``.
    public var linkStatistics: TransportLinkStatistics? { statistics.linkStatistics }
}

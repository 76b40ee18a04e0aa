/// What a transport measures of its own link, below the game's messages: the figures a net graph
/// shows beside the session's ping (``NetGraphFigures/linkRoundTrip``, ``NetGraphFigures/loss``).
///
/// A connection that measures them adopts ``LinkStatisticsReporting``. A figure the transport
/// has not measured yet is `nil`, never a made-up zero.
public struct TransportLinkStatistics: Hashable, Sendable {
    /// The transport's short name, as a URL scheme names it: `udp`.
    public var transport: String
    /// The transport's smoothed round-trip time, seconds; `nil` before its first sample.
    ///
    /// Measured from the transport's own acknowledgements, on every packet rather than on pings.
    /// An ack that rides on the peer's next packet holds the wait for that packet too (up to a
    /// host's tick, when the host sends only at its ticks), so it may exceed the session's ping
    /// (``NetGraphFigures/roundTrip``), which subtracts the host's hold.
    public var roundTripTime: Double?
    /// The smoothed mean deviation of the transport's round-trip samples, seconds; `nil` before
    /// its first sample.
    public var jitter: Double?
    /// The share of this side's recently sent packets the peer never acknowledged (0...1); `nil`
    /// before the transport can tell.
    public var packetLoss: Double?

    /// Creates link statistics.
    ///
    /// - Parameters:
    ///   - transport: The transport's short name (`udp`).
    ///   - roundTripTime: The smoothed round-trip time, seconds, if measured.
    ///   - jitter: The round-trip jitter, seconds, if measured.
    ///   - packetLoss: The share of sent packets lost (0...1), if measured.
    public init(transport: String, roundTripTime: Double? = nil, jitter: Double? = nil, packetLoss: Double? = nil) {
        self.transport = transport
        self.roundTripTime = roundTripTime
        self.jitter = jitter
        self.packetLoss = packetLoss
    }
}

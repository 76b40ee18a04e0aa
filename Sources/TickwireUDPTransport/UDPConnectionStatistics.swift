import TickwirePacket

/// What one UDP connection has measured and done: the figures a net graph shows.
///
/// Read from ``UDPServerTransportConnection/statistics`` or
/// ``UDPClientTransportConnection/statistics`` on any thread; the event loop refreshes them
/// each time it handles the connection.
public struct UDPConnectionStatistics: Hashable, Sendable {
    /// The smoothed round-trip time in seconds (PROTOCOL.md 1A.8); 0 before the first sample.
    public var roundTripTime: Double = 0
    /// The smoothed mean deviation of round-trip samples, in seconds.
    public var jitter: Double = 0
    /// The fraction of the newest sent packets (`PacketLimits.packetLossWindow`) that were
    /// lost, from 0 to 1.
    public var packetLoss: Double = 0
    /// Round-trip samples taken so far.
    public var roundTripSamples = 0
    /// The packet layer's counters (packets, fragments, messages, bytes, resends).
    public var packets = PacketCounters()
    /// Reliable messages sent and not yet acknowledged.
    public var pendingReliableMessages = 0
    /// Their bytes.
    public var pendingReliableBytes = 0
    /// Packets from the peer that the packet layer refused (malformed, PROTOCOL.md 1A.6).
    public var packetsRefused = 0
    /// Frames a client dropped because they came on the unreliable channel before the welcome.
    public var framesDroppedBeforeWelcome = 0
    /// Datagrams the socket's send queue refused (dropped, as UDP may): a client connection's
    /// own; a server counts its socket's in ``UDPTransportServer/Statistics/datagramsDropped``.
    public var datagramsDropped = 0

    /// Statistics with every figure zero.
    public init() {}

    /// The packet layer's figures from `endpoint`, keeping this side's own counts.
    mutating func update(from endpoint: PacketEndpoint) {
        roundTripTime = endpoint.roundTripTime
        jitter = endpoint.jitter
        packetLoss = endpoint.packetLoss
        roundTripSamples = endpoint.roundTripSamples
        packets = endpoint.counters
        pendingReliableMessages = endpoint.pendingReliableMessages
        pendingReliableBytes = endpoint.pendingReliableBytes
    }
}

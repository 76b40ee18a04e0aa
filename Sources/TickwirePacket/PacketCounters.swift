/// What a ``PacketEndpoint`` has done so far: every packet, fragment and drop counted.
///
/// Nothing the endpoint drops goes unrecorded: a stale or duplicate packet, an evicted or timed-out
/// unreliable reassembly, a fragment too late to matter each have a counter here, and a packet
/// that breaks the format or the channel's rules is both counted and thrown.
public struct PacketCounters: Hashable, Sendable {
    /// Packets built for sending (ack-only packets included).
    public var packetsSent = 0
    /// Packets received and accepted (not stale, not duplicate, well formed).
    public var packetsReceived = 0
    /// Sent packets the peer acknowledged.
    public var packetsAcked = 0
    /// Sent packets not acknowledged within the loss timeout (or pushed out of the sent history first).
    public var packetsLost = 0
    /// Ack-only packets sent.
    public var ackOnlyPacketsSent = 0
    /// Received packets dropped as older than the received-packet history.
    public var packetsStale = 0
    /// Received packets dropped because their sequence had already arrived.
    public var packetsDuplicate = 0
    /// Received packets refused by the decoder or the reliable channel's rules (each also thrown).
    public var packetsRefused = 0
    /// Fragments sent (first sends and resends).
    public var fragmentsSent = 0
    /// Fragments received in accepted packets.
    public var fragmentsReceived = 0
    /// Fragments dropped on arrival: already held, of a message already complete or superseded, or
    /// with no room in reassembly.
    public var fragmentsDropped = 0
    /// Incomplete unreliable messages dropped: timed out, evicted for room, or superseded by a
    /// newer message that completed.
    public var reassembliesDropped = 0
    /// Messages handed to `send`, per channel together.
    public var messagesSent = 0
    /// Messages delivered by `receive`.
    public var messagesDelivered = 0
    /// Reliable messages received again after they were delivered or held (dropped).
    public var reliableDuplicates = 0
    /// Reliable messages or fragments sent again because no ack came within the resend interval.
    public var reliableResends = 0
    /// Bytes of packets sent.
    public var bytesSent = 0
    /// Bytes of packets received (refused ones included).
    public var bytesReceived = 0

    /// All zero.
    public init() {}
}

/// Every bound of the packet layer, with the defaults PROTOCOL.md section 1A.7 gives.
///
/// Each buffer a ``PacketEndpoint`` keeps is bounded by one of these: reassembly, the reliable
/// send queue and receive window, the sent- and received-packet histories. Reaching a limit is a
/// typed ``PacketError`` (the reliable send queue, a malformed fragment) or a counted drop in
/// ``PacketCounters`` (an unreliable reassembly evicted), never unbounded memory.
///
/// Both peers of a connection must use the same ``maximumFragmentsPerMessage`` and
/// ``maximumMessageBytes``, and the receiver's ``reliableReceiveWindow`` must be at least the
/// sender's ``reliableSendQueueMessages``; the defaults are the standard values.
public struct PacketLimits: Hashable, Sendable {
    /// The largest message ``PacketEndpoint/send(_:on:now:)`` takes and reassembly accepts, in
    /// bytes. Default 262 144 (256 KiB, 256 fragments of 1024 bytes).
    public var maximumMessageBytes: Int = 262_144
    /// The most fragments one message may have; a fragment whose count is over it is refused
    /// (``PacketError/Code/fragmentCountExceeded``). Default 256.
    public var maximumFragmentsPerMessage: Int = 256
    /// The most unreliable messages in reassembly at once; one more evicts the oldest (counted
    /// in ``PacketCounters/reassembliesDropped``). Default 16.
    public var maximumUnreliableReassemblies: Int = 16
    /// The most bytes reserved by reassembly (each message in reassembly reserves its fragment
    /// count × 1024); unreliable reassemblies are evicted, oldest first, to stay under it.
    /// Default 1 048 576; at least ``maximumFragmentsPerMessage`` × 1024, so the reliable message in
    /// reassembly always fits.
    public var maximumReassemblyBytes: Int = 1_048_576
    /// How long, in seconds, an incomplete unreliable message waits for its missing fragments
    /// before it is dropped. Default 1.
    public var unreliableReassemblyTimeout: Double = 1
    /// The most reliable messages sent and not yet acknowledged, counted from the oldest
    /// unacknowledged one; ``PacketEndpoint/send(_:on:now:)`` refuses one more
    /// (``PacketError/Code/reliableQueueFull``). Default 256; at most 32 768.
    public var reliableSendQueueMessages: Int = 256
    /// The most bytes of reliable messages not yet acknowledged; one more message over it is
    /// refused (``PacketError/Code/reliableQueueFull``). Default 1 048 576.
    public var reliableSendQueueBytes: Int = 1_048_576
    /// How far ahead of the next reliable message due a received one may be (message ids), and so
    /// the most messages held out of order. A message further ahead breaks the protocol
    /// (``PacketError/Code/reliableProtocolViolation``). Default 256; at most 32 768.
    public var reliableReceiveWindow: Int = 256
    /// The packets sent whose send time and content are remembered for acknowledgement, RTT and
    /// loss. Default 256; a power of two from 64 to 32 768 (the ring's slots divide the 16-bit
    /// sequence space, so wraparound never folds two live sequences onto one slot).
    public var sentPacketHistory: Int = 256
    /// The received packet sequences remembered, for acks and to drop duplicates; a packet older
    /// than the newest by this many is stale and dropped. Default 256; a power of two from 64 to 32 768.
    public var receivedPacketHistory: Int = 256
    /// The most recent sent packets over which ``PacketEndpoint/packetLoss`` is measured. Default 256.
    public var packetLossWindow: Int = 256
    /// The most packets one ``PacketEndpoint/update(now:)`` returns for resends (and one
    /// reliable `send` for a fragmented message): a burst bound; the rest go on the next update.
    /// Default 64.
    public var maximumPacketsPerUpdate: Int = 64
    /// How long, in seconds, a received packet may wait for its ack: when nothing was sent since a
    /// packet arrived this long ago, ``PacketEndpoint/update(now:)`` sends an ack-only packet. Default 0.05.
    public var ackInterval: Double = 0.05
    /// The least time, in seconds, before a reliable message or fragment is sent again; the
    /// interval is the larger of this and 1.25 × RTT + 2 × jitter. Default 0.05.
    public var minimumResendInterval: Double = 0.05
    /// The resend interval, in seconds, before the first RTT sample. Default 0.2.
    public var initialResendInterval: Double = 0.2
    /// The least time, in seconds, a sent packet waits for its ack before it counts as lost; the
    /// wait is the larger of this and 2 × RTT + 4 × jitter. Default 0.25.
    public var minimumLossTimeout: Double = 0.25

    /// The standard limits.
    public init() {}

    /// Checks that every limit is in the range the packet layer can honour.
    ///
    /// - Throws: ``PacketError/Code/invalidLimits`` naming the first limit out of range.
    public func validate() throws(PacketError) {
        func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws(PacketError) {
            guard range.contains(value) else {
                throw .invalidLimits("\(name) is \(value), expected \(range.lowerBound)...\(range.upperBound)")
            }
        }
        try check("maximumFragmentsPerMessage", maximumFragmentsPerMessage, 2...PacketFormat.maximumFragmentCount)
        try check("maximumMessageBytes", maximumMessageBytes, 1...(maximumFragmentsPerMessage * PacketFormat.fragmentBytes))
        try check("maximumUnreliableReassemblies", maximumUnreliableReassemblies, 1...65_536)
        try check(
            "maximumReassemblyBytes", maximumReassemblyBytes, (maximumFragmentsPerMessage * PacketFormat.fragmentBytes)...Int(Int32.max))
        try check("reliableSendQueueMessages", reliableSendQueueMessages, 1...32_768)
        try check("reliableSendQueueBytes", reliableSendQueueBytes, maximumMessageBytes...Int(Int32.max))
        try check("reliableReceiveWindow", reliableReceiveWindow, 1...32_768)
        for (name, value) in [("sentPacketHistory", sentPacketHistory), ("receivedPacketHistory", receivedPacketHistory)]
        where !(64...32_768).contains(value) || value & (value - 1) != 0 {
            throw .invalidLimits("\(name) is \(value), expected a power of two from 64 to 32768")
        }
        try check("packetLossWindow", packetLossWindow, 1...65_536)
        try check("maximumPacketsPerUpdate", maximumPacketsPerUpdate, 1...65_536)
        for (name, value) in [
            ("unreliableReassemblyTimeout", unreliableReassemblyTimeout), ("ackInterval", ackInterval),
            ("minimumResendInterval", minimumResendInterval), ("initialResendInterval", initialResendInterval),
            ("minimumLossTimeout", minimumLossTimeout),
        ] where !(value.isFinite && value > 0) {
            throw .invalidLimits("\(name) is \(value), expected a positive number of seconds")
        }
    }
}

/// A message the packet layer delivered, and the channel it came on.
public struct ReceivedMessage: Hashable, Sendable {
    /// The channel the message travelled on.
    public var channel: PacketChannel
    /// The message's bytes (one Tickwire frame).
    public var bytes: [UInt8]

    /// Creates a received message.
    ///
    /// - Parameters:
    ///   - channel: The channel it travelled on.
    ///   - bytes: Its bytes.
    public init(channel: PacketChannel, bytes: [UInt8]) {
        self.channel = channel
        self.bytes = bytes
    }
}

/// One side of a packet-layer connection, sans-IO: messages in, packets out, and back.
///
/// The endpoint never reads a clock or touches a socket. The caller hands it the time (`now`, in
/// seconds on any monotonic clock) with every call, sends the packets it returns as netcode.io
/// payloads, feeds it every payload received, and calls ``update(now:)`` regularly (every tick) for
/// resends and ack-only packets. Design after Glenn Fiedler's reliable.io and yojimbo: every packet
/// carries a 16-bit sequence and acks for the 33 newest received; a reliable message is resent
/// until a packet carrying it is acknowledged; a message larger than a packet travels in fragments
/// (PROTOCOL.md section 1A).
///
/// Not thread-safe: a value type, mutated by one owner (the connection's loop).
public struct PacketEndpoint: Sendable {
    /// The limits every buffer is held to.
    public let limits: PacketLimits
    /// What the endpoint has done so far.
    public internal(set) var counters = PacketCounters()
    /// The smoothed round-trip time in seconds (gain 1/8 per sample); 0 before the first ack.
    public internal(set) var roundTripTime: Double = 0
    /// The smoothed mean deviation of round-trip samples from ``roundTripTime``, in seconds (gain 1/4).
    public internal(set) var jitter: Double = 0
    /// How many round-trip samples have been taken.
    public internal(set) var roundTripSamples = 0

    // Sending.
    var nextSequence: UInt16 = 0
    var sentPackets: SequenceBuffer<SentPacket>
    var lastSendTime: Double?
    // Receiving.
    var receivedPackets: SequenceBuffer<Bool>
    /// When the oldest packet received since this side last sent one arrived; `nil` when none has.
    var unacknowledgedSince: Double?
    // The reliable channel, sending.
    var reliableQueue: [OutgoingReliableMessage] = []
    var nextReliableID: UInt16 = 0
    var reliableQueueBytes = 0
    // The reliable channel, receiving.
    var nextReliableDue: UInt16 = 0
    var heldReliable: [UInt16: [UInt8]] = [:]
    var reliableReassembly: Reassembly?
    // The unreliable channel.
    var nextUnreliableID: UInt16 = 0
    var unreliableReassemblies: [Reassembly] = []
    var newestCompletedUnreliable: UInt16?
    // Packet loss over the last `packetLossWindow` decided packets.
    var lossOutcomes: [Bool]
    var lossNext = 0
    var lossFilled = 0
    var lossLost = 0
    /// The oldest sent sequence not yet known to be acknowledged or lost.
    var lossCursor: UInt16 = 0

    /// Creates an endpoint.
    ///
    /// - Parameter limits: The limits for every buffer; the standard ones by default.
    /// - Throws: ``PacketError/Code/invalidLimits`` when a limit is out of range.
    public init(limits: PacketLimits = PacketLimits()) throws(PacketError) {
        try limits.validate()
        self.limits = limits
        sentPackets = SequenceBuffer(capacity: limits.sentPacketHistory)
        receivedPackets = SequenceBuffer(capacity: limits.receivedPacketHistory)
        lossOutcomes = Array(repeating: false, count: limits.packetLossWindow)
    }

    /// The fraction of recent sent packets (at most ``PacketLimits/packetLossWindow``) that were
    /// lost, from 0 to 1; 0 before any packet is decided.
    public var packetLoss: Double { lossFilled == 0 ? 0 : Double(lossLost) / Double(lossFilled) }

    /// Reliable messages sent and not yet acknowledged (with every one after the oldest such).
    public var pendingReliableMessages: Int { reliableQueue.count }
    /// Bytes of reliable messages not yet acknowledged.
    public var pendingReliableBytes: Int { reliableQueueBytes }
    /// Bytes reserved by messages in reassembly, reliable and unreliable.
    public var reassemblyBytes: Int {
        unreliableReassemblies.reduce(reliableReassembly?.reservedBytes ?? 0) { $0 + $1.reservedBytes }
    }
    /// Unreliable messages in reassembly.
    public var unreliableReassemblyCount: Int { unreliableReassemblies.count }
    /// Reliable messages received out of order and held until those before them arrive.
    public var heldReliableMessages: Int { heldReliable.count }

    /// The wait before a reliable message or fragment is sent again: the larger of
    /// ``PacketLimits/minimumResendInterval`` and 1.25 × RTT + 2 × jitter.
    public var resendInterval: Double {
        roundTripSamples == 0 ? limits.initialResendInterval : max(limits.minimumResendInterval, 1.25 * roundTripTime + 2 * jitter)
    }

    /// Queues `message` on `channel` and returns the packets to transmit now.
    ///
    /// An unreliable message goes at once, whole or in fragments. A reliable message joins the
    /// send queue and goes now when the channel's order allows (a fragmented reliable message is
    /// sent only once every message before it is acknowledged); ``update(now:)`` resends it until
    /// acknowledged. Every packet carries the current acks.
    ///
    /// - Parameters:
    ///   - message: The message (one Tickwire frame), 1 to ``PacketLimits/maximumMessageBytes`` bytes.
    ///   - channel: The channel it travels on.
    ///   - now: The current time in seconds.
    /// - Returns: The packets to hand to netcode.io now, each at most 1200 bytes.
    /// - Throws: ``PacketError/Code/emptyMessage``, ``PacketError/Code/messageTooLarge``, or
    ///   ``PacketError/Code/reliableQueueFull`` when the reliable channel holds too much
    ///   unacknowledged: the peer is not keeping up, and the transport should close the connection.
    public mutating func send(_ message: [UInt8], on channel: PacketChannel, now: Double) throws(PacketError) -> [[UInt8]] {
        guard !message.isEmpty else { throw .emptyMessage }
        guard message.count <= limits.maximumMessageBytes else {
            throw .messageTooLarge(size: message.count, limit: limits.maximumMessageBytes)
        }
        if channel == .reliableOrdered {
            try enqueueReliable(message)
            counters.messagesSent += 1
            return transmitReliable(now: now)
        }
        counters.messagesSent += 1
        if message.count <= PacketFormat.maximumUnfragmentedUnreliableBytes {
            return [makePacket(.message(channel: .unreliable, messageID: nil, bytes: message), now: now, reliable: nil)]
        }
        let id = nextUnreliableID
        nextUnreliableID &+= 1  // Message ids wrap modulo 2^16 by design.
        let count = Self.fragmentCount(message.count)
        return (0..<count).map { index in
            let content = PacketContent.fragment(
                channel: .unreliable, messageID: id, index: index, count: count, bytes: Self.fragment(index, of: message))
            return makePacket(content, now: now, reliable: nil)
        }
    }

    /// Takes one packet from the peer and returns the messages it completes.
    ///
    /// The packet's acks are applied (RTT, loss, reliable messages acknowledged) and its content
    /// delivered: an unreliable message at once, a fragment once its message is complete, a
    /// reliable message when every one before it has been delivered (then with the held ones
    /// after it). Stale and duplicate packets are counted and return nothing.
    ///
    /// - Parameters:
    ///   - bytes: One netcode.io payload from the peer.
    ///   - now: The current time in seconds.
    /// - Returns: The messages delivered, in order.
    /// - Throws: ``PacketError`` when the packet is malformed (it is then ignored) or breaks the
    ///   reliable channel's rules (``PacketError/Code/reliableProtocolViolation``: the transport
    ///   should close the connection).
    public mutating func receive(_ bytes: [UInt8], now: Double) throws(PacketError) -> [ReceivedMessage] {
        counters.bytesReceived += bytes.count
        expireReassemblies(now: now)
        let packet: Packet
        do {
            packet = try Packet.decode(bytes, limits: limits)
        } catch {
            counters.packetsRefused += 1
            throw error
        }
        if receivedPackets.isStale(packet.sequence) {
            counters.packetsStale += 1
            return []
        }
        if receivedPackets.contains(packet.sequence) {
            counters.packetsDuplicate += 1
            return []
        }
        if let acks = packet.acks { applyAcks(acks, now: now) }
        var delivered: [ReceivedMessage] = []
        do {
            switch packet.content {
            case .ackOnly: break
            case .message(let channel, let messageID, let body):
                if channel == .reliableOrdered, let messageID {
                    try receiveReliable(id: messageID, bytes: body, into: &delivered)
                } else {
                    delivered.append(ReceivedMessage(channel: .unreliable, bytes: body))
                }
            case .fragment(let channel, let messageID, let index, let count, let body):
                counters.fragmentsReceived += 1
                if channel == .reliableOrdered {
                    try receiveReliableFragment(id: messageID, index: index, count: count, bytes: body, now: now, into: &delivered)
                } else {
                    try receiveUnreliableFragment(id: messageID, index: index, count: count, bytes: body, now: now, into: &delivered)
                }
            }
        } catch {
            counters.packetsRefused += 1
            throw error
        }
        receivedPackets.insert(packet.sequence, true)
        counters.packetsReceived += 1
        counters.messagesDelivered += delivered.count
        if unacknowledgedSince == nil { unacknowledgedSince = now }
        return delivered
    }

    /// Advances the endpoint's timers and returns the packets to transmit now.
    ///
    /// Decides which sent packets are lost (no ack within the loss timeout), drops unreliable
    /// reassemblies that timed out, resends reliable messages and fragments whose resend interval
    /// passed (at most ``PacketLimits/maximumPacketsPerUpdate``), and adds an ack-only packet when
    /// nothing was sent since a packet that arrived ``PacketLimits/ackInterval`` ago or more.
    ///
    /// - Parameter now: The current time in seconds.
    /// - Returns: The packets to hand to netcode.io now.
    public mutating func update(now: Double) -> [[UInt8]] {
        expireReassemblies(now: now)
        decideLosses(now: now)
        var packets = transmitReliable(now: now)
        if packets.isEmpty, let since = unacknowledgedSince, now - since >= limits.ackInterval {
            counters.ackOnlyPacketsSent += 1
            packets.append(makePacket(.ackOnly, now: now, reliable: nil))
        }
        return packets
    }

    /// The acks to send now: the newest received sequence and the 32 before it.
    var currentAcks: PacketAcks? {
        guard receivedPackets.hasNewest else { return nil }
        let newest = receivedPackets.newest
        var bits: UInt32 = 0
        for bit in 0..<32 where receivedPackets.contains(newest &- 1 &- UInt16(bit)) {  // Wrapping by design.
            bits |= 1 << UInt32(bit)
        }
        return PacketAcks(ack: newest, ackBits: bits)
    }

    /// Builds the next packet around `content`, recording it in the sent history.
    mutating func makePacket(_ content: PacketContent, now: Double, reliable: ReliableUnit?) -> [UInt8] {
        let sequence = nextSequence
        nextSequence &+= 1  // Sequences wrap modulo 2^16 by design.
        if let displaced = sentPackets.displaced(by: sequence), !displaced.value.isDecided {
            counters.packetsLost += 1
            recordLoss(true)
        }
        let bytes = Packet(sequence: sequence, acks: currentAcks, content: content).encode()
        sentPackets.insert(sequence, SentPacket(time: now, reliable: reliable))
        counters.packetsSent += 1
        counters.bytesSent += bytes.count
        if case .fragment = content { counters.fragmentsSent += 1 }
        lastSendTime = now
        unacknowledgedSince = nil
        return bytes
    }

    private mutating func applyAcks(_ acks: PacketAcks, now: Double) {
        for sequence in acks.acknowledgedSequences {
            guard var entry = sentPackets.entry(sequence), !entry.isAcked else { continue }
            entry.isAcked = true
            counters.packetsAcked += 1
            // Only the newest sequence acknowledged gives an RTT sample: an older one acknowledged
            // now, through the ack bits, may have waited for a later packet (its first ack lost),
            // and that wait would feed the resend interval back into the RTT.
            if sequence == acks.ack { sampleRoundTrip(now - entry.time) }
            if !entry.isDecided {
                entry.isDecided = true
                recordLoss(false)
            }
            sentPackets.update(sequence) { $0 = entry }
            if let unit = entry.reliable { acknowledgeReliable(unit) }
        }
    }

    private mutating func sampleRoundTrip(_ sample: Double) {
        let sample = max(0, sample)
        if roundTripSamples == 0 {
            roundTripTime = sample
            jitter = 0
        } else {
            jitter += 0.25 * (abs(sample - roundTripTime) - jitter)
            roundTripTime += 0.125 * (sample - roundTripTime)
        }
        roundTripSamples += 1
    }

    /// Counts as lost every packet, oldest first, that waited longer than the loss timeout.
    ///
    /// Packets are sent in sequence order at non-decreasing times, so a cursor walks from the
    /// oldest undecided one and stops at the first still within the timeout.
    private mutating func decideLosses(now: Double) {
        let timeout = max(limits.minimumLossTimeout, 2 * roundTripTime + 4 * jitter)
        while lossCursor != nextSequence {
            if let entry = sentPackets.entry(lossCursor), !entry.isDecided {
                guard now - entry.time > timeout else { return }
                sentPackets.update(lossCursor) { $0.isDecided = true }
                counters.packetsLost += 1
                recordLoss(true)
            }
            lossCursor &+= 1  // Sequences wrap modulo 2^16 by design.
        }
    }

    private mutating func recordLoss(_ lost: Bool) {
        if lossFilled == lossOutcomes.count {
            if lossOutcomes[lossNext] { lossLost -= 1 }
        } else {
            lossFilled += 1
        }
        lossOutcomes[lossNext] = lost
        if lost { lossLost += 1 }
        lossNext = (lossNext + 1) % lossOutcomes.count
    }

    static func fragmentCount(_ size: Int) -> Int { (size + PacketFormat.fragmentBytes - 1) / PacketFormat.fragmentBytes }

    static func fragment(_ index: Int, of message: [UInt8]) -> [UInt8] {
        let start = index * PacketFormat.fragmentBytes
        return Array(message[start..<min(message.count, start + PacketFormat.fragmentBytes)])
    }
}

/// What one sent packet carried, for its ack.
struct SentPacket: Sendable {
    var time: Double
    var reliable: ReliableUnit?
    var isAcked = false
    /// Whether the packet has been counted as delivered or lost in the loss window.
    var isDecided = false
}

/// A reliable message, or one fragment of it, carried by a packet.
struct ReliableUnit: Sendable {
    var messageID: UInt16
    /// The fragment index; 0 for a message sent whole.
    var unit: Int
}

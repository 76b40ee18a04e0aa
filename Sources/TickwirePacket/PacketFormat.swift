/// The packet layer's fixed sizes (PROTOCOL.md section 1A): every packet fits one netcode.io payload.
public enum PacketFormat {
    /// The largest packet, in bytes: one netcode.io payload.
    public static let maximumPacketBytes = 1200
    /// The header without acks: flags (`u8`) and sequence (`u16`).
    public static let shortHeaderBytes = 3
    /// The header with acks: flags, sequence, ack (`u16`) and ack bits (`u32`).
    public static let headerBytes = 9
    /// The data in every fragment but the last, which holds 1 to this many bytes.
    public static let fragmentBytes = 1024
    /// The most fragments the 16-bit count field may name; ``PacketLimits/maximumFragmentsPerMessage`` is lower.
    public static let maximumFragmentCount = 65_535
    /// The largest reliable message sent whole in one packet (header with acks, message id).
    public static let maximumUnfragmentedReliableBytes = maximumPacketBytes - headerBytes - 2
    /// The largest unreliable message sent whole in one packet (header with acks).
    public static let maximumUnfragmentedUnreliableBytes = maximumPacketBytes - headerBytes
}

/// A channel of the packet layer: how a message travels.
///
/// A `struct` with static members, as every Tickwire wire value. On the wire it is bit 2 of the
/// flags byte.
public struct PacketChannel: Hashable, Sendable, CustomStringConvertible {
    /// The value on the wire (0 or 1).
    public let rawValue: UInt8

    /// Creates the channel a wire value names.
    ///
    /// - Parameter rawValue: 0 (unreliable) or 1 (reliable-ordered).
    /// - Returns: The channel, or `nil` for any other value.
    public init?(rawValue: UInt8) {
        guard rawValue <= 1 else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Messages delivered at most once, as they complete, in any order: snapshots, inputs, pings.
    public static let unreliable = PacketChannel(0)
    /// Messages resent until acknowledged and delivered exactly once, in the order sent: hello,
    /// welcome, reject, disconnect, application messages.
    public static let reliableOrdered = PacketChannel(1)

    /// `unreliable` or `reliable-ordered`.
    public var description: String { rawValue == 0 ? "unreliable" : "reliable-ordered" }
}

/// The acknowledgements a packet carries: the newest sequence received and the 32 before it.
public struct PacketAcks: Hashable, Sendable {
    /// The newest packet sequence the sender has received.
    public var ack: UInt16
    /// Bit `i` set: the sender has also received sequence `ack − 1 − i` (modulo 2^16).
    public var ackBits: UInt32

    /// Creates acks.
    ///
    /// - Parameters:
    ///   - ack: The newest sequence received.
    ///   - ackBits: Bit `i` says sequence `ack − 1 − i` was received too.
    public init(ack: UInt16, ackBits: UInt32) {
        self.ack = ack
        self.ackBits = ackBits
    }

    /// Every sequence these acks acknowledge, `ack` first.
    public var acknowledgedSequences: [UInt16] {
        var result = [ack]
        for bit in 0..<32 where ackBits & (1 << UInt32(bit)) != 0 {
            result.append(ack &- 1 &- UInt16(bit))  // Sequences wrap modulo 2^16 by design.
        }
        return result
    }
}

/// What a packet carries after its header.
public enum PacketContent: Hashable, Sendable {
    /// Nothing: the packet exists to carry its acks.
    case ackOnly
    /// A whole message. `messageID` is present on the reliable channel only.
    case message(channel: PacketChannel, messageID: UInt16?, bytes: [UInt8])
    /// One fragment of a message too large for one packet.
    case fragment(channel: PacketChannel, messageID: UInt16, index: Int, count: Int, bytes: [UInt8])
}

/// One packet of the packet layer: the payload of one netcode.io payload packet.
///
/// Layout (PROTOCOL.md section 1A.2), integers big-endian:
/// `flags u8 · sequence u16 · [ack u16 · ack bits u32] · [message id u16] · [fragment index u16 · fragment count u16] · bytes`.
public struct Packet: Hashable, Sendable {
    /// The packet's own sequence number.
    public var sequence: UInt16
    /// The acks it carries; `nil` before the sender has received anything.
    public var acks: PacketAcks?
    /// What follows the header.
    public var content: PacketContent

    /// Creates a packet.
    ///
    /// - Parameters:
    ///   - sequence: The packet's sequence number.
    ///   - acks: The acks it carries, if any.
    ///   - content: What follows the header.
    public init(sequence: UInt16, acks: PacketAcks?, content: PacketContent) {
        self.sequence = sequence
        self.acks = acks
        self.content = content
    }
}

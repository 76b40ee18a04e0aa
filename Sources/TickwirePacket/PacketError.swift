/// An error of the packet layer: a malformed packet, a limit reached, or a peer that broke the
/// reliable channel's rules.
///
/// A struct wrapping a private enum, so that new cases are not breaking changes. ``code`` tells
/// errors apart; ``description`` carries the values a reader needs (which limit, which value).
public struct PacketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of a ``PacketError``, stable across releases, for counting and matching.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The name of the code.
        public let description: String
        init(_ name: String) { description = name }

        /// The packet ends before a field it must hold.
        public static let truncated = Code("truncated")
        /// The packet is longer than one netcode.io payload (1200 bytes).
        public static let packetTooLarge = Code("packetTooLarge")
        /// The packet type (bits 0–1 of the flags byte) is 3, which names no packet type.
        public static let unknownPacketType = Code("unknownPacketType")
        /// Reserved bits 4–7 of the flags byte are not zero.
        public static let reservedBits = Code("reservedBits")
        /// The flags contradict the packet type (a channel bit on an ack-only packet, or an ack-only packet without acks).
        public static let invalidFlags = Code("invalidFlags")
        /// An ack-only packet carries bytes after its header.
        public static let trailingBytes = Code("trailingBytes")
        /// A message packet carries no message byte, or an empty message was handed to `send`.
        public static let emptyMessage = Code("emptyMessage")
        /// A fragment's count is below 2.
        public static let fragmentCountOutOfRange = Code("fragmentCountOutOfRange")
        /// A fragment's count is over ``PacketLimits/maximumFragmentsPerMessage``.
        public static let fragmentCountExceeded = Code("fragmentCountExceeded")
        /// A fragment's index is not below its count.
        public static let fragmentIndexOutOfRange = Code("fragmentIndexOutOfRange")
        /// A fragment's data is not 1024 bytes (1 to 1024 for the last fragment).
        public static let fragmentSizeInvalid = Code("fragmentSizeInvalid")
        /// The fragments of one message disagree on their count.
        public static let fragmentCountMismatch = Code("fragmentCountMismatch")
        /// A message is over ``PacketLimits/maximumMessageBytes``.
        public static let messageTooLarge = Code("messageTooLarge")
        /// The reliable channel's send queue is full (messages or bytes not yet acknowledged).
        public static let reliableQueueFull = Code("reliableQueueFull")
        /// The peer sent a reliable message outside the receive window, or a fragment of a
        /// reliable message that is not the next one due: it broke the channel's rules.
        public static let reliableProtocolViolation = Code("reliableProtocolViolation")
        /// A ``PacketLimits`` value is outside the range the packet layer can honour.
        public static let invalidLimits = Code("invalidLimits")
    }

    private enum Kind: Hashable, Sendable {
        case truncated(what: String, needed: Int, available: Int)
        case packetTooLarge(size: Int, limit: Int)
        case unknownPacketType(UInt8)
        case reservedBits(UInt8)
        case invalidFlags(UInt8)
        case trailingBytes(count: Int)
        case emptyMessage
        case fragmentCountOutOfRange(count: Int)
        case fragmentCountExceeded(count: Int, limit: Int)
        case fragmentIndexOutOfRange(index: Int, count: Int)
        case fragmentSizeInvalid(index: Int, count: Int, size: Int)
        case fragmentCountMismatch(messageID: UInt16, count: Int, expected: Int)
        case messageTooLarge(size: Int, limit: Int)
        case reliableQueueFull(what: String, value: Int, limit: Int)
        case reliableProtocolViolation(String)
        case invalidLimits(String)
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The kind of this error.
    public var code: Code {
        switch kind {
        case .truncated: .truncated
        case .packetTooLarge: .packetTooLarge
        case .unknownPacketType: .unknownPacketType
        case .reservedBits: .reservedBits
        case .invalidFlags: .invalidFlags
        case .trailingBytes: .trailingBytes
        case .emptyMessage: .emptyMessage
        case .fragmentCountOutOfRange: .fragmentCountOutOfRange
        case .fragmentCountExceeded: .fragmentCountExceeded
        case .fragmentIndexOutOfRange: .fragmentIndexOutOfRange
        case .fragmentSizeInvalid: .fragmentSizeInvalid
        case .fragmentCountMismatch: .fragmentCountMismatch
        case .messageTooLarge: .messageTooLarge
        case .reliableQueueFull: .reliableQueueFull
        case .reliableProtocolViolation: .reliableProtocolViolation
        case .invalidLimits: .invalidLimits
        }
    }

    /// What went wrong, with the values involved.
    public var description: String {
        switch kind {
        case .truncated(let what, let needed, let available):
            "packet: \(what) is truncated: \(needed) bytes needed, \(available) available"
        case .packetTooLarge(let size, let limit): "packet: \(size) bytes, over the limit of \(limit)"
        case .unknownPacketType(let flags): "packet: flags 0x\(String(flags, radix: 16)) name packet type 3, which does not exist"
        case .reservedBits(let flags): "packet: flags 0x\(String(flags, radix: 16)) set reserved bits 4-7"
        case .invalidFlags(let flags):
            "packet: flags 0x\(String(flags, radix: 16)): "
                + (flags & Packet.channelBit != 0
                    ? "an ack-only packet has no channel (bit 2 must be 0)" : "an ack-only packet must carry acks (bit 3 must be 1)")
        case .trailingBytes(let count): "packet: \(count) bytes after an ack-only packet's header"
        case .emptyMessage: "packet: a message must hold at least one byte"
        case .fragmentCountOutOfRange(let count): "packet: fragment count \(count), expected at least 2"
        case .fragmentCountExceeded(let count, let limit):
            "packet: fragment count \(count), over the limit of \(limit) (PacketLimits.maximumFragmentsPerMessage)"
        case .fragmentIndexOutOfRange(let index, let count): "packet: fragment index \(index) is not below the count \(count)"
        case .fragmentSizeInvalid(let index, let count, let size):
            "packet: fragment \(index) of \(count) holds \(size) bytes, expected \(index + 1 < count ? "1024" : "1...1024")"
        case .fragmentCountMismatch(let id, let count, let expected):
            "packet: a fragment of message \(id) says \(count) fragments, an earlier one said \(expected)"
        case .messageTooLarge(let size, let limit):
            "packet: message of \(size) bytes, over the limit of \(limit) (PacketLimits.maximumMessageBytes)"
        case .reliableQueueFull(let what, let value, let limit):
            "packet: the reliable send queue is full: \(value) \(what) unacknowledged, limit \(limit)"
        case .reliableProtocolViolation(let why): "packet: the peer broke the reliable channel's rules: \(why)"
        case .invalidLimits(let why): "packet: invalid limits: \(why)"
        }
    }

    static func truncated(_ what: String, needed: Int, available: Int) -> Self {
        Self(.truncated(what: what, needed: needed, available: available))
    }
    static func packetTooLarge(size: Int, limit: Int) -> Self { Self(.packetTooLarge(size: size, limit: limit)) }
    static func unknownPacketType(_ flags: UInt8) -> Self { Self(.unknownPacketType(flags)) }
    static func reservedBits(_ flags: UInt8) -> Self { Self(.reservedBits(flags)) }
    static func invalidFlags(_ flags: UInt8) -> Self { Self(.invalidFlags(flags)) }
    static func trailingBytes(count: Int) -> Self { Self(.trailingBytes(count: count)) }
    static let emptyMessage = Self(.emptyMessage)
    static func fragmentCountOutOfRange(_ count: Int) -> Self { Self(.fragmentCountOutOfRange(count: count)) }
    static func fragmentCountExceeded(_ count: Int, limit: Int) -> Self { Self(.fragmentCountExceeded(count: count, limit: limit)) }
    static func fragmentIndexOutOfRange(_ index: Int, count: Int) -> Self { Self(.fragmentIndexOutOfRange(index: index, count: count)) }
    static func fragmentSizeInvalid(index: Int, count: Int, size: Int) -> Self {
        Self(.fragmentSizeInvalid(index: index, count: count, size: size))
    }
    static func fragmentCountMismatch(messageID: UInt16, count: Int, expected: Int) -> Self {
        Self(.fragmentCountMismatch(messageID: messageID, count: count, expected: expected))
    }
    static func messageTooLarge(size: Int, limit: Int) -> Self { Self(.messageTooLarge(size: size, limit: limit)) }
    static func reliableQueueFull(_ what: String, value: Int, limit: Int) -> Self {
        Self(.reliableQueueFull(what: what, value: value, limit: limit))
    }
    static func reliableProtocolViolation(_ why: String) -> Self { Self(.reliableProtocolViolation(why)) }
    static func invalidLimits(_ why: String) -> Self { Self(.invalidLimits(why)) }
}

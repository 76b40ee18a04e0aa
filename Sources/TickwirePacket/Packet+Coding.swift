extension Packet {
    // Flags byte: bits 0-1 packet type, bit 2 channel, bit 3 acks present, bits 4-7 zero.
    static let typeAckOnly: UInt8 = 0
    static let typeMessage: UInt8 = 1
    static let typeFragment: UInt8 = 2
    static let channelBit: UInt8 = 0x04
    static let acksBit: UInt8 = 0x08
    static let reservedMask: UInt8 = 0xF0

    /// Encodes the packet (PROTOCOL.md section 1A.2).
    ///
    /// The encoder trusts its input: a ``PacketEndpoint`` builds only packets that decode. Sizes
    /// are not checked here; ``decode(_:limits:)`` checks them.
    ///
    /// - Returns: The packet's bytes.
    public func encode() -> [UInt8] {
        var flags: UInt8 = acks == nil ? 0 : Self.acksBit
        var out: [UInt8] = []
        switch content {
        case .ackOnly: flags |= Self.typeAckOnly
        case .message(let channel, _, let bytes):
            flags |= Self.typeMessage | (channel == .reliableOrdered ? Self.channelBit : 0)
            out.reserveCapacity(PacketFormat.headerBytes + 2 + bytes.count)
        case .fragment(let channel, _, _, _, let bytes):
            flags |= Self.typeFragment | (channel == .reliableOrdered ? Self.channelBit : 0)
            out.reserveCapacity(PacketFormat.headerBytes + 6 + bytes.count)
        }
        out.append(flags)
        out.appendBigEndian(sequence)
        if let acks {
            out.appendBigEndian(acks.ack)
            out.appendBigEndian(acks.ackBits)
        }
        switch content {
        case .ackOnly: break
        case .message(_, let messageID, let bytes):
            if let messageID { out.appendBigEndian(messageID) }
            out.append(contentsOf: bytes)
        case .fragment(_, let messageID, let index, let count, let bytes):
            out.appendBigEndian(messageID)
            out.appendBigEndian(UInt16(truncatingIfNeeded: index))
            out.appendBigEndian(UInt16(truncatingIfNeeded: count))
            out.append(contentsOf: bytes)
        }
        return out
    }

    /// Decodes one packet, checking every field against the format and `limits`.
    ///
    /// Checks run in the order PROTOCOL.md section 1A.6 lists, so a packet breaking several rules
    /// reports the first.
    ///
    /// - Parameters:
    ///   - bytes: The payload of one netcode.io payload packet.
    ///   - limits: The limits a fragment's count is checked against.
    /// - Returns: The packet.
    /// - Throws: ``PacketError`` naming the first rule the bytes break.
    public static func decode(_ bytes: [UInt8], limits: PacketLimits = PacketLimits()) throws(PacketError) -> Packet {
        guard bytes.count <= PacketFormat.maximumPacketBytes else {
            throw .packetTooLarge(size: bytes.count, limit: PacketFormat.maximumPacketBytes)
        }
        guard let flags = bytes.first else { throw .truncated("header", needed: 1, available: 0) }
        guard flags & reservedMask == 0 else { throw .reservedBits(flags) }
        let type = flags & 0x03
        guard type != 3 else { throw .unknownPacketType(flags) }
        let hasAcks = flags & acksBit != 0
        let headerBytes = hasAcks ? PacketFormat.headerBytes : PacketFormat.shortHeaderBytes
        guard bytes.count >= headerBytes else { throw .truncated("header", needed: headerBytes, available: bytes.count) }
        let sequence = bytes.bigEndianUInt16(at: 1)
        let acks = hasAcks ? PacketAcks(ack: bytes.bigEndianUInt16(at: 3), ackBits: bytes.bigEndianUInt32(at: 5)) : nil
        let channel: PacketChannel = flags & channelBit != 0 ? .reliableOrdered : .unreliable
        var offset = headerBytes
        switch type {
        case typeAckOnly:
            guard channel == .unreliable, hasAcks else { throw .invalidFlags(flags) }
            guard bytes.count == offset else { throw .trailingBytes(count: bytes.count - offset) }
            return Packet(sequence: sequence, acks: acks, content: .ackOnly)
        case typeMessage:
            var messageID: UInt16?
            if channel == .reliableOrdered {
                guard bytes.count >= offset + 2 else { throw .truncated("message id", needed: offset + 2, available: bytes.count) }
                messageID = bytes.bigEndianUInt16(at: offset)
                offset += 2
            }
            guard bytes.count > offset else { throw .emptyMessage }
            return Packet(
                sequence: sequence, acks: acks, content: .message(channel: channel, messageID: messageID, bytes: Array(bytes[offset...])))
        default:
            guard bytes.count >= offset + 6 else { throw .truncated("fragment header", needed: offset + 6, available: bytes.count) }
            let messageID = bytes.bigEndianUInt16(at: offset)
            let index = Int(bytes.bigEndianUInt16(at: offset + 2))
            let count = Int(bytes.bigEndianUInt16(at: offset + 4))
            offset += 6
            guard count >= 2 else { throw .fragmentCountOutOfRange(count) }
            guard count <= limits.maximumFragmentsPerMessage else {
                throw .fragmentCountExceeded(count, limit: limits.maximumFragmentsPerMessage)
            }
            guard index < count else { throw .fragmentIndexOutOfRange(index, count: count) }
            let size = bytes.count - offset
            let isLast = index == count - 1
            guard isLast ? (1...PacketFormat.fragmentBytes).contains(size) : size == PacketFormat.fragmentBytes else {
                throw .fragmentSizeInvalid(index: index, count: count, size: size)
            }
            let content = PacketContent.fragment(
                channel: channel, messageID: messageID, index: index, count: count, bytes: Array(bytes[offset...]))
            return Packet(sequence: sequence, acks: acks, content: content)
        }
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// The big-endian `u16` at `offset`; the caller has checked that two bytes are there.
    func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }

    /// The big-endian `u32` at `offset`; the caller has checked that four bytes are there.
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}

import TickwirePacket

extension ConformanceDecoderCommand {
    /// Decodes one packet of the UDP packet layer (`PROTOCOL.md` §1A.2) with ``Packet/decode(_:limits:)``:
    /// its fields as `Protocol/CONFORMANCE.md` names them, or its refusal's signature.
    static func decodePacket(_ request: [String: Any]) throws -> [String: Any] {
        let packet: Packet
        do { packet = try Packet.decode(try bytes(request["bytes"])) } catch { return ["error": ErrorSignature.of(error)] }
        var fields: [String: Any] = ["sequence": Int(packet.sequence)]
        if let acks = packet.acks {
            fields["ack"] = Int(acks.ack)
            fields["ackBits"] = Int(acks.ackBits)
        }
        switch packet.content {
        case .ackOnly:
            fields["type"] = "ack-only"
        case .message(let channel, let messageID, let payload):
            fields["type"] = "message"
            fields["channel"] = channel.description
            if let messageID { fields["messageId"] = Int(messageID) }
            fields["payload"] = hex(payload)
        case .fragment(let channel, let messageID, let index, let count, let payload):
            fields["type"] = "fragment"
            fields["channel"] = channel.description
            fields["messageId"] = Int(messageID)
            fields["fragmentIndex"] = index
            fields["fragmentCount"] = count
            fields["payload"] = hex(payload)
        }
        return ["packet": fields]
    }
}

import TickwirePacket

extension ConformanceDecoderCommand {
    /// Decodes one packet of the UDP packet layer (`PROTOCOL.md` §1A.2) with ``Packet/decode(_:limits:)``:
    /// its fields as `Protocol/CONFORMANCE.md` names them, or its refusal's signature.
    static func decodePacket(_ request: [String: Any]) throws -> [String: Any] {
        if let packets = request["receive"] as? [Any] { return try receivePackets(packets, limits: try limits(request)) }
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

    /// Packets one ``PacketEndpoint`` receives in order (`PROTOCOL.md` §1A.3–1A.5), all at time 0:
    /// per packet, the messages it delivers or its refusal; the endpoint goes on after a refused packet.
    static func receivePackets(_ packets: [Any], limits values: [String: Int]) throws -> [String: Any] {
        var limits = PacketLimits()
        for (name, value) in values {
            switch name {
            case "maximumMessageBytes": limits.maximumMessageBytes = value
            case "maximumFragmentsPerMessage": limits.maximumFragmentsPerMessage = value
            default: throw RequestError(description: "unknown packet limit \(name)")
            }
        }
        var endpoint = try PacketEndpoint(limits: limits)
        var received: [[String: Any]] = []
        for packet in packets {
            do {
                let messages = try endpoint.receive(try bytes(packet), now: 0)
                received.append(["messages": messages.map { ["channel": $0.channel.description, "payload": hex($0.bytes)] }])
            } catch let error as PacketError {
                received.append(["error": ErrorSignature.of(error)])
            }
        }
        return ["received": received]
    }
}

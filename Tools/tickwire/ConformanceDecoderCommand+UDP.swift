import TickwireNetcode
import TickwireUDPTransport

extension ConformanceDecoderCommand {
    /// Reads a message of the UDP transport's own (`PROTOCOL.md` §1A.10 and §1A.11) with
    /// `UDPCloseMessage` and `UDPHandoverMessage`: a close's code and reason, a handover's token
    /// fields (named as the netcode vectors name them), or `protocolError` for a message the
    /// transport closes the connection for (1002).
    static func decodeUDPMessage(_ request: [String: Any]) throws -> [String: Any] {
        let data = try bytes(request["bytes"])
        switch data.first {
        case UDPCloseMessage.typeByte:
            guard let close = UDPCloseMessage(decoding: data) else { return ["error": "protocolError"] }
            return ["close": ["code": Int(close.code.rawValue), "reason": close.reason]]
        case UDPHandoverMessage.typeByte:
            guard let handover = UDPHandoverMessage(decoding: data) else { return ["error": "protocolError"] }
            let token = handover.token
            return [
                "fields": [
                    "protocol-id": String(token.protocolID), "create-timestamp": String(token.createTimestamp),
                    "expire-timestamp": String(token.expireTimestamp), "server-address": token.serverAddresses.map(\.description),
                ]
            ]
        default:
            throw RequestError(description: "a udp request holds a close (0x00) or a handover (0x80) message")
        }
    }
}

import TickwireNetcode

extension ConformanceDecoderCommand {
    /// Reads one netcode.io token or packet (`Protocol/NETCODE.md`) with ``TickwireNetcode``, given
    /// the request's inputs: its fields named as the netcode vectors name them, or its refusal's signature.
    static func decodeNetcode(_ request: [String: Any]) throws -> [String: Any] {
        guard let inputs = request["inputs"] as? [String: String], let kind = request["kind"] as? String else {
            throw RequestError(description: "a netcode request needs its kind and inputs")
        }
        let data = try bytes(request["bytes"])
        do {
            switch kind {
            case "connect-token-private":
                let token = try ConnectTokenPrivate.decrypt(
                    data, protocolID: try number(inputs, "protocol-id"), expireTimestamp: try number(inputs, "expire-timestamp"),
                    nonce: try bytes(inputs["nonce"]), key: try key(inputs, "private-key"))
                return ["fields": fields(of: token)]
            case "connect-token":
                let token = try ConnectToken(bytes: data)
                let secret = try ConnectTokenPrivate.decrypt(
                    token.encryptedPrivateData, protocolID: token.protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce,
                    key: try key(inputs, "private-key"))
                var fields = fields(of: secret)
                fields["protocol-id"] = String(token.protocolID)
                fields["create-timestamp"] = String(token.createTimestamp)
                fields["expire-timestamp"] = String(token.expireTimestamp)
                fields["nonce"] = hex(token.nonce)
                fields["timeout-seconds"] = String(token.timeoutSeconds)
                fields["server-address"] = token.serverAddresses.map(\.description)
                fields["client-to-server-key"] = hex(token.clientToServerKey.bytes)
                fields["server-to-client-key"] = hex(token.serverToClientKey.bytes)
                return ["fields": fields]
            case "challenge-token":
                let token = try ChallengeToken.decrypt(
                    data, sequence: try number(inputs, "challenge-sequence"), key: try key(inputs, "challenge-key"))
                return ["fields": ["client-id": String(token.clientID), "user-data": hex(token.userData)]]
            case "packet":
                return ["fields": try packetFields(data, inputs)]
            default:
                throw RequestError(description: "unknown netcode kind \(kind)")
            }
        } catch let error as NetcodeError {
            return ["error": ErrorSignature.of(error)]
        }
    }

    /// A packet read as either side reads it (every type accepted), with a fresh replay window.
    static func packetFields(_ data: [UInt8], _ inputs: [String: String]) throws -> [String: Any] {
        let protocolID = try number(inputs, "protocol-id")
        var window: ReplayProtection? = ReplayProtection()
        let accepted = Set((0...6).compactMap { NetcodePacketType(rawValue: $0) })
        let received = try NetcodePacket.read(
            data, key: inputs["key"] == nil ? nil : try key(inputs, "key"), protocolID: protocolID,
            now: inputs["create-timestamp"] == nil ? 0 : try number(inputs, "create-timestamp"), accepted: accepted,
            replayProtection: &window)
        var fields: [String: Any] = ["sequence": String(received.sequence)]
        switch received.packet {
        case .connectionRequest(let request):
            fields = ["type": "request", "protocol-id": String(request.protocolID), "expire-timestamp": String(request.expireTimestamp)]
            fields["nonce"] = hex(request.nonce)
            if inputs["private-key"] != nil {
                let secret = try ConnectTokenPrivate.decrypt(
                    request.encryptedPrivateData, protocolID: request.protocolID, expireTimestamp: request.expireTimestamp,
                    nonce: request.nonce, key: try key(inputs, "private-key"))
                fields.merge(self.fields(of: secret)) { _, secret in secret }
            }
        case .connectionDenied: fields["type"] = "denied"
        case .connectionChallenge(let sequence, let token), .connectionResponse(let sequence, let token):
            fields["type"] = received.packet.type == .connectionChallenge ? "challenge" : "response"
            fields["challenge-sequence"] = String(sequence)
            fields["challenge-token"] = hex(token)
        case .keepAlive(let clientIndex, let maxClients):
            fields["type"] = "keep-alive"
            fields["client-index"] = String(clientIndex)
            fields["max-clients"] = String(maxClients)
        case .payload(let payload):
            fields["type"] = "payload"
            fields["payload"] = hex(payload)
        case .disconnect: fields["type"] = "disconnect"
        }
        return fields
    }

    /// A private connect token's fields, named as the netcode vectors name them.
    static func fields(of token: ConnectTokenPrivate) -> [String: Any] {
        [
            "client-id": String(token.clientID), "timeout-seconds": String(token.timeoutSeconds),
            "server-address": token.serverAddresses.map(\.description), "client-to-server-key": hex(token.clientToServerKey.bytes),
            "server-to-client-key": hex(token.serverToClientKey.bytes), "user-data": hex(token.userData),
        ]
    }

    static func number(_ inputs: [String: String], _ name: String) throws -> UInt64 {
        guard let text = inputs[name], let value = UInt64(text) else {
            throw RequestError(description: "input \(name) must be a decimal integer")
        }
        return value
    }

    static func key(_ inputs: [String: String], _ name: String) throws -> NetcodeKey {
        try NetcodeKey(bytes: try bytes(inputs[name]))
    }
}

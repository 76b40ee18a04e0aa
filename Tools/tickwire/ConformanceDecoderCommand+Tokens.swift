import Tickwire

extension ConformanceDecoderCommand {
    /// Reads one of Tickwire's connect token vectors (`PROTOCOL.md` 5.3.1 and 5.3.2): user data in
    /// Tickwire's layout through ``ConnectTokenUserData``, or a whole netcode.io connect token opened
    /// as a host opens a hello's token, through ``NetcodeConnectTokenVerifier`` with the request's
    /// key, protocol id and time; the decoded user data and user id, or the refusal's signature.
    static func decodeTokens(_ request: [String: Any]) throws -> [String: Any] {
        let data = try bytes(request["bytes"])
        switch request["kind"] as? String {
        case "user-data":
            do {
                return ["userData": userDataFields(try ConnectTokenUserData(decoding: data))]
            } catch {
                return ["error": error.description]
            }
        case "connect-token":
            guard let inputs = request["inputs"] as? [String: String] else {
                throw RequestError(description: "a connect-token request needs its inputs")
            }
            let verifier = NetcodeConnectTokenVerifier(
                key: try key(inputs, "key"), protocolID: try number(inputs, "protocol-id"), clock: .fixed(try number(inputs, "now")))
            let token: ConnectToken
            do {
                token = try ConnectToken(bytes: data)
            } catch {
                return ["error": ErrorSignature.of(error)]
            }
            guard let helloToken = token.helloToken else { throw RequestError(description: "a token a hello cannot carry") }
            do {
                let verified = try verifier.verify(helloToken)
                // The verifier has read the user data in Tickwire's layout already; an identity without it is refused.
                guard let details = verified.identity.details else { return ["error": "tokenInvalid"] }
                return ["userId": String(verified.identity.userID), "userData": userDataFields(details)]
            } catch {
                return ["error": refusalSignature(error.reason)]
            }
        case let kind:
            throw RequestError(description: "unknown tokens kind \(kind ?? "none")")
        }
    }

    /// User data as a tokens answer writes it: the layout version, room, display name and claims in hex.
    static func userDataFields(_ userData: ConnectTokenUserData) -> [String: Any] {
        [
            "version": Int(ConnectTokenUserData.layoutVersion), "room": userData.room, "displayName": userData.displayName,
            "claims": hex(userData.claims),
        ]
    }

    /// A verifier's refusal as a signature: the reject reason's name (`PROTOCOL.md` 5.5), camel-cased.
    static func refusalSignature(_ reason: Message.Reject.Reason) -> String {
        switch reason {
        case .tokenExpired: "tokenExpired"
        case .tokenInvalid: "tokenInvalid"
        default: "reject(\(reason.rawValue))"
        }
    }
}

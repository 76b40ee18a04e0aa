/// One netcode.io packet, decoded: the connection request in the clear, or the decrypted contents of any other type.
public enum NetcodePacket: Hashable, Sendable {
    /// The client's connection request: the public fields and the still-encrypted private connect token.
    case connectionRequest(ConnectionRequest)
    /// The server is full.
    case connectionDenied
    /// The server's challenge: the challenge token sequence and the 300 bytes of encrypted challenge token.
    case connectionChallenge(challengeSequence: UInt64, challengeToken: [UInt8])
    /// The client's response: the challenge as it was received.
    case connectionResponse(challengeSequence: UInt64, challengeToken: [UInt8])
    /// A keep-alive; the server fills in the client's slot index and its max clients, a client sends zeros.
    case keepAlive(clientIndex: UInt32, maxClients: UInt32)
    /// 1 to 1200 bytes of application data.
    case payload([UInt8])
    /// A disconnect.
    case disconnect

    /// The fields of a connection request packet (1078 bytes on the wire).
    public struct ConnectionRequest: Hashable, Sendable {
        /// The protocol id of the token.
        public var protocolID: UInt64
        /// The token's expire timestamp (Unix seconds).
        public var expireTimestamp: UInt64
        /// The token's 24-byte nonce.
        public var nonce: [UInt8]
        /// The 1024 bytes of encrypted private connect token data.
        public var encryptedPrivateData: [UInt8]

        /// A connection request.
        ///
        /// - Parameters:
        ///   - protocolID: The protocol id.
        ///   - expireTimestamp: The expire timestamp.
        ///   - nonce: 24 bytes.
        ///   - encryptedPrivateData: 1024 bytes.
        public init(protocolID: UInt64, expireTimestamp: UInt64, nonce: [UInt8], encryptedPrivateData: [UInt8]) {
            self.protocolID = protocolID
            self.expireTimestamp = expireTimestamp
            self.nonce = nonce
            self.encryptedPrivateData = encryptedPrivateData
        }

        /// The request a client sends for a connect token.
        ///
        /// - Parameter token: The client's connect token.
        public init(token: ConnectToken) {
            self.init(
                protocolID: token.protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce,
                encryptedPrivateData: token.encryptedPrivateData)
        }
    }

    /// The type of this packet.
    public var type: NetcodePacketType {
        switch self {
        case .connectionRequest: .connectionRequest
        case .connectionDenied: .connectionDenied
        case .connectionChallenge: .connectionChallenge
        case .connectionResponse: .connectionResponse
        case .keepAlive: .keepAlive
        case .payload: .payload
        case .disconnect: .disconnect
        }
    }
}

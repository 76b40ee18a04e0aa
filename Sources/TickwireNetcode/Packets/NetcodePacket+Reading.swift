extension NetcodePacket {
    /// A packet read from a datagram, with the sequence number it carried (0 for a connection request).
    public struct Received: Hashable, Sendable {
        /// The packet.
        public var packet: NetcodePacket
        /// Its sequence number.
        public var sequence: UInt64
    }

    /// The packet types a server accepts: request, response, keep-alive, payload, disconnect.
    public static let acceptedByServer: Set<NetcodePacketType> = [
        .connectionRequest, .connectionResponse, .keepAlive, .payload, .disconnect,
    ]
    /// The packet types a client accepts: denied, challenge, keep-alive, payload, disconnect.
    public static let acceptedByClient: Set<NetcodePacketType> = [
        .connectionDenied, .connectionChallenge, .keepAlive, .payload, .disconnect,
    ]

    /// Reads a datagram, in the exact order of checks the standard gives ("Reading Encrypted Packets").
    ///
    /// A connection request is checked for size (1078), version info, protocol id and expiry, but
    /// its private part is left encrypted (the server decrypts it with ``ConnectTokenPrivate/decrypt(_:protocolID:expireTimestamp:nonce:key:)``).
    /// Other types: size at least 18, type below 7 and accepted, 1 to 8 sequence bytes, room for the
    /// tag, the replay test (keep-alive, payload, disconnect), decryption, the window advanced, then
    /// the per-type size (0, 308, 308, 8, 1...1200, 0).
    ///
    /// - Parameters:
    ///   - datagram: The bytes received.
    ///   - key: The receiver's key for this sender, or nil when there is none (only a request can be read then).
    ///   - protocolID: The expected protocol id.
    ///   - now: The current Unix time in seconds (a connection request's token must expire after it).
    ///   - accepted: The packet types this side accepts (``acceptedByServer`` or ``acceptedByClient``).
    ///   - replayProtection: The sender's window, for a connected peer; nil before a connection exists.
    /// - Returns: The packet and its sequence number.
    /// - Throws: ``NetcodeError`` naming the first check that failed.
    public static func read(
        _ datagram: [UInt8], key: NetcodeKey?, protocolID: UInt64, now: UInt64, accepted: Set<NetcodePacketType>,
        replayProtection: inout ReplayProtection?
    ) throws(NetcodeError) -> Received {
        guard let prefix = datagram.first else { throw .truncated("packet", needed: 1, available: 0) }
        if prefix == NetcodePacketType.connectionRequest.rawValue {
            guard accepted.contains(.connectionRequest) else { throw .packetTypeNotAccepted(.connectionRequest) }
            return Received(packet: .connectionRequest(try readRequest(datagram, protocolID: protocolID, now: now)), sequence: 0)
        }
        guard datagram.count >= Netcode.minEncryptedPacketBytes else {
            throw .wrongSize("encrypted packet", size: datagram.count, expected: "at least \(Netcode.minEncryptedPacketBytes)")
        }
        guard let type = NetcodePacketType(rawValue: prefix & 0x0F) else { throw .invalidPacketType(prefix & 0x0F) }
        guard accepted.contains(type) else { throw .packetTypeNotAccepted(type) }
        let sequenceBytes = Int(prefix >> 4)
        guard (1...8).contains(sequenceBytes) else { throw .invalidSequenceBytes(sequenceBytes) }
        guard datagram.count >= 1 + sequenceBytes + Netcode.macBytes else {
            throw .wrongSize("encrypted packet", size: datagram.count, expected: "at least \(1 + sequenceBytes + Netcode.macBytes)")
        }
        var sequence: UInt64 = 0
        for index in 0..<sequenceBytes { sequence |= UInt64(datagram[1 + index]) << UInt64(8 * index) }
        if type.isReplayProtected, let window = replayProtection, window.isAlreadyReceived(sequence) { throw .replayed(sequence) }
        guard let key else { throw .noEncryptionMapping }
        guard
            let body = Sodium.openChaCha(
                datagram[(1 + sequenceBytes)...], additionalData: associatedData(protocolID: protocolID, prefix: prefix),
                nonce: Sodium.sequenceNonce(sequence), key: key)
        else { throw .authenticationFailed("\(type) packet") }
        if type.isReplayProtected { replayProtection?.advance(to: sequence) }
        return Received(packet: try decodeBody(body, type: type), sequence: sequence)
    }

    private static func readRequest(_ datagram: [UInt8], protocolID: UInt64, now: UInt64) throws(NetcodeError) -> ConnectionRequest {
        guard datagram.count == Netcode.connectionRequestBytes else {
            throw .wrongSize("connection request", size: datagram.count, expected: "\(Netcode.connectionRequestBytes)")
        }
        var reader = ByteReader(datagram, what: "connection request")
        _ = try reader.readUInt8()
        guard try reader.readBytes(Netcode.versionInfoBytes) == Netcode.versionInfo else { throw .versionMismatch }
        let packetProtocolID = try reader.readUInt64()
        guard packetProtocolID == protocolID else { throw .protocolIDMismatch(expected: protocolID, received: packetProtocolID) }
        let expire = try reader.readUInt64()
        guard expire > now else { throw .tokenExpired(expireTimestamp: expire, now: now) }
        let nonce = try reader.readBytes(Netcode.connectTokenNonceBytes)
        let encrypted = try reader.readBytes(Netcode.connectTokenPrivateBytes)
        return ConnectionRequest(protocolID: packetProtocolID, expireTimestamp: expire, nonce: nonce, encryptedPrivateData: encrypted)
    }

    private static func decodeBody(_ body: [UInt8], type: NetcodePacketType) throws(NetcodeError) -> NetcodePacket {
        func expectSize(_ size: Int) throws(NetcodeError) {
            guard body.count == size else { throw .wrongSize("\(type) packet data", size: body.count, expected: "\(size)") }
        }
        var reader = ByteReader(body, what: "\(type) packet data")
        switch type {
        case .connectionDenied:
            try expectSize(0)
            return .connectionDenied
        case .connectionChallenge, .connectionResponse:
            try expectSize(8 + Netcode.challengeTokenBytes)
            let challengeSequence = try reader.readUInt64()
            let token = try reader.readBytes(Netcode.challengeTokenBytes)
            return type == .connectionChallenge
                ? .connectionChallenge(challengeSequence: challengeSequence, challengeToken: token)
                : .connectionResponse(challengeSequence: challengeSequence, challengeToken: token)
        case .keepAlive:
            try expectSize(8)
            return .keepAlive(clientIndex: try reader.readUInt32(), maxClients: try reader.readUInt32())
        case .payload:
            guard (1...Netcode.maxPayloadBytes).contains(body.count) else {
                throw .wrongSize("payload packet data", size: body.count, expected: "1...\(Netcode.maxPayloadBytes)")
            }
            return .payload(body)
        default:
            try expectSize(0)
            return .disconnect
        }
    }
}

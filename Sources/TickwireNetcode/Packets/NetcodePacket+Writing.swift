extension NetcodePacket {
    /// The bytes `sequence` takes on the wire: its low bytes up to the highest non-zero one, at least one.
    static func sequenceByteCount(_ sequence: UInt64) -> Int {
        max(1, (64 - sequence.leadingZeroBitCount + 7) / 8)
    }

    /// The associated data of an encrypted packet: version info, protocol id, prefix byte.
    static func associatedData(protocolID: UInt64, prefix: UInt8) -> [UInt8] {
        var writer = ByteWriter(capacity: Netcode.versionInfoBytes + 9)
        writer.write(bytes: Netcode.versionInfo)
        writer.write(protocolID)
        writer.write(prefix)
        return writer.bytes
    }

    /// Writes the packet as a datagram.
    ///
    /// A connection request is written in the clear (1078 bytes; `sequence` and `key` are not
    /// used). Every other type is the prefix byte `(sequence bytes << 4) | type`, the sequence's
    /// low bytes least significant first, then the per-packet data encrypted with
    /// ChaCha20-Poly1305-IETF under `key` (nonce: four zero bytes and the sequence as a
    /// little-endian `uint64`; associated data: version info, protocol id, prefix byte) and its tag.
    ///
    /// - Parameters:
    ///   - sequence: The sender's packet sequence number for this packet.
    ///   - key: The sender's key: client-to-server from a client, server-to-client from a server.
    ///   - protocolID: The application's protocol id.
    /// - Returns: The datagram.
    /// - Throws: ``NetcodeError``: `outOfRange` for an empty or over-long payload, `wrongSize` for a
    ///   request or challenge whose fields have the wrong sizes.
    public func written(sequence: UInt64, key: NetcodeKey, protocolID: UInt64) throws(NetcodeError) -> [UInt8] {
        var body = ByteWriter(capacity: Netcode.maxPayloadBytes)
        switch self {
        case .connectionRequest(let request):
            guard request.nonce.count == Netcode.connectTokenNonceBytes else {
                throw .wrongSize("connect token nonce", size: request.nonce.count, expected: "\(Netcode.connectTokenNonceBytes)")
            }
            guard request.encryptedPrivateData.count == Netcode.connectTokenPrivateBytes else {
                throw .wrongSize(
                    "encrypted private connect token", size: request.encryptedPrivateData.count,
                    expected: "\(Netcode.connectTokenPrivateBytes)")
            }
            var writer = ByteWriter(capacity: Netcode.connectionRequestBytes)
            writer.write(NetcodePacketType.connectionRequest.rawValue)
            writer.write(bytes: Netcode.versionInfo)
            writer.write(request.protocolID)
            writer.write(request.expireTimestamp)
            writer.write(bytes: request.nonce)
            writer.write(bytes: request.encryptedPrivateData)
            return writer.bytes
        case .connectionDenied, .disconnect:
            break
        case .connectionChallenge(let challengeSequence, let token), .connectionResponse(let challengeSequence, let token):
            guard token.count == Netcode.challengeTokenBytes else {
                throw .wrongSize("encrypted challenge token", size: token.count, expected: "\(Netcode.challengeTokenBytes)")
            }
            body.write(challengeSequence)
            body.write(bytes: token)
        case .keepAlive(let clientIndex, let maxClients):
            body.write(clientIndex)
            body.write(maxClients)
        case .payload(let payload):
            guard (1...Netcode.maxPayloadBytes).contains(payload.count) else {
                throw .outOfRange("payload size", value: payload.count, range: 1...Netcode.maxPayloadBytes)
            }
            body.write(bytes: payload)
        }
        let sequenceBytes = Self.sequenceByteCount(sequence)
        let prefix = UInt8(sequenceBytes << 4) | type.rawValue
        var writer = ByteWriter(capacity: 1 + sequenceBytes + body.bytes.count + Netcode.macBytes)
        writer.write(prefix)
        for index in 0..<sequenceBytes { writer.write(UInt8(truncatingIfNeeded: sequence >> UInt64(8 * index))) }
        writer.write(
            bytes: Sodium.sealChaCha(
                body.bytes, additionalData: Self.associatedData(protocolID: protocolID, prefix: prefix),
                nonce: Sodium.sequenceNonce(sequence), key: key))
        return writer.bytes
    }
}

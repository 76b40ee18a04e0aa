extension NetcodeServer {
    /// The standard's steps for a connection request, after the packet's own checks (size,
    /// version, protocol id, expiry): decrypt and read the private token, find this server in it,
    /// refuse a connected address or client id, refuse a token used from another address, deny
    /// when full, add an encryption mapping, then answer with a challenge.
    mutating func processRequest(_ request: NetcodePacket.ConnectionRequest, from address: NetcodeAddress) throws(NetcodeError) {
        let token = try ConnectTokenPrivate.decrypt(
            request.encryptedPrivateData, protocolID: request.protocolID, expireTimestamp: request.expireTimestamp, nonce: request.nonce,
            key: configuration.privateKey)
        guard token.serverAddresses.contains(where: configuration.publicAddresses.contains) else { throw .serverAddressNotInToken }
        guard !slots.contains(where: { $0?.address == address }) else { throw .alreadyConnected("address") }
        guard !slots.contains(where: { $0?.clientID == token.clientID }) else { throw .alreadyConnected("client id") }
        let mac = Array(request.encryptedPrivateData.suffix(Netcode.macBytes))
        guard tokenHistory.findOrAdd(mac: mac, address: address, now: time) else { throw .tokenUsedElsewhere }
        if connectedClientCount == configuration.maxClients {
            sendGlobal(.connectionDenied, to: address, key: token.serverToClientKey)
            return
        }
        let expireTime = token.timeoutSeconds >= 0 ? time + Double(token.timeoutSeconds) : nil
        guard
            mappings.add(
                address: address, sendKey: token.serverToClientKey, receiveKey: token.clientToServerKey, now: time,
                expireTime: expireTime, timeoutSeconds: token.timeoutSeconds) != nil
        else { throw .noEncryptionMapping }
        // The user data is 256 bytes: ConnectTokenPrivate guarantees it, so this cannot throw.
        let challenge = try ChallengeToken(clientID: token.clientID, userData: token.userData)
        let encrypted = challenge.encrypted(sequence: challengeSequence, key: challengeKey)
        sendGlobal(
            .connectionChallenge(challengeSequence: challengeSequence, challengeToken: encrypted), to: address, key: token.serverToClientKey
        )
        challengeSequence += 1
    }

    /// The standard's steps for a connection response: decrypt the challenge token, refuse a
    /// connected address or client id, deny when full, else take a free slot and send a keep-alive.
    mutating func processResponse(
        challengeSequence: UInt64, token: [UInt8], from address: NetcodeAddress, mappingIndex: Int
    ) throws(NetcodeError) {
        let challenge = try ChallengeToken.decrypt(token, sequence: challengeSequence, key: challengeKey)
        guard let mapping = mappings[mappingIndex] else { throw .noEncryptionMapping }
        guard !slots.contains(where: { $0?.address == address }) else { throw .alreadyConnected("address") }
        guard !slots.contains(where: { $0?.clientID == challenge.clientID }) else { throw .alreadyConnected("client id") }
        guard let clientIndex = slots.firstIndex(where: { $0 == nil }) else {
            sendGlobal(.connectionDenied, to: address, key: mapping.sendKey)
            return
        }
        mappings.markConnected(mappingIndex, clientIndex: clientIndex)
        slots[clientIndex] = Slot(
            clientID: challenge.clientID, address: address, mappingIndex: mappingIndex, timeoutSeconds: mapping.timeoutSeconds,
            lastSendTime: time, lastReceiveTime: time)
        events.append(.connected(clientIndex: clientIndex, clientID: challenge.clientID, address: address, userData: challenge.userData))
        sendToClient(clientIndex, .keepAlive(clientIndex: UInt32(clientIndex), maxClients: UInt32(configuration.maxClients)))
    }
}

import Testing

@testable import TickwireNetcode

/// The vectors of `Protocol/vectors/netcode/`, written by the independent Python peer
/// (`Tools/netcode-peer/make_vectors.py`): each is re-encoded from its inputs and decoded back.
struct NetcodeVectorTests {
    static let packetVectors = [
        "packet-connection-denied.hex", "packet-connection-challenge.hex", "packet-connection-response.hex", "packet-keep-alive.hex",
        "packet-payload.hex", "packet-payload-max.hex", "packet-disconnect.hex",
    ]

    private func privateToken(_ vector: NetcodeVector) throws -> ConnectTokenPrivate {
        let addresses = try (vector.headers["server-address"] ?? []).map { try NetcodeAddress(parsing: $0) }
        guard let timeout = Int32(try vector.string("timeout-seconds")) else { throw VectorError.badHeader(vector.name, "timeout-seconds") }
        return try ConnectTokenPrivate(
            clientID: try vector.integer("client-id"), timeoutSeconds: timeout, serverAddresses: addresses,
            clientToServerKey: try vector.key("client-to-server-key"), serverToClientKey: try vector.key("server-to-client-key"),
            userData: try vector.hex("user-data"))
    }

    private func token(_ vector: NetcodeVector) throws -> ConnectToken {
        try ConnectToken.generate(
            try privateToken(vector), protocolID: try vector.integer("protocol-id"),
            createTimestamp: try vector.integer("create-timestamp"),
            expireTimestamp: try vector.integer("expire-timestamp"), privateKey: try vector.key("private-key"),
            nonce: try vector.hex("nonce"))
    }

    @Test("the encrypted private connect token matches the vector, and decrypts to its inputs")
    func privateConnectToken() throws {
        let vector = try NetcodeVector(named: "connect-token-private.hex")
        let expected = try privateToken(vector)
        #expect(try token(vector).encryptedPrivateData == vector.bytes, "XChaCha20 ciphertext or plaintext layout differs from the vector")
        let decrypted = try ConnectTokenPrivate.decrypt(
            vector.bytes, protocolID: try vector.integer("protocol-id"), expireTimestamp: try vector.integer("expire-timestamp"),
            nonce: try vector.hex("nonce"), key: try vector.key("private-key"))
        #expect(decrypted == expected)
    }

    @Test("the whole 2048-byte connect token matches the vector, and reads back")
    func connectToken() throws {
        let vector = try NetcodeVector(named: "connect-token.hex")
        let minted = try token(vector)
        #expect(minted.serialized() == vector.bytes, "the serialized connect token differs from the vector")
        let read = try ConnectToken(bytes: vector.bytes)
        #expect(read == minted)
        #expect(read.serverAddresses.map(\.description) == ["127.0.0.1:40000", "[0:0:0:0:0:0:0:1]:50000", "[2001:db8:0:0:0:0:0:1]:443"])
    }

    @Test("the challenge token matches the vector, and decrypts")
    func challengeToken() throws {
        let vector = try NetcodeVector(named: "challenge-token.hex")
        let token = try ChallengeToken(clientID: try vector.integer("client-id"), userData: try vector.hex("user-data"))
        let sequence = try vector.integer("challenge-sequence")
        #expect(token.encrypted(sequence: sequence, key: try vector.key("challenge-key")) == vector.bytes)
        #expect(try ChallengeToken.decrypt(vector.bytes, sequence: sequence, key: try vector.key("challenge-key")) == token)
    }

    @Test("the connection request matches the vector, and a server reads it")
    func connectionRequest() throws {
        let vector = try NetcodeVector(named: "packet-connection-request.hex")
        let request = NetcodePacket.connectionRequest(.init(token: try token(vector)))
        #expect(try request.written(sequence: 0, key: Fixture.clientToServerKey, protocolID: Fixture.protocolID) == vector.bytes)
        var window: ReplayProtection? = nil
        let read = try NetcodePacket.read(
            vector.bytes, key: nil, protocolID: try vector.integer("protocol-id"), now: try vector.integer("create-timestamp"),
            accepted: NetcodePacket.acceptedByServer, replayProtection: &window)
        #expect(read.packet == request)
    }

    @Test("every encrypted packet type matches its vector byte for byte, and decodes back", arguments: packetVectors)
    func packet(name: String) throws {
        let vector = try NetcodeVector(named: name)
        let packet: NetcodePacket
        switch try vector.string("type") {
        case "denied": packet = .connectionDenied
        case "challenge":
            packet = .connectionChallenge(
                challengeSequence: try vector.integer("challenge-sequence"), challengeToken: try vector.hex("challenge-token"))
        case "response":
            packet = .connectionResponse(
                challengeSequence: try vector.integer("challenge-sequence"), challengeToken: try vector.hex("challenge-token"))
        case "keep-alive":
            packet = .keepAlive(
                clientIndex: UInt32(try vector.integer("client-index")), maxClients: UInt32(try vector.integer("max-clients")))
        case "payload": packet = .payload(try vector.hex("payload"))
        default: packet = .disconnect
        }
        let key = try vector.key("key")
        let sequence = try vector.integer("sequence")
        let protocolID = try vector.integer("protocol-id")
        #expect(try packet.written(sequence: sequence, key: key, protocolID: protocolID) == vector.bytes, "\(name): bytes differ")
        var window: ReplayProtection? = ReplayProtection()
        let accepted = Set((1...6).compactMap { NetcodePacketType(rawValue: $0) })
        let read = try NetcodePacket.read(
            vector.bytes, key: key, protocolID: protocolID, now: 0, accepted: accepted, replayProtection: &window)
        #expect(read.packet == packet)
        #expect(read.sequence == sequence)
    }
}

import Testing

@testable import TickwireNetcode

struct NetcodePacketTests {
    static let key = Fixture.serverToClientKey
    static let protocolID = Fixture.protocolID
    static let all = Set((1...6).compactMap { NetcodePacketType(rawValue: $0) })

    static func read(
        _ datagram: [UInt8], key: NetcodeKey? = key, protocolID: UInt64 = protocolID, accepted: Set<NetcodePacketType> = all,
        window: inout ReplayProtection?
    ) throws -> NetcodePacket.Received {
        try NetcodePacket.read(datagram, key: key, protocolID: protocolID, now: 100, accepted: accepted, replayProtection: &window)
    }

    /// The code of the ``NetcodeError`` `body` throws, nil when it throws nothing (another error fails the test).
    static func code(of body: () throws -> Void) -> NetcodeError.Code? {
        do {
            try body()
            return nil
        } catch let error as NetcodeError {
            return error.code
        } catch {
            Issue.record("expected a NetcodeError, got \(error)")
            return nil
        }
    }

    static let samples: [NetcodePacket] = [
        .connectionDenied,
        .connectionChallenge(challengeSequence: 9, challengeToken: Array(repeating: 7, count: 300)),
        .connectionResponse(challengeSequence: 1 << 40, challengeToken: Array(repeating: 1, count: 300)),
        .keepAlive(clientIndex: 5, maxClients: 64), .payload([1]), .payload(Array(repeating: 0xAB, count: 1200)), .disconnect,
    ]

    @Test("every packet type round-trips at sequences of every width", arguments: samples)
    func roundTrip(packet: NetcodePacket) throws {
        for width in 0..<8 {
            let sequence: UInt64 = width == 0 ? 0 : (1 << UInt64(8 * width)) - 1 + (1 << UInt64(8 * width))
            let bytes = try packet.written(sequence: sequence, key: Self.key, protocolID: Self.protocolID)
            #expect(Int(bytes[0] >> 4) == NetcodePacket.sequenceByteCount(sequence))
            #expect(bytes[0] & 0x0F == packet.type.rawValue)
            var window: ReplayProtection? = ReplayProtection()
            let read = try Self.read(bytes, window: &window)
            #expect(read.packet == packet)
            #expect(read.sequence == sequence)
        }
    }

    @Test("the sequence number takes as few bytes as it needs, least significant first")
    func sequenceEncoding() throws {
        #expect(NetcodePacket.sequenceByteCount(0) == 1)
        #expect(NetcodePacket.sequenceByteCount(255) == 1)
        #expect(NetcodePacket.sequenceByteCount(256) == 2)
        #expect(NetcodePacket.sequenceByteCount(1000) == 2)
        #expect(NetcodePacket.sequenceByteCount(.max) == 8)
        let bytes = try NetcodePacket.disconnect.written(sequence: 1000, key: Self.key, protocolID: Self.protocolID)
        #expect(Array(bytes[0..<3]) == [0x26, 0xE8, 0x03])
    }

    @Test("a replayed packet is refused, and only after it decrypted does it move the window")
    func replay() throws {
        let packet = try NetcodePacket.payload([1, 2, 3]).written(sequence: 42, key: Self.key, protocolID: Self.protocolID)
        var window: ReplayProtection? = ReplayProtection()
        _ = try Self.read(packet, window: &window)
        #expect(Self.code { _ = try Self.read(packet, window: &window) } == .replayed)
        var forged = try NetcodePacket.payload([1]).written(sequence: 5000, key: Self.key, protocolID: Self.protocolID)
        forged[forged.count - 1] ^= 1
        #expect(Self.code { _ = try Self.read(forged, window: &window) } == .authenticationFailed)
        #expect(window?.mostRecentSequence == 42, "a packet that failed to decrypt must not advance the window")
    }

    @Test("challenge and response are not replay protected; denied neither")
    func unprotectedTypes() throws {
        let packet = try NetcodePacket.connectionDenied.written(sequence: 1, key: Self.key, protocolID: Self.protocolID)
        var window: ReplayProtection? = ReplayProtection()
        _ = try Self.read(packet, window: &window)
        _ = try Self.read(packet, window: &window)
        #expect(window?.mostRecentSequence == 0)
    }

    @Test("refusals: size, type, sequence bytes, key, protocol id, prefix tampering, per-type sizes")
    func refusals() throws {
        var window: ReplayProtection? = nil
        let good = try NetcodePacket.keepAlive(clientIndex: 1, maxClients: 2).written(
            sequence: 7, key: Self.key, protocolID: Self.protocolID)
        #expect(Self.code { _ = try Self.read([], window: &window) } == .truncated)
        #expect(Self.code { _ = try Self.read(Array(good[0..<17]), window: &window) } == .wrongSize, "below 18 bytes")
        var badType = good
        badType[0] = 0x17
        #expect(Self.code { _ = try Self.read(badType, window: &window) } == .invalidPacketType)
        badType[0] = 0x1F
        #expect(Self.code { _ = try Self.read(badType, window: &window) } == .invalidPacketType)
        var noSequence = good
        noSequence[0] = 0x04
        #expect(Self.code { _ = try Self.read(noSequence, window: &window) } == .invalidSequenceBytes)
        noSequence[0] = 0x94
        #expect(Self.code { _ = try Self.read(noSequence, window: &window) } == .invalidSequenceBytes)
        var longSequence = Array(good[0..<18])
        longSequence[0] = 0x84
        #expect(Self.code { _ = try Self.read(longSequence, window: &window) } == .wrongSize, "8 sequence bytes need 25 bytes")
        #expect(
            Self.code { _ = try Self.read(good, accepted: NetcodePacket.acceptedByServer.subtracting([.keepAlive]), window: &window) }
                == .packetTypeNotAccepted)
        #expect(Self.code { _ = try Self.read(good, key: Fixture.clientToServerKey, window: &window) } == .authenticationFailed)
        #expect(Self.code { _ = try Self.read(good, key: nil, window: &window) } == .noEncryptionMapping)
        #expect(
            Self.code { _ = try Self.read(good, protocolID: 1, window: &window) } == .authenticationFailed, "protocol id is associated data"
        )
        var retyped = good
        retyped[0] = 0x15  // keep-alive relabelled as payload: the prefix is associated data
        #expect(Self.code { _ = try Self.read(retyped, window: &window) } == .authenticationFailed)
        var moved = good
        moved[1] ^= 1  // the sequence is the nonce
        #expect(Self.code { _ = try Self.read(moved, window: &window) } == .authenticationFailed)
    }

    @Test("a decrypted body of the wrong size for its type is refused", arguments: [0, 1, 4, 7, 9, 300, 308, 1201])
    func perTypeSizes(size: Int) throws {
        // Seal arbitrary bodies under each prefix, the way a hostile peer holding the key could.
        var window: ReplayProtection? = nil
        for type in (1...6).compactMap({ NetcodePacketType(rawValue: $0) }) {
            let prefix = 0x10 | type.rawValue
            let sealed = Sodium.sealChaCha(
                Array(repeating: 0, count: size), additionalData: NetcodePacket.associatedData(protocolID: Self.protocolID, prefix: prefix),
                nonce: Sodium.sequenceNonce(3), key: Self.key)
            let datagram = [prefix, 3] + sealed
            let valid: Bool
            switch type {
            case .connectionDenied, .disconnect: valid = size == 0
            case .connectionChallenge, .connectionResponse: valid = size == 308
            case .keepAlive: valid = size == 8
            default: valid = (1...1200).contains(size)
            }
            let code = Self.code { _ = try Self.read(datagram, window: &window) }
            #expect(code == (valid ? nil : .wrongSize), "\(type) with \(size) bytes of data")
        }
    }

    @Test("writing refuses an empty or over-long payload and a challenge token of the wrong size")
    func writeRefusals() {
        #expect(Self.code { _ = try NetcodePacket.payload([]).written(sequence: 0, key: Self.key, protocolID: 0) } == .outOfRange)
        #expect(
            Self.code { _ = try NetcodePacket.payload(Array(repeating: 0, count: 1201)).written(sequence: 0, key: Self.key, protocolID: 0) }
                == .outOfRange)
        #expect(
            Self.code {
                _ = try NetcodePacket.connectionChallenge(challengeSequence: 0, challengeToken: [1]).written(
                    sequence: 0, key: Self.key, protocolID: 0)
            }
                == .wrongSize)
    }

    @Test("connection request refusals: size, version, protocol id, expiry")
    func requestRefusals() throws {
        let token = try Fixture.token()
        let request = try NetcodePacket.connectionRequest(.init(token: token)).written(sequence: 0, key: Self.key, protocolID: 0)
        #expect(request.count == 1078)
        func code(_ bytes: [UInt8], now: UInt64 = 1_700_000_000, accepted: Set<NetcodePacketType> = NetcodePacket.acceptedByServer)
            -> NetcodeError.Code?
        {
            var window: ReplayProtection? = nil
            return Self.code {
                _ = try NetcodePacket.read(
                    bytes, key: nil, protocolID: Self.protocolID, now: now, accepted: accepted, replayProtection: &window)
            }
        }
        #expect(code(request) == nil)
        #expect(code(request + [0]) == .wrongSize)
        #expect(code(Array(request.dropLast())) == .wrongSize)
        var version = request
        version[12] = UInt8(ascii: "1")  // "NETCODE 1.01"
        #expect(code(version) == .versionMismatch)
        var protocolID = request
        protocolID[14] ^= 1
        #expect(code(protocolID) == .protocolIDMismatch)
        #expect(code(request, now: 1_700_000_030) == .tokenExpired, "expire timestamp <= now")
        #expect(code(request, accepted: NetcodePacket.acceptedByClient) == .packetTypeNotAccepted)
    }
}

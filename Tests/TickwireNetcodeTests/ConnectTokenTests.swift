import Testing

@testable import TickwireNetcode

struct ConnectTokenTests {
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

    @Test("a token round-trips through its 2048 bytes, and its private part through decryption")
    func roundTrip() throws {
        var addresses: [NetcodeAddress] = []
        for index in 0..<32 {
            if index % 2 == 0 {
                addresses.append(NetcodeAddress(ipv4: 10, 0, 0, UInt8(index), port: UInt16(40000 + index)))
            } else {
                addresses.append(try NetcodeAddress(parsing: "[fe80::\(index)]:\(50000 + index)"))
            }
        }
        let token = try Fixture.token(timeout: -1, addresses: addresses, randomKeys: true)
        let bytes = token.serialized()
        #expect(bytes.count == 2048)
        #expect(try ConnectToken(bytes: bytes) == token)
        let privatePart = try ConnectTokenPrivate.decrypt(
            token.encryptedPrivateData, protocolID: token.protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce,
            key: Fixture.privateKey)
        #expect(privatePart.serverAddresses == addresses)
        #expect(privatePart.timeoutSeconds == -1)
        #expect(privatePart.clientToServerKey == token.clientToServerKey)
        #expect(privatePart.userData == Fixture.userData)
    }

    @Test("two tokens generated alike differ in nonce (random, as the standard asks)")
    func randomNonce() throws {
        #expect(try Fixture.token().nonce != Fixture.token().nonce)
    }

    @Test("the private part refuses the wrong key, protocol id, expiry and any flipped byte")
    func privateRefusals() throws {
        let token = try Fixture.token()
        func decrypt(
            _ data: [UInt8], protocolID: UInt64 = Fixture.protocolID, expire: UInt64 = 1_700_000_030, key: NetcodeKey = Fixture.privateKey
        )
            -> NetcodeError.Code?
        {
            Self.code {
                _ = try ConnectTokenPrivate.decrypt(data, protocolID: protocolID, expireTimestamp: expire, nonce: token.nonce, key: key)
            }
        }
        #expect(decrypt(token.encryptedPrivateData) == nil)
        #expect(decrypt(token.encryptedPrivateData, key: Fixture.challengeKey) == .authenticationFailed)
        #expect(decrypt(token.encryptedPrivateData, protocolID: 1) == .authenticationFailed)
        #expect(decrypt(token.encryptedPrivateData, expire: 1_700_000_031) == .authenticationFailed)
        for index in [0, 500, 1007, 1008, 1023] {
            var flipped = token.encryptedPrivateData
            flipped[index] ^= 0x80
            #expect(decrypt(flipped) == .authenticationFailed, "byte \(index) flipped")
        }
        #expect(decrypt(Array(token.encryptedPrivateData.dropLast())) == .wrongSize)
    }

    @Test("reading refuses bad version info, create after expire, 0 or 33 addresses, address type 0 or 3, wrong size")
    func publicRefusals() throws {
        let bytes = try Fixture.token().serialized()
        func read(_ data: [UInt8]) -> NetcodeError.Code? { Self.code { _ = try ConnectToken(bytes: data) } }
        #expect(read(bytes) == nil)
        #expect(read(bytes + [0]) == .wrongSize)
        var version = bytes
        version[11] = UInt8(ascii: "0")
        #expect(read(version) == .versionMismatch)
        var timestamps = bytes
        timestamps[21 + 7] = 0xFF  // create timestamp's top byte: created after it expires
        #expect(read(timestamps) == .invalidTimestamps)
        let countOffset = 13 + 8 * 3 + 24 + 1024 + 4
        for count: UInt8 in [0, 33] {
            var addresses = bytes
            addresses[countOffset] = count
            #expect(read(addresses) == .invalidServerAddressCount, "\(count) addresses")
        }
        for type: UInt8 in [0, 3] {
            var addresses = bytes
            addresses[countOffset + 4] = type
            #expect(read(addresses) == .invalidAddressType, "address type \(type)")
        }
        #expect(Self.code { _ = try Fixture.token(create: 10, expire: 9) } == .invalidTimestamps)
        #expect(Self.code { _ = try Fixture.privateToken(addresses: []) } == .invalidServerAddressCount)
        #expect(
            Self.code {
                _ = try ConnectTokenPrivate(
                    clientID: 1, timeoutSeconds: 1, serverAddresses: [Fixture.serverAddress], clientToServerKey: Fixture.clientToServerKey,
                    serverToClientKey: Fixture.serverToClientKey, userData: [1, 2])
            } == .wrongSize)
    }

    @Test("a challenge token refuses another key and another sequence")
    func challengeRefusals() throws {
        let token = try ChallengeToken(clientID: 99, userData: Fixture.userData)
        let encrypted = token.encrypted(sequence: 4, key: Fixture.challengeKey)
        #expect(encrypted.count == 300)
        #expect(try ChallengeToken.decrypt(encrypted, sequence: 4, key: Fixture.challengeKey) == token)
        #expect(Self.code { _ = try ChallengeToken.decrypt(encrypted, sequence: 5, key: Fixture.challengeKey) } == .authenticationFailed)
        #expect(Self.code { _ = try ChallengeToken.decrypt(encrypted, sequence: 4, key: Fixture.privateKey) } == .authenticationFailed)
    }

    @Test("keys must be 32 bytes")
    func keySize() {
        #expect(Self.code { _ = try NetcodeKey(bytes: [1, 2, 3]) } == .wrongSize)
        #expect(NetcodeKey.random() != NetcodeKey.random())
    }
}

import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireTokens

/// The verifier's refusals (expired, forged) and the issuer's tokens, opened.
@Suite("Connect token verifier and issuer")
struct NetcodeConnectTokenVerifierTests {
    static let key = try! NetcodeKey(bytes: Array(repeating: 7, count: 32))
    static let protocolID: UInt64 = 0x5449_434B
    static let address = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40_000)

    func issue(
        at now: UInt64 = 1_000, lifetime: UInt64 = 60, key: NetcodeKey = key, protocolID: UInt64 = protocolID, room: String = "red"
    ) throws -> Message.Hello.ConnectToken {
        let issuer = ConnectTokenIssuer(key: key, protocolID: protocolID, clock: .fixed(now))
        let token = try issuer.issue(
            userID: 9, room: room, displayName: "Ada", claims: [1, 2, 3], serverAddresses: [Self.address], lifetimeSeconds: lifetime)
        return try #require(token.helloToken)
    }

    func verifier(at now: UInt64) -> NetcodeConnectTokenVerifier {
        NetcodeConnectTokenVerifier(key: Self.key, protocolID: Self.protocolID, clock: .fixed(now))
    }

    @Test("an issued token opens to its user id, room, display name and claims")
    func opens() throws {
        let verified = try verifier(at: 1_030).verify(try issue())
        #expect(verified.identity.userID == 9)
        #expect(verified.room == "red")
        #expect(verified.identity.displayName == "Ada")
        #expect(verified.identity.claims == [1, 2, 3])
        #expect(verified.identity.userData.count == 256)
        #expect(verified.expireTimestamp == 1_060)
        #expect(verified.verifiedAt == 1_030)
    }

    @Test("a token is valid up to the second before its expiry and refused as expired from it")
    func expiry() throws {
        let token = try issue()
        _ = try verifier(at: 1_059).verify(token)
        #expect(throws: ConnectTokenRefusal.self) { try verifier(at: 1_060).verify(token) }
        do {
            _ = try verifier(at: 1_061).verify(token)
            Issue.record("an expired token opened")
        } catch {
            #expect(error.reason == .tokenExpired)
        }
    }

    @Test("a token sealed with another key, for another protocol id, or altered is refused as invalid", arguments: 0..<4)
    func forged(variant: Int) throws {
        var token = try issue()
        switch variant {
        case 0: token = try issue(key: try NetcodeKey(bytes: Array(repeating: 8, count: 32)))
        case 1: token = try issue(protocolID: Self.protocolID + 1)
        case 2:
            var data = token.encryptedPrivateData
            data[100] ^= 1
            token = try #require(
                Message.Hello.ConnectToken(expireTimestamp: token.expireTimestamp, nonce: token.nonce, encryptedPrivateData: data))
        default:
            // A later expiry written over the real one: the associated data no longer matches.
            token = try #require(
                Message.Hello.ConnectToken(
                    expireTimestamp: token.expireTimestamp + 3_600, nonce: token.nonce, encryptedPrivateData: token.encryptedPrivateData))
        }
        do {
            _ = try verifier(at: 1_030).verify(token)
            Issue.record("a forged token (variant \(variant)) opened")
        } catch {
            #expect(error.reason == .tokenInvalid, "variant \(variant): \(error)")
        }
    }

    @Test("a token whose user data is not Tickwire's layout is refused as invalid")
    func foreignUserData() throws {
        let privatePart = try ConnectTokenPrivate(
            clientID: 5, timeoutSeconds: 10, serverAddresses: [Self.address], clientToServerKey: .random(),
            serverToClientKey: .random(), userData: Array(repeating: 0, count: 256))
        let token = try ConnectToken.generate(
            privatePart, protocolID: Self.protocolID, createTimestamp: 1_000, expireTimestamp: 1_060, privateKey: Self.key)
        let helloToken = try #require(token.helloToken)
        do {
            _ = try verifier(at: 1_030).verify(helloToken)
            Issue.record("a token without Tickwire's layout opened")
        } catch {
            #expect(error.reason == .tokenInvalid)
            #expect(error.text.contains("unknownLayout(0)"), "the words name the layout error: \(error.text)")
        }
    }

    @Test("a token for a matchmaker's seat reserves the seat's room and expires when the seat stops waiting")
    func forReservation() throws {
        let reservation = SeatReservation(
            room: "duel-7", mode: "duel", process: "p1", processURL: "ws://10.0.0.1:7777", processUDPURL: nil, player: "ada",
            validFor: .seconds(30), isNewRoom: true)
        let issuer = ConnectTokenIssuer(key: Self.key, protocolID: Self.protocolID, clock: .fixed(1_000))
        let token = try issuer.issue(for: reservation, userID: 12, displayName: "Ada", serverAddresses: [Self.address])
        #expect(token.expireTimestamp == 1_030)
        let verified = try verifier(at: 1_010).verify(try #require(token.helloToken))
        #expect(verified.room == "duel-7")
        #expect(verified.identity.userID == 12)
    }

    @Test("the issuer refuses a zero or overflowing lifetime and an identity that does not fit")
    func issuerRefusals() throws {
        let issuer = ConnectTokenIssuer(key: Self.key, protocolID: Self.protocolID, clock: .fixed(UInt64.max - 5))
        #expect(throws: ConnectTokenIssueError.self) {
            try issuer.issue(userID: 1, room: "", displayName: "", serverAddresses: [Self.address], lifetimeSeconds: 10)
        }
        let now = ConnectTokenIssuer(key: Self.key, protocolID: Self.protocolID, clock: .fixed(1_000))
        #expect(throws: ConnectTokenIssueError.self) {
            try now.issue(userID: 1, room: "", displayName: "", serverAddresses: [Self.address], lifetimeSeconds: 0)
        }
        #expect(throws: ConnectTokenIssueError.self) {
            try now.issue(
                userID: 1, room: "", displayName: String(repeating: "n", count: 65), serverAddresses: [Self.address], lifetimeSeconds: 10)
        }
        #expect(throws: ConnectTokenIssueError.self) {
            try now.issue(userID: 1, room: "", displayName: "", serverAddresses: [], lifetimeSeconds: 10)
        }
    }
}

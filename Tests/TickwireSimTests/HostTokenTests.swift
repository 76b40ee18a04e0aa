import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// The host's part of connect tokens (PROTOCOL.md 5.3.1) on the simulated network, with a
/// verifier that needs no cryptography: when a token counts as used, and when one is required.
@Suite("Host connect tokens")
struct HostTokenTests {
    /// Opens any token: its private part's first byte is the user id, the next bytes up to a zero
    /// the room; a first byte of 0xFF does not open, and one of 0xFE has expired.
    struct PlainVerifier: ConnectTokenVerifier {
        func verify(_ token: Message.Hello.ConnectToken) throws(ConnectTokenRefusal) -> VerifiedConnectToken {
            let data = token.encryptedPrivateData
            guard data[0] != 0xFF else { throw ConnectTokenRefusal(.tokenInvalid, "does not open") }
            guard data[0] != 0xFE else { throw ConnectTokenRefusal(.tokenExpired, "expired") }
            let room = String(decoding: data[1...].prefix { $0 != 0 }, as: UTF8.self)
            let identity = PlayerIdentity(userID: UInt64(data[0]), userData: [])
            return VerifiedConnectToken(identity: identity, room: room, expireTimestamp: 2_000, verifiedAt: 1_000, tag: token.tag)
        }
    }

    static func token(user: UInt8, room: String = "", tag: UInt8) -> Message.Hello.ConnectToken? {
        var data = [user] + Array(room.utf8)
        data += Array(repeating: 0, count: 1024 - 16 - data.count) + Array(repeating: tag, count: 16)
        return Message.Hello.ConnectToken(expireTimestamp: 2_000, nonce: Array(repeating: 0, count: 24), encryptedPrivateData: data)
    }

    @Test("a token whose player the game refuses is not spent: the same token joins once the game admits it")
    func refusedTokenIsNotSpent() throws {
        var game = DotsGame(orbCount: 1)
        game.admissionPolicy = { request, state in state.players.isEmpty ? .admitted : .refused(text: "one at a time") }
        let bench = RawClientBench(game: game) {
            $0.requiresTokens = true
            $0.tokenVerifier = PlainVerifier()
        }
        var events: [HostEvent] = []
        bench.host.onEvent = { events.append($0) }
        let first = bench.join(connectToken: Self.token(user: 1, tag: 1))
        bench.run(milliseconds: 100, clients: [first])
        let welcome = try #require(first.welcome, "the first token joins")
        let refused = bench.join(connectToken: Self.token(user: 2, tag: 2))
        bench.run(milliseconds: 100, clients: [refused])
        #expect(refused.reject?.reason == .refusedByGame)
        first.connection.send((try? FrameCompressor.uncompressed().encode(.disconnect(Message.Disconnect(reason: .leaving)))) ?? [])
        bench.run(milliseconds: 100, clients: [first])
        #expect(bench.host.room(named: "")?.clientIDs.contains(welcome.clientID) == false, "the first player left")
        let left = events.first { $0.kind == .left }
        #expect(left?.clientID == welcome.clientID && left?.identity?.userID == 1, "the departure names the player: \(events)")
        let again = bench.join(connectToken: Self.token(user: 2, tag: 2))
        bench.run(milliseconds: 100, clients: [again])
        #expect(again.welcome != nil, "the token the game refused before joins now: \(String(describing: again.reject))")
        let replay = bench.join(connectToken: Self.token(user: 1, tag: 1))
        bench.run(milliseconds: 100, clients: [replay])
        #expect(replay.reject?.reason == .tokenAlreadyUsed, "the token that joined is spent")
    }

    @Test(
        "required tokens: a host without a verifier refuses every new player as token required; a resume token that finds nothing needs a token"
    )
    func required() throws {
        let noVerifier = RawClientBench { $0.requiresTokens = true }
        let client = noVerifier.join(connectToken: Self.token(user: 1, tag: 1))
        noVerifier.run(milliseconds: 100, clients: [client])
        #expect(client.reject?.reason == .tokenRequired)
        #expect(client.closeReason?.code == .policyViolation)

        let bench = RawClientBench {
            $0.requiresTokens = true
            $0.tokenVerifier = PlainVerifier()
        }
        let stale = bench.join(token: Array(repeating: 9, count: 16))
        bench.run(milliseconds: 100, clients: [stale])
        #expect(stale.reject?.reason == .tokenRequired, "an unknown resume token joins as a new player, which needs a token")
        let forged = bench.join(connectToken: Self.token(user: 0xFF, tag: 3))
        bench.run(milliseconds: 100, clients: [forged])
        #expect(forged.reject?.reason == .tokenInvalid)
    }

    @Test("without requiresTokens a verifier still checks a token it is given, and a hello without one plays anonymously")
    func optional() throws {
        let bench = RawClientBench { $0.tokenVerifier = PlainVerifier() }
        let anonymous = bench.join()
        let wrongRoom = bench.join(connectToken: Self.token(user: 4, room: "blue", tag: 4))
        bench.run(milliseconds: 100, clients: [anonymous, wrongRoom])
        #expect(anonymous.welcome != nil)
        #expect(wrongRoom.reject?.reason == .tokenWrongRoom)
    }

    @Test("a hello whose connect token is refused opens no room on demand (forged, expired, another room's, none); a good token opens it")
    func refusedTokenOpensNoRoom() throws {
        let bench = RawClientBench {
            $0.rooms = []
            $0.createsRoomsOnDemand = true
            $0.requiresTokens = true
            $0.tokenVerifier = PlainVerifier()
        }
        let forged = bench.join(room: "red", connectToken: Self.token(user: 0xFF, room: "red", tag: 1))
        let expired = bench.join(room: "red", connectToken: Self.token(user: 0xFE, room: "red", tag: 2))
        let otherRoom = bench.join(room: "red", connectToken: Self.token(user: 3, room: "blue", tag: 3))
        let none = bench.join(room: "red")
        bench.run(milliseconds: 100, clients: [forged, expired, otherRoom, none])
        #expect(forged.reject?.reason == .tokenInvalid)
        #expect(expired.reject?.reason == .tokenExpired)
        #expect(otherRoom.reject?.reason == .tokenWrongRoom)
        #expect(none.reject?.reason == .tokenRequired)
        #expect(bench.host.roomNames.isEmpty, "no refused hello opened room 'red', yet the host runs \(bench.host.roomNames)")
        let good = bench.join(room: "red", connectToken: Self.token(user: 4, room: "red", tag: 4))
        bench.run(milliseconds: 100, clients: [good])
        #expect(good.welcome != nil, "a good token opens its room: \(String(describing: good.reject))")
        #expect(bench.host.roomNames == ["red"])
    }

    @Test("in a fleet a hello whose connect token is refused has the directory place no room; a good token claims it")
    func refusedTokenClaimsNoRoom() throws {
        var store: InMemoryDirectoryStore?
        let bench = RawClientBench(
            configure: {
                $0.rooms = []
                $0.createsRoomsOnDemand = true
                $0.tokenVerifier = PlainVerifier()
            },
            directory: { clock in
                let made = InMemoryDirectoryStore(clock: clock)
                store = made
                return made.directory(forProcess: "p", publicURL: "sim://p")
            })
        let fleet = try #require(store)
        let forged = bench.join(room: "red", connectToken: Self.token(user: 0xFF, room: "red", tag: 1))
        bench.run(milliseconds: 500, clients: [forged])
        #expect(forged.reject?.reason == .tokenInvalid)
        #expect(bench.host.roomNames.isEmpty, "a forged token opened \(bench.host.roomNames)")
        #expect(
            fleet.holder(ofRoom: "red") == nil, "a forged token had the directory give room 'red' to \(fleet.holder(ofRoom: "red") ?? "")")
        let good = bench.join(room: "red", connectToken: Self.token(user: 4, room: "red", tag: 4))
        bench.run(milliseconds: 500, clients: [good])
        #expect(good.welcome != nil, "a good token opens its room: \(String(describing: good.reject))")
        #expect(bench.host.roomNames == ["red"])
        #expect(fleet.holder(ofRoom: "red") == "p")
    }
}

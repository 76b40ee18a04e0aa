import Testing
import TickwireCodec
import TickwireFoundation
import TickwireMatchmaker
import TickwireNetcode
import TickwireSim
import TickwireTokens
import TickwireWebSocket

/// ``Matchmaker`` against ``FakeMatchmakerEndpoint``: every answer of `Protocol/MATCHMAKER.md`
/// read as the contract says (a seat with real tokens, listings, each refusal of section 4), the
/// requests it sends, and answers that break the contract refused with words.
@Suite("Matchmaker client")
struct MatchmakerTests {
    @Test("a joinOrCreate seat is read whole: room, mode, URLs, both tokens (the same one), expiry, user id and name")
    func seat() async throws {
        let fake = try FakeMatchmakerEndpoint()
        fake.plan([
            .init(
                room: "arena-0a1b2c3d", webSocketURL: "ws://127.0.0.1:7777/arena-0a1b2c3d", userID: (UInt64(1) << 63) + 5,
                displayName: "ada#5")
        ])
        let matchmaker = try Matchmaker(url: fake.url)
        let seat = try await matchmaker.joinOrCreate("arena", options: ["name": .string("ada")])
        #expect(seat.room == "arena-0a1b2c3d")
        #expect(seat.mode == "arena")
        #expect(seat.isNewRoom)
        #expect(seat.urls == ["ws": "ws://127.0.0.1:7777/arena-0a1b2c3d"])
        #expect(seat.webSocketURL == "ws://127.0.0.1:7777/arena-0a1b2c3d")
        #expect(seat.expiresIn == 600)
        #expect(seat.userID == (UInt64(1) << 63) + 5, "userId is a decimal string past 2^53, read exactly")
        #expect(seat.displayName == "ada#5")
        #expect(seat.helloToken == seat.connectToken.helloToken, "helloToken is the same token's hello part")
        let verified = try NetcodeConnectTokenVerifier(key: FakeMatchmakerEndpoint.key, protocolID: FakeMatchmakerEndpoint.protocolID)
            .verify(seat.helloToken)
        #expect(verified.room == "arena-0a1b2c3d", "the hello token opens under the issuer's key and reserves the seat's room")
        #expect(verified.identity.userID == (UInt64(1) << 63) + 5)
        let request = try #require(fake.seen.first)
        #expect(request.method == "POST" && request.target == "/matchmake/joinOrCreate/arena")
        #expect(request.contentType == "application/json")
        #expect(request.authorization == nil, "a guest sends no Authorization")
    }

    @Test("join, create and joinById ask their own paths; a bearer token goes in Authorization")
    func paths() async throws {
        let fake = try FakeMatchmakerEndpoint()
        fake.plan([.init(room: "r1", webSocketURL: "ws://127.0.0.1:1/r1")])
        let matchmaker = try Matchmaker(url: fake.url + "/", bearerToken: "eyJ.x.y")
        _ = try await matchmaker.join("duel")
        _ = try await matchmaker.create("duel", options: ["private": .bool(true)])
        _ = try await matchmaker.joinByID("r1")
        #expect(fake.seen.map(\.target) == ["/matchmake/join/duel", "/matchmake/create/duel", "/matchmake/joinById/r1"])
        #expect(fake.seen.allSatisfy { $0.authorization == "Bearer eyJ.x.y" })
    }

    @Test("GET /rooms is read into listings, fullest first as sent, metadata and all; ?mode= asks one mode")
    func rooms() async throws {
        let fake = try FakeMatchmakerEndpoint()
        let body =
            #"{"rooms":[{"room":"a","mode":"arena","clients":3,"capacity":16,"metadata":{"map":"dust"}},{"room":"b","mode":"arena","clients":0,"capacity":16,"metadata":{}}]}"#
        fake.answer("/rooms?mode=arena", status: 200, body: body)
        fake.answer("/rooms", status: 200, body: #"{"rooms":[]}"#)
        let matchmaker = try Matchmaker(url: fake.url)
        let rooms = try await matchmaker.rooms(mode: "arena")
        #expect(
            rooms == [
                RoomListing(room: "a", mode: "arena", clients: 3, capacity: 16, metadata: ["map": "dust"]),
                RoomListing(room: "b", mode: "arena", clients: 0, capacity: 16, metadata: [:]),
            ])
        #expect(try await matchmaker.rooms().isEmpty)
        #expect(fake.seen.map(\.method) == ["GET", "GET"])
    }

    /// A refusal of MATCHMAKER.md section 4.
    struct Refusal: Sendable, CustomStringConvertible {
        let status: Int
        let code: String
        var description: String { "\(status) \(code)" }
    }

    static let refusals: [Refusal] = [
        .init(status: 400, code: "badRequest"), .init(status: 401, code: "unauthorized"), .init(status: 403, code: "forbidden"),
        .init(status: 404, code: "notFound"), .init(status: 404, code: "unknownMode"), .init(status: 404, code: "noOpenRoom"),
        .init(status: 404, code: "unknownRoom"), .init(status: 405, code: "methodNotAllowed"), .init(status: 409, code: "roomFull"),
        .init(status: 409, code: "roomLocked"), .init(status: 411, code: "lengthRequired"), .init(status: 413, code: "bodyTooLarge"),
        .init(status: 429, code: "tooManyRequests"), .init(status: 503, code: "noLiveProcess"), .init(status: 503, code: "unavailable"),
    ]

    @Test("every refusal of MATCHMAKER.md 4 reaches the caller with its status, error code and reason", arguments: refusals)
    func refusal(_ refusal: Refusal) async throws {
        let fake = try FakeMatchmakerEndpoint()
        var headers = HTTPHeaders()
        if refusal.status == 429 {
            headers = ["Retry-After": "7", "Tickwire-Refusal": "address_matchmaker_rate_limit; limit=20"]
        }
        fake.answer(
            "/matchmake/joinOrCreate/arena", status: refusal.status,
            body: #"{"error":"\#(refusal.code)","reason":"because \#(refusal.code)"}"#,
            headers: headers)
        let matchmaker = try Matchmaker(url: fake.url)
        do {
            let seat = try await matchmaker.joinOrCreate("arena")
            Issue.record("\(refusal): a refusal gave a seat in \(seat.room)")
        } catch {
            #expect(error.status == refusal.status)
            #expect(error.code == refusal.code)
            #expect(error.reason == "because \(refusal.code)")
            #expect(!error.isTransportFailure)
            #expect(
                error.transportRefusal == TransportRefusal(status: refusal.status, reason: refusal.code, text: "because \(refusal.code)"))
            #expect(error.description.contains("\(refusal.status) \(refusal.code)"), "the words say it: \(error)")
            if refusal.status == 429 {
                #expect(
                    error.retryAfter == "7" && error.budget == "address_matchmaker_rate_limit; limit=20", "429 names when and which budget")
            }
        }
    }

    @Test("an HTTP layer's plain-text 413 and 411 are read by their status first")
    func plainTextRefusals() async throws {
        let fake = try FakeMatchmakerEndpoint()
        fake.answer("/matchmake/create/big", status: 413, body: "body over 4096 bytes")
        fake.answer("/matchmake/create/chunked", status: 411, body: "length required")
        let matchmaker = try Matchmaker(url: fake.url)
        await #expect(throws: MatchmakerClientError.self) { try await matchmaker.create("big") }
        do {
            _ = try await matchmaker.create("big")
        } catch {
            #expect(error.status == 413 && error.code == "bodyTooLarge" && error.reason == "body over 4096 bytes")
        }
        do {
            _ = try await matchmaker.create("chunked")
        } catch {
            #expect(error.status == 411 && error.code == "lengthRequired")
        }
    }

    /// An answer that breaks the contract, and a word its error must name.
    struct Broken: Sendable, CustomStringConvertible {
        let name: String
        let body: String
        let word: String
        var description: String { name }
    }

    static let broken: [Broken] = [
        .init(name: "not JSON", body: "<html>", word: "not JSON"),
        .init(name: "no room", body: #"{"mode":"arena"}"#, word: "'room'"),
        .init(
            name: "userId a number",
            body:
                #"{"room":"r","mode":"m","isNewRoom":false,"urls":{"ws":"ws://x/r"},"token":"00","helloToken":"00","expiresIn":1,"userId":5,"displayName":"d"}"#,
            word: "'token'"),
        .init(
            name: "short token", body: #"{"room":"r","mode":"m","isNewRoom":true,"urls":{"ws":"ws://x/r"},"token":"abcd"}"#, word: "4096"),
    ]

    @Test("a 200 answer that breaks the contract is an invalid answer naming what is wrong", arguments: broken)
    func brokenAnswer(_ broken: Broken) async throws {
        let fake = try FakeMatchmakerEndpoint()
        fake.answer("/matchmake/joinOrCreate/arena", status: 200, body: broken.body)
        let matchmaker = try Matchmaker(url: fake.url)
        do {
            _ = try await matchmaker.joinOrCreate("arena")
            Issue.record("\(broken): accepted")
        } catch {
            #expect(error.status == 200 && error.code == nil)
            #expect(error.description.contains(broken.word), "\(broken): \(error)")
        }
    }

    @Test("a bad mode or oversized options are refused before anything is sent; a dead matchmaker is a transport failure")
    func clientSideRefusals() async throws {
        let fake = try FakeMatchmakerEndpoint()
        let matchmaker = try Matchmaker(url: fake.url)
        await #expect(throws: MatchmakerClientError.self) { try await matchmaker.joinOrCreate("no/such") }
        let big = ["name": JSONValue.string(String(repeating: "x", count: Matchmaker.maximumRequestBodyBytes))]
        do {
            _ = try await matchmaker.joinOrCreate("arena", options: big)
            Issue.record("options over 4096 bytes were sent")
        } catch {
            #expect(error.description.contains("4096"), "the words name the limit: \(error)")
        }
        #expect(fake.seen.isEmpty, "nothing reached the matchmaker")
        let port = try #require(Int(fake.url.split(separator: ":").last ?? ""))
        let dead = try Matchmaker(url: "http://127.0.0.1:\(port)", timeout: .seconds(2))
        _ = consume fake
        do {
            _ = try await dead.joinOrCreate("arena")
            Issue.record("a closed port gave a seat")
        } catch {
            #expect(error.isTransportFailure && error.status == nil, "\(error)")
        }
    }

    @Test("matchmaker URLs: http or https, a host, a port 1...65535 (80 or 443 by default), IPv6 in brackets")
    func urls() throws {
        #expect(throws: MatchmakerClientError.self) { try Matchmaker(url: "ws://x:1") }
        #expect(throws: MatchmakerClientError.self) { try Matchmaker(url: "http://:7777") }
        #expect(throws: MatchmakerClientError.self) { try Matchmaker(url: "http://x:0") }
        #expect(throws: MatchmakerClientError.self) { try Matchmaker(url: "http://x:port") }
        let plain = try Matchmaker(url: "http://x")
        #expect(plain.port == 80 && !plain.isHTTPS, "http: port 80, no TLS")
        let secure = try Matchmaker(url: "https://x/fleet")
        #expect(secure.port == 443 && secure.isHTTPS && secure.basePath == "/fleet", "https: port 443, over TLS")
        #expect(try Matchmaker(url: "HTTPS://x:8443").port == 8443, "the scheme in any case")
        _ = try Matchmaker(url: "http://[::1]:7777")
    }
}

import Synchronization
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireMatchmaker
import TickwireNetcode
import TickwireSim
import TickwireTokens
import TickwireWebSocket

@Suite("The matchmaker's seats and listings (Protocol/MATCHMAKER.md sections 2 and 3)")
struct MatchmakerServiceSeatTests {
    @Test("a seat's token opens with the fleet's verifier for its room; its helloToken is the same token's hello form")
    func seatTokenOpens() async throws {
        let fixture = ServiceFixture(processes: ["a"])
        let answer = await fixture.send("POST", "/matchmake/joinOrCreate/arena", body: #"{"name":"ada"}"#)
        #expect(answer.status == 200, "\(answer.text)")
        let seat = answer.json
        let room = try #require(seat["room"]?.stringValue)
        #expect(room.hasPrefix("arena-") && seat["mode"]?.stringValue == "arena" && seat["isNewRoom"]?.boolValue == true)
        #expect(seat["urls"]?["ws"]?.stringValue == "ws://127.0.0.1:7777/\(room)", "\(answer.text)")
        #expect(seat["urls"]?["udp"]?.stringValue == "udp://127.0.0.1:7778/\(room)", "\(answer.text)")
        #expect(seat["expiresIn"]?.integerValue == 30)
        #expect(seat["userId"]?.stringValue == "9223372036854775809" && seat["displayName"]?.stringValue == "ada#1", "\(answer.text)")

        let tokenHex = try #require(seat["token"]?.stringValue)
        #expect(tokenHex.utf8.count == 4096 && tokenHex == tokenHex.lowercased(), "2048 bytes in lowercase hex")
        let token = try ConnectToken(bytes: try #require(bytes(ofHex: tokenHex)))
        #expect(token.protocolID == ServiceFixture.protocolID)
        #expect(token.serverAddresses == [NetcodeAddress(ipv4: 127, 0, 0, 1, port: 7778)], "the token names the room's UDP server")
        let helloHex = try #require(seat["helloToken"]?.stringValue)
        #expect(helloHex.utf8.count == 2112, "1056 bytes in hex")
        let hello = try Message.Hello.ConnectToken(decoding: try #require(bytes(ofHex: helloHex)))
        #expect(hello.expireTimestamp == token.expireTimestamp && hello.nonce == token.nonce, "the hello form carries the same token")
        #expect(hello.encryptedPrivateData == token.encryptedPrivateData)

        let verified = try fixture.verifier.verify(hello)
        #expect(verified.room == room, "the token admits its player to the reserved room only")
        #expect(verified.identity.userID == (1 << 63) + 1 && verified.identity.displayName == "ada#1")
    }

    @Test("URLs: wss from a wss:// process (one slash before the room), ws with the WebSocket address standing in the token, no udp")
    func urlsWithoutUDP() async throws {
        let fixture = ServiceFixture(processes: ["c"])
        let seat = await fixture.send("POST", "/matchmake/create/duel").json
        let room = try #require(seat["room"]?.stringValue)
        #expect(seat["urls"] == .object(["wss": .string("wss://c.example.com/\(room)")]), "\(seat)")
        let token = try ConnectToken(bytes: try #require(seat["token"]?.stringValue.flatMap(bytes(ofHex:))))
        #expect(token.serverAddresses == [NetcodeAddress(ipv4: 0, 0, 0, 0, port: 443)], "a host name stands as 0.0.0.0 and the port")
        let other = ServiceFixture(processes: ["b"])
        let plain = await other.send("POST", "/matchmake/create/duel").json
        #expect(plain["urls"]?["ws"]?.stringValue?.hasPrefix("ws://b.example.com:4000/duel-") == true, "\(plain)")
    }

    @Test("guests: concurrent requests get distinct numbers, names and ids; no guest id is below 2^63")
    func guestsAreUnique() async throws {
        let fixture = ServiceFixture()
        let answers = await withTaskGroup(of: JSONValue.self) { group in
            for index in 0..<40 {
                group.addTask {
                    await fixture.send("POST", "/matchmake/joinOrCreate/arena", body: index % 2 == 0 ? #"{"name":"ada"}"# : "").json
                }
            }
            var answers: [JSONValue] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        let names = answers.compactMap { $0["displayName"]?.stringValue }
        let ids = answers.compactMap { $0["userId"]?.stringValue.flatMap { UInt64($0) } }
        #expect(names.count == 40 && Set(names).count == 40, "40 guests, 40 names: \(names.sorted())")
        #expect(Set(ids).count == 40 && ids.allSatisfy { $0 > 1 << 63 && $0 <= (1 << 63) + 40 }, "\(ids.sorted())")
        #expect(names.filter { $0.hasPrefix("ada#") }.count == 20 && names.filter { $0.hasPrefix("guest#") }.count == 20)
    }

    @Test("bearer tokens: a valid one names the player (numeric sub is the id, another is hashed); tampered and expired ones are 401")
    func bearerTokens() async throws {
        let secret = Array("a secret of at least thirty-two bytes!".utf8)
        let signer = try HS256WebToken(secret: secret)
        let now: UInt64 = 1_800_000_000
        let fixture = ServiceFixture(authenticator: try MatchmakerAuthentication.bearer(secret: secret, clock: .fixed(now)))
        func send(_ token: String, body: String = "") async -> HTTPResponse {
            await fixture.send("POST", "/matchmake/joinOrCreate/arena", body: body, headers: ["Authorization": "Bearer \(token)"])
        }
        let numeric = try signer.sign(.object(["sub": .string("42"), "name": .string("Ada"), "exp": .number(Double(now + 60))]))
        let seat = await send(numeric, body: #"{"name":"ignored"}"#)
        #expect(seat.status == 200, "\(seat.text)")
        #expect(seat.json["userId"]?.stringValue == "42" && seat.json["displayName"]?.stringValue == "Ada", "\(seat.text)")

        let named = try signer.sign(.object(["sub": .string("ada@example.com"), "exp": .number(Double(now + 60))]))
        let hashed = await send(named).json
        let expected = MatchmakerAuthentication.userID(ofSubject: "ada@example.com")
        #expect(hashed["userId"]?.stringValue == String(expected) && expected < 1 << 63, "\(hashed)")
        #expect(hashed["displayName"]?.stringValue == "ada@example.com", "without a name the sub is shown")
        #expect(MatchmakerAuthentication.userID(ofSubject: "042") != 42, "only a canonical number is its own id")
        #expect(MatchmakerAuthentication.userID(ofSubject: "9223372036854775808") < 1 << 63, "2^63 is hashed")

        var parts = numeric.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"1","name":"Eve","exp":1800000060}"#.utf8))
        let tampered = await send(parts.joined(separator: "."))
        #expect(
            tampered.status == 401 && tampered.json["reason"]?.stringValue == WebTokenError.badSignature.description, "\(tampered.text)")

        let old = try signer.sign(.object(["sub": .string("42"), "exp": .number(Double(now - 31))]))
        let expired = await send(old)
        #expect(expired.status == 401 && expired.json["reason"]?.stringValue == WebTokenError.expired(at: Int64(now - 31)).description)
    }

    @Test("CORS: every answer, refusals included, allows any origin; a preflight is 204 with the methods and headers")
    func cors() async throws {
        let fixture = ServiceFixture(limit: 1)
        let answers = [
            await fixture.send("POST", "/matchmake/joinOrCreate/arena"), await fixture.send("POST", "/matchmake/joinOrCreate/arena"),
            await fixture.send("GET", "/matchmake/nothing/x", from: "10.0.0.3"), await fixture.send("OPTIONS", "/rooms"),
        ]
        #expect(answers.map(\.status) == [200, 429, 404, 204])
        #expect(answers.allSatisfy { $0.headers["Access-Control-Allow-Origin"] == "*" }, "\(answers.map(\.headers))")
        let preflight = await fixture.send("OPTIONS", "/matchmake/create/arena")
        #expect(preflight.status == 204 && preflight.body.isEmpty)
        #expect(preflight.headers["Access-Control-Allow-Methods"] == "GET, POST, OPTIONS")
        #expect(preflight.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type")
        let unknown = await fixture.send("OPTIONS", "/matchmake/joinOrCreate/chess")
        #expect(unknown.status == 204, "a preflight is answered before the path is read, so the page can read the 404 that follows")
    }

    @Test("metrics count each answer by result")
    func metrics() async throws {
        let fixture = ServiceFixture()
        _ = await fixture.send("POST", "/matchmake/create/duel")
        _ = await fixture.send("GET", "/rooms")
        _ = await fixture.send("POST", "/matchmake/join/arena")
        _ = await fixture.send("OPTIONS", "/rooms")
        _ = await fixture.send("POST", "/matchmake/create/duel", body: "{")
        var writer = PrometheusWriter()
        fixture.service.writeMetrics(to: &writer)
        let text = writer.text
        for (result, count) in [("ok", 2), ("noOpenRoom", 1), ("preflight", 1), ("badRequest", 1), ("tooManyRequests", 0)] {
            #expect(text.contains("tickwire_matchmaker_requests_total{result=\"\(result)\"} \(count)\n"), "\(result) \(count) in:\n\(text)")
        }
    }

    @Test("create with private: true makes a room /rooms leaves out and joinOrCreate passes by; joinById reaches it")
    func privateRooms() async throws {
        let fixture = ServiceFixture()
        let created = await fixture.send("POST", "/matchmake/create/arena", body: #"{"private":true}"#)
        let room = try #require(created.json["room"]?.stringValue, "\(created.text)")
        let listed = await fixture.send("GET", "/rooms")
        #expect(listed.json == .object(["rooms": .array([])]), "a private room is not listed: \(listed.text)")
        let other = await fixture.send("POST", "/matchmake/joinOrCreate/arena")
        #expect(other.json["room"]?.stringValue != room, "joinOrCreate does not pick a private room")
        #expect(await fixture.send("POST", "/matchmake/joinById/\(room)").json["room"]?.stringValue == room)
        let listedPublic = await fixture.send("GET", "/rooms?mode=arena").json
        #expect(listedPublic["rooms"]?.arrayCount == 1 && listedPublic["rooms"]?.first?["clients"]?.integerValue == 1, "\(listedPublic)")
    }

    @Test("200 concurrent joinOrCreates through the service fill every room to exactly its capacity")
    func concurrentJoinOrCreate() async throws {
        let fixture = ServiceFixture()
        let rooms = await withTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    await fixture.send("POST", "/matchmake/joinOrCreate/arena", from: "10.0.1.\(index % 200)").json["room"]?.stringValue
                }
            }
            var rooms: [String?] = []
            for await room in group { rooms.append(room) }
            return rooms
        }
        #expect(rooms.allSatisfy { $0 != nil }, "every request got a seat")
        let counts = Dictionary(grouping: rooms.compactMap { $0 }, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 13 && counts.values.filter { $0 == 16 }.count == 12 && counts.values.allSatisfy { $0 <= 16 }, "\(counts)")
        let listing = await fixture.send("GET", "/rooms?mode=arena").json
        #expect(listing["rooms"]?.arrayCount == 13, "\(listing)")
    }
}

extension JSONValue {
    var arrayCount: Int? {
        guard case .array(let elements) = self else { return nil }
        return elements.count
    }

    var first: JSONValue? {
        guard case .array(let elements) = self else { return nil }
        return elements.first
    }
}

import Testing
import TickwireFoundation
import TickwireMatchmaker
import TickwireSim
import TickwireTokens
import TickwireWebSocket

@Suite("The matchmaker's refusals (Protocol/MATCHMAKER.md section 4), each at its limit and one past it")
struct MatchmakerServiceRefusalTests {
    /// A JSON body of exactly `size` bytes: `{"name":"ada","pad":"xxx…"}`.
    static func body(ofSize size: Int) -> String {
        let frame = #"{"name":"ada","pad":""}"#
        return #"{"name":"ada","pad":""# + String(repeating: "x", count: size - frame.utf8.count) + #""}"#
    }

    @Test("a 4096-byte body is read; 4097 bytes, or a Content-Length over 4096, is 413 bodyTooLarge; a chunked body is 411")
    func bodyLimit() async throws {
        let fixture = ServiceFixture()
        let atLimit = Self.body(ofSize: MatchmakerService.maximumBodyBytes)
        #expect(atLimit.utf8.count == 4096)
        let accepted = await fixture.send("POST", "/matchmake/joinOrCreate/arena", body: atLimit)
        #expect(accepted.status == 200, "a body of exactly 4096 bytes is accepted: \(accepted.text)")
        let past = await fixture.send("POST", "/matchmake/joinOrCreate/arena", body: Self.body(ofSize: 4097))
        #expect(past.status == 413 && past.errorCode == "bodyTooLarge", "4097 bytes are one past the limit: \(past.text)")
        let announced = await fixture.send("POST", "/matchmake/joinOrCreate/arena", headers: ["Content-Length": "4097"])
        #expect(announced.status == 413, "an announcement past the limit is refused even when the server read less: \(announced.text)")
        let chunked = await fixture.send("POST", "/matchmake/joinOrCreate/arena", headers: ["Transfer-Encoding": "chunked"])
        #expect(chunked.status == 411 && chunked.errorCode == "lengthRequired", "\(chunked.text)")
    }

    @Test("400 badRequest: not JSON, not an object, options of the wrong type, a name of 0 or 25 bytes (24 is read)")
    func badRequests() async throws {
        let fixture = ServiceFixture()
        let refusals = [
            "{", "[]", "42", #"{"name":7}"#, #"{"private":"yes"}"#, #"{"name":"   "}"#, #"{"name":""}"#,
            #"{"name":"\#(String(repeating: "n", count: 25))"}"#, #"{"name":"\#(String(repeating: "é", count: 13))"}"#,
        ]
        for body in refusals {
            let answer = await fixture.send("POST", "/matchmake/create/duel", body: body)
            #expect(answer.status == 400 && answer.errorCode == "badRequest", "\(body) must be refused 400: \(answer.text)")
            #expect(answer.json["reason"]?.stringValue?.isEmpty == false, "a refusal says why")
        }
        let longest = String(repeating: "n", count: 24)
        let accepted = await fixture.send("POST", "/matchmake/create/duel", body: #"{"name":"  \#(longest)  "}"#)
        #expect(accepted.status == 200, "24 bytes after trimming is the limit: \(accepted.text)")
        #expect(accepted.json["displayName"]?.stringValue == longest + "#1", "the name is trimmed: \(accepted.text)")
        let empty = await fixture.send("POST", "/matchmake/create/duel")
        #expect(empty.status == 200 && empty.json["displayName"]?.stringValue == "guest#2", "an empty body is {}: \(empty.text)")
    }

    @Test(
        "404: an unknown path, an unknown mode (a 32-byte one too; 33 bytes cannot be one), no open room, an unknown room (64 and 65 bytes)"
    )
    func notFound() async throws {
        let fixture = ServiceFixture()
        let cases: [(String, String, String)] = [
            ("POST", "/matchmake/leave/arena", "notFound"),
            ("POST", "/matchmake/joinOrCreate/chess", "unknownMode"),
            ("POST", "/matchmake/joinOrCreate/" + String(repeating: "m", count: 32), "unknownMode"),
            ("POST", "/matchmake/joinOrCreate/" + String(repeating: "m", count: 33), "unknownMode"),
            ("POST", "/matchmake/create/a%20b", "unknownMode"),
            ("POST", "/matchmake/create", "unknownMode"),
            ("POST", "/matchmake/join/duel", "noOpenRoom"),
            ("POST", "/matchmake/joinById/" + String(repeating: "r", count: 64), "unknownRoom"),
            ("POST", "/matchmake/joinById/" + String(repeating: "r", count: 65), "unknownRoom"),
            ("GET", "/rooms?mode=chess", "unknownMode"),
        ]
        for (method, target, code) in cases {
            let answer = await fixture.send(method, target)
            #expect(answer.status == 404 && answer.errorCode == code, "\(method) \(target) must be 404 \(code): \(answer.text)")
        }
    }

    @Test("405 on a known path with another method, with an Allow header naming the right one")
    func methodNotAllowed() async throws {
        let fixture = ServiceFixture()
        let get = await fixture.send("GET", "/matchmake/joinOrCreate/arena")
        #expect(get.status == 405 && get.errorCode == "methodNotAllowed" && get.headers["Allow"] == "POST, OPTIONS", "\(get.headers)")
        let post = await fixture.send("POST", "/rooms")
        #expect(post.status == 405 && post.headers["Allow"] == "GET, OPTIONS", "\(post.headers)")
    }

    @Test("409: joinById of a full room (at capacity; one under it takes the player) and of a locked room")
    func conflicts() async throws {
        let fixture = ServiceFixture()
        let first = await fixture.send("POST", "/matchmake/create/duel")
        let room = try #require(first.json["room"]?.stringValue, "create answers a room: \(first.text)")
        let second = await fixture.send("POST", "/matchmake/joinById/\(room)")
        #expect(second.status == 200, "the second of two seats is free: \(second.text)")
        let third = await fixture.send("POST", "/matchmake/joinById/\(room)")
        #expect(third.status == 409 && third.errorCode == "roomFull", "a room at capacity takes no third: \(third.text)")
        let holder = try #require(fixture.directories.first { $0.processID == fixture.store.holder(ofRoom: room) })
        holder.report(rooms: [RoomLoad(name: room, clients: 0, capacity: 2, isLocked: true)])
        let locked = await fixture.send("POST", "/matchmake/joinById/\(room)")
        #expect(locked.status == 409 && locked.errorCode == "roomLocked", "\(locked.text)")
    }

    @Test("401 without a bearer token where one is required; 403 when the game's hook refuses")
    func authenticationRefusals() async throws {
        let bearer = try MatchmakerAuthentication.bearer(secret: Array(repeating: 7, count: 32))
        let missing = await ServiceFixture(authenticator: bearer).send("POST", "/matchmake/joinOrCreate/arena")
        #expect(missing.status == 401 && missing.errorCode == "unauthorized", "\(missing.text)")
        #expect(missing.json["reason"]?.stringValue == WebTokenError.missingBearer.description, "\(missing.text)")
        let forbidding = ServiceFixture(authenticator: { _ throws(MatchmakerAuthenticationError) in throw .forbidden("banned") })
        let forbidden = await forbidding.send("POST", "/matchmake/joinOrCreate/arena")
        #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden" && forbidden.json["reason"]?.stringValue == "banned")
    }

    @Test("429 one past the per-address budget (N answered, N+1 refused) with Retry-After and Tickwire-Refusal; other addresses go on")
    func rateLimit() async throws {
        let fixture = ServiceFixture(limit: 5)
        for index in 1...5 {
            let answer = await fixture.send("GET", "/rooms")
            #expect(answer.status == 200, "request \(index) of 5 is within the budget")
        }
        let refused = await fixture.send("GET", "/rooms")
        #expect(refused.status == 429 && refused.errorCode == "tooManyRequests", "the 6th is one past it: \(refused.text)")
        #expect(refused.headers["Tickwire-Refusal"] == "address_matchmaker_rate_limit; limit=5", "\(refused.headers)")
        #expect(refused.headers["Retry-After"] == "2", "a request comes back every 10 s / 5: \(refused.headers)")
        #expect(await fixture.send("GET", "/rooms", from: "10.0.0.2").status == 200, "another address has its own budget")
        fixture.budgetClock.seconds.withLock { $0 += 2 }
        #expect(await fixture.send("GET", "/rooms").status == 200, "after Retry-After the address may ask again")
        #expect(await fixture.send("OPTIONS", "/rooms").status == 204, "a preflight is not budgeted")
    }

    @Test("503 noLiveProcess when every process is dead; 503 unavailable when the store cannot be reached")
    func unavailable() async throws {
        let fixture = ServiceFixture()
        for process in ["a", "b", "c"] { fixture.store.kill(process: process) }
        let dead = await fixture.send("POST", "/matchmake/joinOrCreate/arena")
        #expect(dead.status == 503 && dead.errorCode == "noLiveProcess", "\(dead.text)")
        let broken = MatchmakerService(
            store: UnreachableStore(), issuer: ConnectTokenIssuer(key: fixture.key, protocolID: ServiceFixture.protocolID))
        for (method, target) in [("POST", "/matchmake/joinOrCreate/arena"), ("GET", "/rooms")] {
            let answer = await broken.respond(to: request(method, target))
            #expect(answer.status == 503 && answer.errorCode == "unavailable", "\(method) \(target): \(answer.text)")
        }
    }

    @Test("handler(otherwise:) answers the service's paths and hands others on (a plain 404 when there is no other handler)")
    func handlerPassesOthersOn() async throws {
        let fixture = ServiceFixture()
        let page = fixture.service.handler(otherwise: { head in .text(status: 200, "page \(head.target)") })
        #expect(await page(request("GET", "/index.html")).text == "page /index.html\n")
        #expect(await page(request("GET", "/rooms")).json["rooms"] != nil, "the service answers /rooms")
        let bare = fixture.service.handler(otherwise: nil)
        let other = await bare(request("GET", "/metrics"))
        #expect(other.status == 404 && other.headers["Content-Type"]?.hasPrefix("text/plain") == true)
    }
}

/// A store whose every call fails as Redis does when it is down.
struct UnreachableStore: MatchmakerStore {
    let rules = ServiceFixture.rules

    func reserveSeat(_ action: MatchAction, player: String) async throws(MatchmakingError) -> SeatReservation {
        throw .unavailable("connection refused")
    }

    func listRooms(mode: String?) async throws(MatchmakingError) -> [RoomListing] { throw .unavailable("connection refused") }

    func nextGuestNumber() async throws(MatchmakingError) -> UInt64 { throw .unavailable("connection refused") }
}

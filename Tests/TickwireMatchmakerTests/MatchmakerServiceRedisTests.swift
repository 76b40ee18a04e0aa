import Foundation
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireMatchmaker
import TickwireNetcode
import TickwireRedis
import TickwireRedisTestSupport
import TickwireSim
import TickwireTokens
import TickwireWebSocket

@Suite("The matchmaker's service on a real redis-server")
struct MatchmakerServiceRedisTests {
    @Test("150 concurrent joinOrCreates through two services on one Redis fill every room to exactly its capacity, each guest once")
    func concurrentJoinOrCreate() async throws {
        let server = try RedisServerProcess()
        let prefix = "svc1"
        let directories = try ["a", "b"].map { name in
            try RedisRoomDirectory(
                configuration: RedisDirectoryConfiguration(
                    url: server.url, publicURL: "ws://127.0.0.\(name == "a" ? 1 : 2):4000", keyPrefix: prefix, processID: name,
                    heartbeatInterval: .milliseconds(100), claimTTL: .seconds(2)))
        }
        let stores = try (0..<2).map { _ in try RedisMatchmaker(url: server.url, keyPrefix: prefix, rules: ServiceFixture.rules) }
        defer {
            for store in stores { store.stop() }
            for directory in directories { directory.stop() }
        }
        let probe = try RedisMatchmaker(url: server.url, keyPrefix: prefix, rules: ServiceFixture.rules)
        defer { probe.stop() }
        // Both registrations are written by a heartbeat: wait until the two processes see each other.
        let ready = eventually(within: 20) {
            stores.allSatisfy(\.isConnected) && directories.allSatisfy { $0.isConnected && $0.anotherProcessURL() != nil }
        }
        guard ready else { throw TestFailure("the two processes did not register within 20 s") }
        let key = NetcodeKey.random()
        let services = stores.map { store in
            MatchmakerService(
                store: store, issuer: ConnectTokenIssuer(key: key, protocolID: ServiceFixture.protocolID),
                budget: TokenRequestBudget(limit: 0))
        }
        let answers = await withTaskGroup(of: JSONValue.self) { group in
            for index in 0..<150 {
                group.addTask { await services[index % 2].respond(to: request("POST", "/matchmake/joinOrCreate/arena")).json }
            }
            var answers: [JSONValue] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        let rooms = answers.compactMap { $0["room"]?.stringValue }
        #expect(rooms.count == 150, "every request got a seat: \(answers.filter { $0["room"] == nil })")
        let counts = Dictionary(grouping: rooms, by: { $0 }).mapValues(\.count)
        #expect(counts.count == 10, "150 players in rooms of 16 make 10 rooms: \(counts)")
        #expect(
            counts.values.filter { $0 == 16 }.count == 9 && counts.values.allSatisfy { $0 <= 16 }, "9 full rooms and one of 6: \(counts)")
        let names = Set(answers.compactMap { $0["displayName"]?.stringValue })
        #expect(names.count == 150, "each guest of the fleet has its own number")
        let verifier = NetcodeConnectTokenVerifier(key: key, protocolID: ServiceFixture.protocolID)
        let first = try #require(answers.first)
        let hello = try Message.Hello.ConnectToken(decoding: try #require(first["helloToken"]?.stringValue.flatMap(bytes(ofHex:))))
        #expect(try verifier.verify(hello).room == first["room"]?.stringValue, "a Redis seat's token opens for its room")
        let ws = try #require(first["urls"]?["ws"]?.stringValue)
        #expect(ws.hasPrefix("ws://127.0.0.") && ws.hasSuffix("/" + (first["room"]?.stringValue ?? "")), "\(ws)")
        let listed = await services[1].respond(to: request("GET", "/rooms?mode=arena")).json
        #expect(listed["rooms"]?.arrayCount == 10, "both services list the same rooms: \(listed)")
    }

    @Test("with Redis gone, a seat request is 503 unavailable, not a hang")
    func redisGone() async throws {
        let server = try RedisServerProcess()
        let store = try RedisMatchmaker(url: server.url, keyPrefix: "svc2", rules: ServiceFixture.rules)
        defer { store.stop() }
        server.stop()
        let service = MatchmakerService(store: store, issuer: ConnectTokenIssuer(key: NetcodeKey.random(), protocolID: 1))
        let answer = await service.respond(to: request("POST", "/matchmake/joinOrCreate/arena"))
        #expect(answer.status == 503 && answer.errorCode == "unavailable", "\(answer.text)")
    }
}

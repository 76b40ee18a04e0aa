import Foundation
import Testing
import TickwireFoundation
import TickwireRedis
import TickwireRedisTestSupport
import TickwireSim

@Suite("Redis room directory faults")
struct RedisRoomDirectoryFaultTests {
    @Test("after a partition the claim in Redis wins: the process whose claim was taken reports the room lost, once")
    func partitionLosesRoom() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "f1")
        let b = try connectedDirectory(server, name: "b", prefix: "f1")
        defer {
            a.stop()
            b.stop()
        }
        #expect(settledPlacement(a, "r") == .here(savedState: nil))
        a.report(rooms: [RoomLoad(name: "r", clients: 2, capacity: 8)])
        // The partition: a's claim vanished (expired while a could not reach Redis), and b claimed the room.
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(try client.call(RedisCommand("DEL", "f1:room:r:owner"))?.get() == .integer(1))
        #expect(settledPlacement(b, "r") == .here(savedState: nil))
        var lost: [String] = []
        #expect(
            eventually(within: 3) {
                lost += a.takeLostRooms()
                return !lost.isEmpty
            }, "a's next renewal finds b's id in the claim")
        #expect(lost == ["r"])
        #expect(a.claimsHeld == 0)
        #expect(a.placement(ofRoom: "r") == .pending, "a now asks Redis again about the room")
        #expect(settledPlacement(a, "r") == .elsewhere(url: "ws://b.test:4000"))
        a.save(room: "r", state: [7])
        usleep(300_000)  // three heartbeats
        #expect(a.takeLostRooms().isEmpty, "a room is reported lost once")
        #expect(try client.call(RedisCommand("GET", "f1:room:r:state"))?.get() == .null, "a no longer saves a room it lost")
        #expect(try client.call(RedisCommand("GET", "f1:room:r:owner"))?.get().string == "b")
    }

    @Test("Redis down at start: placements are unavailable; once Redis is up the directory claims rooms")
    func downAtStart() throws {
        let server = RedisServerProcess(portOnly: ())
        let a = try makeDirectory(server, name: "a", prefix: "f2")
        defer { a.stop() }
        #expect(!a.isConnected)
        #expect(a.placement(ofRoom: "r") == .unavailable, "no Redis: the host runs the room standalone")
        // The host runs "r" standalone and reports it.
        a.report(rooms: [RoomLoad(name: "r", clients: 1, capacity: 8)])
        try server.start()
        #expect(eventually(within: 5) { a.isConnected }, "connects once Redis is up")
        #expect(settledPlacement(a, "other") == .here(savedState: nil))
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(
            eventually(within: 3) { (try? client.call(RedisCommand("GET", "f2:room:r:owner"))?.get().string) == "a" },
            "the room run standalone is claimed once Redis is back")
        #expect(a.claimsHeld == 2)
    }

    @Test("Redis lost while running: held rooms stay here, new rooms are unavailable; back, the directory registers and claims again")
    func lostWhileRunning() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "f3")
        defer { a.stop() }
        #expect(settledPlacement(a, "kept") == .here(savedState: nil))
        a.report(rooms: [RoomLoad(name: "kept", clients: 1, capacity: 8)])
        server.stop()
        #expect(eventually(within: 3) { !a.isConnected })
        #expect(a.placement(ofRoom: "kept") == .here(savedState: nil), "a held room keeps playing")
        #expect(a.placement(ofRoom: "new") == .unavailable)
        #expect(Self.metricsText(a).contains("tickwire_directory_connected 0\n"), "/metrics shows Redis lost")
        a.report(rooms: [RoomLoad(name: "kept", clients: 1, capacity: 8), RoomLoad(name: "new", clients: 1, capacity: 8)])
        try server.start()  // empty: persistence is off, as after a Redis failover without replicas
        #expect(eventually(within: 5) { a.isConnected }, "reconnects within the backoff")
        #expect(a.reconnectCount == 1)
        let text = Self.metricsText(a)
        #expect(text.contains("tickwire_directory_connected 1\n") && text.contains("tickwire_directory_reconnects_total 1\n"), "\(text)")
        // Claims come back one by one after the reconnection: held, or being claimed again.
        #expect(
            text.contains("# TYPE tickwire_directory_claims gauge\ntickwire_directory_claims 1\n")
                || text.contains("# TYPE tickwire_directory_claims gauge\ntickwire_directory_claims 2\n"), "\(text)")
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(
            eventually(within: 3) {
                let owners = try? client.call(RedisCommand("MGET", "f3:room:kept:owner", "f3:room:new:owner", "f3:process:a"))?.get()
                    .elements
                return owners?[0].string == "a" && owners?[1].string == "a" && owners?[2].bytes != nil
            }, "registration and both claims are back in Redis")
        #expect(a.takeLostRooms().isEmpty)
    }

    @Test("a room run standalone that another process claimed meanwhile is reported lost when Redis is back")
    func standaloneRoomClaimedElsewhere() throws {
        let server = RedisServerProcess(portOnly: ())
        let a = try makeDirectory(server, name: "a", prefix: "f4")
        defer { a.stop() }
        #expect(a.placement(ofRoom: "r") == .unavailable)
        a.report(rooms: [RoomLoad(name: "r", clients: 1, capacity: 8)])
        try server.start()
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        // Another process got there first.
        _ = client.call(RedisCommand("SET", "f4:room:r:owner", "b", "PX", "30000"))
        #expect(eventually(within: 5) { a.isConnected })
        var lost: [String] = []
        #expect(
            eventually(within: 3) {
                lost += a.takeLostRooms()
                return !lost.isEmpty
            })
        #expect(lost == ["r"])
        #expect(a.claimsHeld == 0)
    }

    /// The directory's lines on `GET /metrics`.
    static func metricsText(_ directory: RedisRoomDirectory) -> String {
        var writer = PrometheusWriter()
        directory.writeMetrics(to: &writer)
        return writer.text
    }
}

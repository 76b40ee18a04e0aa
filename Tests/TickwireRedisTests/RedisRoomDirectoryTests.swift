import Foundation
import Testing
import TickwireRedis
import TickwireRedisTestSupport
import TickwireSim

/// Two or more "processes" of a fleet, each a ``RedisRoomDirectory`` in this test process.
func makeDirectory(
    _ server: RedisServerProcess, name: String, prefix: String, heartbeat: Duration = .milliseconds(100),
    ttl: Duration = .milliseconds(500)
) throws -> RedisRoomDirectory {
    let configuration = RedisDirectoryConfiguration(
        url: server.url, publicURL: "ws://\(name).test:4000", keyPrefix: prefix, processID: name, heartbeatInterval: heartbeat,
        claimTTL: ttl)
    return try RedisRoomDirectory(configuration: configuration)
}

func connectedDirectory(
    _ server: RedisServerProcess, name: String, prefix: String, heartbeat: Duration = .milliseconds(100),
    ttl: Duration = .milliseconds(500)
) throws -> RedisRoomDirectory {
    let directory = try makeDirectory(server, name: name, prefix: prefix, heartbeat: heartbeat, ttl: ttl)
    guard eventually(within: 5, { directory.isConnected }) else {
        directory.stop()
        throw TestFailure("directory \(name) did not connect within 5 s")
    }
    return directory
}

@Suite("Redis room directory")
struct RedisRoomDirectoryTests {
    @Test("two processes ask for one room at once: exactly one holds it, the other is sent to its URL")
    func oneClaimWins() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t1")
        let b = try connectedDirectory(server, name: "b", prefix: "t1")
        defer {
            a.stop()
            b.stop()
        }
        let first = a.placement(ofRoom: "lobby")
        let second = b.placement(ofRoom: "lobby")
        #expect(first == .pending && second == .pending, "nothing is known before Redis answers")
        let answers = [settledPlacement(a, "lobby"), settledPlacement(b, "lobby")]
        let here = answers.filter { $0 == .here(savedState: nil) }.count
        #expect(here == 1, "exactly one process holds the room: \(answers)")
        if answers[0] == .here(savedState: nil) {
            #expect(answers[1] == .elsewhere(url: "ws://a.test:4000"))
        } else {
            #expect(answers[0] == .elsewhere(url: "ws://b.test:4000"))
        }
        #expect(a.claimsHeld + b.claimsHeld == 1)
        // The holder keeps answering here; the claim lives on through the heartbeats.
        let holder = answers[0] == .here(savedState: nil) ? a : b
        let ownerKey = "t1:room:lobby:owner"
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        usleep(1_000_000)  // two TTLs: only renewal keeps the claim
        #expect(holder.placement(ofRoom: "lobby") == .here(savedState: nil))
        #expect(try client.call(RedisCommand("GET", ownerKey))?.get().string == holder.processID)
    }

    @Test("the registration holds the public URL and the reported rooms; the other process's URL is known")
    func registration() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t2")
        let b = try connectedDirectory(server, name: "b", prefix: "t2")
        defer {
            a.stop()
            b.stop()
        }
        #expect(settledPlacement(a, "arena") == .here(savedState: nil))
        a.report(rooms: [RoomLoad(name: "arena", clients: 3, capacity: 32)])
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        var record = ""
        #expect(
            eventually(within: 3) {
                record = (try? client.call(RedisCommand("GET", "t2:process:a"))?.get().string) ?? ""
                return record.contains("\"clients\":3")
            }, "the heartbeat writes the report: \(record)")
        #expect(record.contains("\"url\":\"ws://a.test:4000\""), "\(record)")
        let ttl = try client.call(RedisCommand("PTTL", "t2:process:a"))?.get().integer ?? -1
        #expect(ttl > 0 && ttl <= 500, "the registration expires with the TTL: \(ttl) ms")
        #expect(eventually(within: 3) { a.anotherProcessURL() == "ws://b.test:4000" && b.anotherProcessURL() == "ws://a.test:4000" })
        #expect(try client.call(RedisCommand("SISMEMBER", "t2:processes", "a"))?.get() == .integer(1))
    }

    @Test("a process that stops heartbeating loses its room after the TTL; the next process gets its saved state")
    func expiryHandsOverState() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t3")
        let b = try connectedDirectory(server, name: "b", prefix: "t3")
        defer { b.stop() }
        #expect(settledPlacement(a, "r") == .here(savedState: nil))
        a.save(room: "r", state: [1, 2, 3])
        #expect(a.placement(ofRoom: "r") == .here(savedState: [1, 2, 3]), "a held room answers with its last saved state")
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(eventually(within: 3) { (try? client.call(RedisCommand("GET", "t3:room:r:state"))?.get().bytes) == [1, 2, 3] })
        #expect(settledPlacement(b, "r") == .elsewhere(url: "ws://a.test:4000"))
        let stoppedAt = Date()
        a.stop()  // as if the process died: nothing is released
        var answer = RoomPlacement.pending
        #expect(
            eventually(within: 5) {
                answer = b.placement(ofRoom: "r")
                return answer == .here(savedState: [1, 2, 3])
            }, "b claims the room once a's claim expires, with a's saved state; last answer \(answer)")
        let waited = Date().timeIntervalSince(stoppedAt)
        #expect(waited < 2, "within the TTL (0.5 s) and a few polls, not \(waited) s")
        #expect(b.claimsHeld == 1)
    }

    @Test("release hands a room over at once, long before its claim would expire, with the saved state")
    func releaseHandsOver() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t4", heartbeat: .seconds(1), ttl: .seconds(30))
        let b = try connectedDirectory(server, name: "b", prefix: "t4", heartbeat: .seconds(1), ttl: .seconds(30))
        defer {
            a.stop()
            b.stop()
        }
        #expect(settledPlacement(a, "r") == .here(savedState: nil))
        a.save(room: "r", state: [9])
        a.release(room: "r")
        #expect(a.claimsHeld == 0)
        var answer = RoomPlacement.pending
        #expect(
            eventually(within: 3) {
                answer = b.placement(ofRoom: "r")
                return answer == .here(savedState: [9])
            }, "b holds the released room with its state, well within the 30 s TTL; last answer \(answer)")
        #expect(a.takeLostRooms().isEmpty, "a released the room: it did not lose it")
    }

    @Test("a save or release for a room not held does nothing")
    func notHeld() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t5")
        defer { a.stop() }
        a.save(room: "never", state: [1])
        a.release(room: "never")
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(try client.call(RedisCommand("EXISTS", "t5:room:never:state", "t5:room:never:owner"))?.get() == .integer(0))
    }

    @Test("a released room the host still reports (draining) is not claimed again by the heartbeat")
    func releasedStaysReleased() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t6")
        defer { a.stop() }
        #expect(settledPlacement(a, "r") == .here(savedState: nil))
        a.report(rooms: [RoomLoad(name: "r", clients: 4, capacity: 8)])
        a.release(room: "r")
        a.report(rooms: [RoomLoad(name: "r", clients: 4, capacity: 8)])  // its clients are still leaving
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(eventually(within: 3) { (try? client.call(RedisCommand("EXISTS", "t6:room:r:owner"))?.get()) == .integer(0) })
        usleep(300_000)  // three heartbeats
        #expect(try client.call(RedisCommand("EXISTS", "t6:room:r:owner"))?.get() == .integer(0), "no heartbeat took the claim back")
        #expect(a.claimsHeld == 0)
        #expect(a.takeLostRooms().isEmpty)
    }

    @Test("leave takes the process out of the registry at once: others stop naming it")
    func leaveDeregisters() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t7")
        let b = try connectedDirectory(server, name: "b", prefix: "t7", heartbeat: .milliseconds(100), ttl: .seconds(30))
        defer {
            a.stop()
            b.stop()
        }
        #expect(eventually(within: 3) { a.anotherProcessURL() == "ws://b.test:4000" })
        b.leave()
        b.stop()  // at once, as a draining process exits: what leave sent still reaches Redis
        #expect(eventually(within: 3) { a.anotherProcessURL() == nil }, "gone from a's view well before b's 30 s TTL")
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        #expect(try client.call(RedisCommand("EXISTS", "t7:process:b"))?.get() == .integer(0))
        #expect(try client.call(RedisCommand("SISMEMBER", "t7:processes", "b"))?.get() == .integer(0))
    }

    @Test("an answer not asked for again within a claim's TTL is dropped, not handed out stale later")
    func staleAnswerDropped() throws {
        let server = try RedisServerProcess()
        let a = try connectedDirectory(server, name: "a", prefix: "t8")
        let b = try connectedDirectory(server, name: "b", prefix: "t8")
        defer {
            a.stop()
            b.stop()
        }
        #expect(settledPlacement(b, "r") == .here(savedState: nil))
        #expect(a.placement(ofRoom: "r") == .pending)  // the answer (b's URL) comes and waits, unasked
        b.release(room: "r")
        b.leave()
        usleep(800_000)  // past the 0.5 s TTL: the waiting answer is stale now
        let answer = a.placement(ofRoom: "r")
        #expect(answer != .elsewhere(url: "ws://b.test:4000"), "a stale redirect to b was handed out")
        #expect(settledPlacement(a, "r") == .here(savedState: nil))
    }
}

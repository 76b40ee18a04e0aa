import Foundation
import Testing
import TickwireRedisTestSupport
import TickwireSim

@testable import TickwireRedis

@Suite("Matchmaking on a real redis-server")
struct RedisMatchmakerTests {
    static let rules = MatchmakingRules(capacities: ["arena": 16, "duel": 2], reservationTTL: .seconds(30))

    /// Three processes (their directories register them) and a matchmaker for each.
    static func fleet(
        _ server: RedisServerProcess, prefix: String, rules: MatchmakingRules = rules
    ) throws -> ([RedisRoomDirectory], [RedisMatchmaker]) {
        let directories = try ["a", "b", "c"].map { try connectedDirectory(server, name: $0, prefix: prefix) }
        let matchmakers = try directories.map { _ in try RedisMatchmaker(url: server.url, keyPrefix: prefix, rules: rules) }
        // Every registration is written by a heartbeat: wait until all three are there (each
        // directory then lists the other two), however loaded the machine is.
        guard
            eventually(
                within: 20,
                {
                    directories.allSatisfy { directory in directory.state.withLock { $0.otherURLs.count } == 2 }
                        && matchmakers.allSatisfy(\.isConnected)
                })
        else {
            stop(directories, matchmakers)
            throw TestFailure("the three processes did not see each other's registrations within 20 s")
        }
        return (directories, matchmakers)
    }

    /// Asks `matchmaker` for its listings until `condition` holds them, for at most 20 s (a
    /// report reaches Redis with a process's next heartbeat, however loaded the machine is).
    static func listings(
        _ matchmaker: RedisMatchmaker, mode: String?, until condition: ([RoomListing]) -> Bool
    ) async throws -> [RoomListing] {
        let deadline = ContinuousClock.now + .seconds(20)
        var listings = try await matchmaker.listRooms(mode: mode)
        while !condition(listings), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            listings = try await matchmaker.listRooms(mode: mode)
        }
        return listings
    }

    static func stop(_ directories: [RedisRoomDirectory], _ matchmakers: [RedisMatchmaker]) {
        for matchmaker in matchmakers { matchmaker.stop() }
        for directory in directories { directory.stop() }
    }

    @Test("300 concurrent joinOrCreates through three processes fill every room to exactly its capacity, spread by load")
    func concurrentJoinOrCreate() async throws {
        let server = try RedisServerProcess()
        let (directories, matchmakers) = try Self.fleet(server, prefix: "mm1")
        defer { Self.stop(directories, matchmakers) }
        let seats = try await withThrowingTaskGroup(of: SeatReservation.self) { group in
            for index in 0..<300 {
                group.addTask { try await matchmakers[index % 3].reserveSeat(.joinOrCreate(mode: "arena"), player: "p\(index)") }
            }
            var seats: [SeatReservation] = []
            for try await seat in group { seats.append(seat) }
            return seats
        }
        let byRoom = Dictionary(grouping: seats, by: \.room)
        #expect(byRoom.count == 19 && byRoom.values.allSatisfy { $0.count <= 16 })
        #expect(byRoom.values.filter { $0.count == 16 }.count == 18, "every room but the last is full")
        let roomsPerProcess = Dictionary(grouping: byRoom.values.compactMap(\.first), by: \.process).mapValues(\.count)
        #expect(roomsPerProcess.values.sorted() == [6, 6, 7], "\(roomsPerProcess)")
        #expect(seats.allSatisfy { $0.processURL == "ws://\($0.process).test:4000" })
        let listings = try await matchmakers[2].listRooms(mode: "arena")
        #expect(listings.count == 19 && listings.reduce(0) { $0 + $1.clients } == 300, "every process lists the same rooms")
    }

    @Test("join, create and joinByID, with each refusal; a made room is claimed on its process")
    func actions() async throws {
        let server = try RedisServerProcess()
        let (directories, matchmakers) = try Self.fleet(server, prefix: "mm2")
        defer { Self.stop(directories, matchmakers) }
        let matchmaker = matchmakers[0]
        await #expect(throws: MatchmakingError.noOpenRoom(mode: "duel")) {
            try await matchmaker.reserveSeat(.join(mode: "duel"), player: "x")
        }
        await #expect(throws: MatchmakingError.unknownMode("chess")) {
            try await matchmaker.reserveSeat(.create(mode: "chess"), player: "x")
        }
        let first = try await matchmaker.reserveSeat(.create(mode: "duel"), player: "ann")
        #expect(first.isNewRoom && first.room.hasPrefix("duel-"))
        let again = try await matchmakers[1].reserveSeat(.joinOrCreate(mode: "duel"), player: "ann")
        #expect(again.room == first.room && !again.isNewRoom, "asking again keeps the one seat")
        let second = try await matchmakers[2].reserveSeat(.join(mode: "duel"), player: "bob")
        #expect(second.room == first.room)
        await #expect(throws: MatchmakingError.roomFull(first.room)) {
            try await matchmaker.reserveSeat(.joinByID(room: first.room), player: "cat")
        }
        await #expect(throws: MatchmakingError.unknownRoom("duel-00000000")) {
            try await matchmaker.reserveSeat(.joinByID(room: "duel-00000000"), player: "cat")
        }
        for directory in directories {
            let expected: RoomPlacement =
                directory.configuration.processID == first.process
                ? .here(savedState: nil) : .elsewhere(url: "ws://\(first.process).test:4000")
            #expect(eventually(within: 5) { directory.placement(ofRoom: first.room) == expected }, "\(directory.configuration.processID)")
        }
    }

    @Test("reports count an arrived player once, list metadata, hide locked and private rooms; unused seats expire")
    func reportsAndExpiry() async throws {
        let server = try RedisServerProcess()
        let rules = MatchmakingRules(capacities: ["duel": 2], reservationTTL: .seconds(60))
        let (directories, matchmakers) = try Self.fleet(server, prefix: "mm3", rules: rules)
        defer { Self.stop(directories, matchmakers) }
        let seat = try await matchmakers[0].reserveSeat(.create(mode: "duel"), player: "ann")
        let holder = try #require(directories.first { $0.configuration.processID == seat.process })
        _ = holder.placement(ofRoom: seat.room)
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], metadata: ["map": "dust"])])
        let expected = [RoomListing(room: seat.room, mode: "duel", clients: 1, capacity: 2, metadata: ["map": "dust"])]
        #expect(try await Self.listings(matchmakers[1], mode: "duel") { $0 == expected } == expected, "ann reserved and arrived: one seat")
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], isLocked: true)])
        #expect(try await Self.listings(matchmakers[1], mode: nil) { $0.isEmpty }.isEmpty, "locked rooms are not listed")
        await #expect(throws: MatchmakingError.roomLocked(seat.room)) {
            try await matchmakers[2].reserveSeat(.joinByID(room: seat.room), player: "bob")
        }
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], isPrivate: true)])
        // Unlocked but private: joinByID takes bob once the report is in; listings leave it out.
        let deadline = ContinuousClock.now + .seconds(20)
        var joined: SeatReservation?
        while joined == nil, ContinuousClock.now < deadline {
            joined = try? await matchmakers[2].reserveSeat(.joinByID(room: seat.room), player: "bob")
            if joined == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(joined?.room == seat.room, "a private room takes whoever names it")
        #expect(try await matchmakers[1].listRooms(mode: "duel").isEmpty, "private rooms are not listed")
        // A room made for a seat nobody takes goes with the seat: a matchmaker of 1 s seats.
        let brief = try RedisMatchmaker(
            url: server.url, keyPrefix: "mm3", rules: MatchmakingRules(capacities: ["duel": 2], reservationTTL: .seconds(1)))
        defer { brief.stop() }
        #expect(eventually(within: 20) { brief.isConnected }, "the second matchmaker connects")
        let lonely = try await brief.reserveSeat(.create(mode: "duel"), player: "cat")
        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await matchmakers[0].listRooms(mode: "duel").allSatisfy { $0.room != lonely.room }, "the seat expired, and its room")
        await #expect(throws: MatchmakingError.unknownRoom(lonely.room)) {
            try await matchmakers[0].reserveSeat(.joinByID(room: lonely.room), player: "dan")
        }
        holder.report(rooms: [])
        let closedDeadline = ContinuousClock.now + .seconds(20)
        var closed = false
        while !closed, ContinuousClock.now < closedDeadline {
            do {
                _ = try await matchmakers[0].reserveSeat(.joinByID(room: seat.room), player: "eve")
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                closed = (error as? MatchmakingError) == .unknownRoom(seat.room)
                if !closed { try await Task.sleep(for: .milliseconds(50)) }
            }
        }
        #expect(closed, "a room its process stopped reporting has closed")
    }

    @Test("join and joinOrCreate never pick a room whose process is dead (its registration expired); joinOrCreate makes one elsewhere")
    func deadProcessRoomsAreNotChosen() async throws {
        let server = try RedisServerProcess()
        let (directories, matchmakers) = try Self.fleet(server, prefix: "mm5")
        defer { Self.stop(directories, matchmakers) }
        // A room made for ann and never opened (no report): it lives while her seat waits.
        let first = try await matchmakers[0].reserveSeat(.create(mode: "arena"), player: "ann")
        let dead = try #require(directories.first { $0.configuration.processID == first.process })
        dead.stop()
        // Its registration expires after the claim TTL (500 ms here); wait for that, in Redis itself.
        let probe = try RedisClient.connected(to: server.url)
        defer { probe.stop() }
        let gone = eventually(within: 20) {
            guard case .success(let reply)? = probe.call(RedisCommand(["EXISTS", "mm5:process:\(first.process)"])) else { return false }
            return reply.integer == 0
        }
        #expect(gone, "the stopped process's registration expired")
        await #expect(throws: MatchmakingError.noOpenRoom(mode: "arena"), "join finds no room on a live process") {
            try await matchmakers[1].reserveSeat(.join(mode: "arena"), player: "bob")
        }
        let second = try await matchmakers[1].reserveSeat(.joinOrCreate(mode: "arena"), player: "bob")
        #expect(second.room != first.room && second.isNewRoom && second.process != first.process, "bob got \(second)")
        let again = try await matchmakers[2].reserveSeat(.joinOrCreate(mode: "arena"), player: "ann")
        #expect(again.room == second.room, "ann's seat on the dead process is not given back to her: \(again)")
    }

    @Test("a room created private is left out of listings and of joinOrCreate, whatever its process reports; joinByID reaches it")
    func privateAtCreation() async throws {
        let server = try RedisServerProcess()
        let (directories, matchmakers) = try Self.fleet(server, prefix: "mm6")
        defer { Self.stop(directories, matchmakers) }
        let seat = try await matchmakers[0].reserveSeat(.create(mode: "duel", isPrivate: true), player: "ann")
        let holder = try #require(directories.first { $0.configuration.processID == seat.process })
        _ = holder.placement(ofRoom: seat.room)
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"])])
        let probe = try RedisClient.connected(to: server.url)
        defer { probe.stop() }
        let reported = eventually(within: 20) {
            guard case .success(let reply)? = probe.call(RedisCommand(["GET", "mm6:process:\(seat.process)"])) else { return false }
            return reply.string?.contains(seat.room) == true
        }
        #expect(reported, "the holder's report reached Redis")
        #expect(try await matchmakers[1].listRooms(mode: nil).isEmpty, "a private room is not listed, though its process reports it public")
        let other = try await matchmakers[1].reserveSeat(.joinOrCreate(mode: "duel"), player: "bob")
        #expect(other.room != seat.room && other.isNewRoom, "joinOrCreate does not seat bob in the private room")
        let named = try await matchmakers[2].reserveSeat(.joinByID(room: seat.room), player: "cat")
        #expect(named.room == seat.room, "whoever names a private room joins it")
    }

    @Test("guest numbers: INCR on PREFIX:mm:guests, each given once across the fleet's matchmakers")
    func guestNumbers() async throws {
        let server = try RedisServerProcess()
        let matchmakers = try (0..<3).map { _ in try RedisMatchmaker(url: server.url, keyPrefix: "mm7", rules: Self.rules) }
        defer { for matchmaker in matchmakers { matchmaker.stop() } }
        #expect(eventually(within: 20) { matchmakers.allSatisfy(\.isConnected) }, "the matchmakers connect")
        let numbers = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for index in 0..<60 { group.addTask { try await matchmakers[index % 3].nextGuestNumber() } }
            var numbers: [UInt64] = []
            for try await number in group { numbers.append(number) }
            return numbers
        }
        #expect(numbers.sorted() == Array(1...60), "60 guests got 1 to 60, each once: \(numbers.sorted())")
    }

    @Test("with Redis gone, a request fails as unavailable (503), not a hang")
    func redisGone() async throws {
        let server = try RedisServerProcess()
        let matchmaker = try RedisMatchmaker(url: server.url, keyPrefix: "mm4", rules: Self.rules)
        defer { matchmaker.stop() }
        server.stop()
        do {
            _ = try await matchmaker.reserveSeat(.joinOrCreate(mode: "duel"), player: "x")
            Issue.record("a request without Redis must fail")
        } catch {
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(error.httpStatus == 503)
        }
    }
}

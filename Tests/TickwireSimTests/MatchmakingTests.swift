import Dispatch
import Synchronization
import Testing

@testable import TickwireSim

@Suite("Matchmaking on the in-memory store")
struct MatchmakingTests {
    static let rules = MatchmakingRules(capacities: ["arena": 16, "duel": 2], reservationTTL: .seconds(30))

    /// A store with three live processes, `a`, `b` and `c`.
    static func fleet() -> (VirtualClock, InMemoryDirectoryStore, [InMemoryRoomDirectory]) {
        let clock = VirtualClock()
        let store = InMemoryDirectoryStore(clock: clock)
        let directories = ["a", "b", "c"].map { store.directory(forProcess: $0, publicURL: "ws://\($0)") }
        return (clock, store, directories)
    }

    @Test("300 concurrent joinOrCreates fill every room to exactly its capacity, none over, spread over the processes")
    func concurrentJoinOrCreate() throws {
        let (_, store, _) = Self.fleet()
        let seats = Mutex<[SeatReservation]>([])
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 300) { index in
            do {
                let seat = try store.reserveSeat(.joinOrCreate(mode: "arena"), player: "p\(index)", rules: Self.rules)
                seats.withLock { $0.append(seat) }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let byRoom = Dictionary(grouping: seats.withLock { $0 }, by: \.room)
        #expect(byRoom.count == 19, "300 players in rooms of 16 make 19 rooms")
        #expect(byRoom.values.allSatisfy { $0.count <= 16 }, "no room over its capacity")
        #expect(byRoom.values.filter { $0.count == 16 }.count == 18, "every room but the last is full")
        let listings = store.listRooms(mode: "arena")
        #expect(listings.reduce(0) { $0 + $1.clients } == 300 && listings.allSatisfy { $0.clients <= $0.capacity })
        let roomsPerProcess = Dictionary(grouping: byRoom.values.compactMap(\.first), by: \.process).mapValues(\.count)
        #expect(roomsPerProcess.values.sorted() == [6, 6, 7], "new rooms go to the least loaded process: \(roomsPerProcess)")
    }

    @Test("join finds only open rooms, create always makes one, joinByID names one; each refusal has its status")
    func actions() throws {
        let (_, store, _) = Self.fleet()
        #expect(throws: MatchmakingError.noOpenRoom(mode: "duel")) {
            try store.reserveSeat(.join(mode: "duel"), player: "x", rules: Self.rules)
        }
        #expect(throws: MatchmakingError.unknownMode("chess")) {
            try store.reserveSeat(.joinOrCreate(mode: "chess"), player: "x", rules: Self.rules)
        }
        let first = try store.reserveSeat(.create(mode: "duel"), player: "ann", rules: Self.rules)
        #expect(first.isNewRoom && first.mode == "duel" && first.room.hasPrefix("duel-") && first.room.utf8.count == 13)
        let second = try store.reserveSeat(.join(mode: "duel"), player: "bob", rules: Self.rules)
        #expect(second.room == first.room && !second.isNewRoom)
        #expect(throws: MatchmakingError.roomFull(first.room)) {
            try store.reserveSeat(.joinByID(room: first.room), player: "cat", rules: Self.rules)
        }
        #expect(throws: MatchmakingError.unknownRoom("duel-ffffffff")) {
            try store.reserveSeat(.joinByID(room: "duel-ffffffff"), player: "cat", rules: Self.rules)
        }
        let other = try store.reserveSeat(.create(mode: "duel"), player: "cat", rules: Self.rules)
        #expect(other.room != first.room, "create makes a room even when one is open")
        #expect(MatchmakingError.roomFull("r").httpStatus == 409 && MatchmakingError.unknownMode("m").httpStatus == 404)
        #expect(MatchmakingError.noLiveProcess.httpStatus == 503)
    }

    @Test("a player asking again keeps one seat; a seat never used is given back when it expires")
    func reservationsAndExpiry() throws {
        let (clock, store, directories) = Self.fleet()
        let seat = try store.reserveSeat(.joinOrCreate(mode: "duel"), player: "ann", rules: Self.rules)
        let again = try store.reserveSeat(.joinOrCreate(mode: "duel"), player: "ann", rules: Self.rules)
        #expect(again.room == seat.room && store.listRooms(mode: "duel").first?.clients == 1, "a retried request holds one seat")
        // The processes live on (a heartbeat a second); the room never opens on its process.
        func pass(seconds: Int) {
            for _ in 0..<seconds {
                clock.advance(by: .seconds(1))
                for directory in directories { directory.report(rooms: []) }
            }
        }
        pass(seconds: 29)
        #expect(store.listRooms(mode: "duel").count == 1)
        #expect(store.holder(ofRoom: seat.room) == seat.process, "the new room is claimed on its process")
        pass(seconds: 1)
        #expect(store.listRooms(mode: "duel").isEmpty, "the reservation of 30 s expired, and the room that never opened went with it")
        #expect(store.holder(ofRoom: seat.room) == nil, "its claim is released")
    }

    @Test("a hello for a made room is placed on the process chosen for it, and redirected from the others")
    func placementFollowsTheReservation() throws {
        let (_, store, directories) = Self.fleet()
        let seat = try store.reserveSeat(.create(mode: "arena"), player: "ann", rules: Self.rules)
        for directory in directories {
            let expected: RoomPlacement =
                directory.processID == seat.process ? .here(savedState: nil) : .elsewhere(url: "ws://\(seat.process)")
            #expect(directory.placement(ofRoom: seat.room) == expected)
        }
    }

    @Test("reports count an arrived reserved player once; locked and private rooms leave the listing; metadata is listed")
    func reports() throws {
        let (clock, store, directories) = Self.fleet()
        let seat = try store.reserveSeat(.create(mode: "duel"), player: "ann", rules: Self.rules)
        let holder = try #require(directories.first { $0.processID == seat.process })
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], metadata: ["map": "dust"])])
        var listing = try #require(store.listRooms(mode: "duel").first)
        #expect(listing.clients == 1 && listing.metadata == ["map": "dust"], "ann reserved and arrived: one seat")
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 2, capacity: 2, players: ["ann"])])
        listing = try #require(store.listRooms(mode: "duel").first)
        #expect(listing.clients == 2, "an anonymous player counts too")
        #expect(throws: MatchmakingError.noOpenRoom(mode: "duel")) {
            try store.reserveSeat(.join(mode: "duel"), player: "bob", rules: Self.rules)
        }
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], isLocked: true)])
        #expect(store.listRooms(mode: "duel").isEmpty, "locked rooms are not listed")
        #expect(throws: MatchmakingError.roomLocked(seat.room)) {
            try store.reserveSeat(.joinByID(room: seat.room), player: "bob", rules: Self.rules)
        }
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"], isPrivate: true)])
        #expect(store.listRooms(mode: nil).isEmpty, "private rooms are not listed")
        #expect(throws: MatchmakingError.noOpenRoom(mode: "duel")) {
            try store.reserveSeat(.join(mode: "duel"), player: "bob", rules: Self.rules)
        }
        #expect(
            try store.reserveSeat(.joinByID(room: seat.room), player: "bob", rules: Self.rules).room == seat.room,
            "a private room takes whoever names it")
        clock.advance(by: .seconds(31))
        holder.report(rooms: [])
        #expect(throws: MatchmakingError.unknownRoom(seat.room), "a room its process stopped reporting has closed") {
            try store.reserveSeat(.joinByID(room: seat.room), player: "cat", rules: Self.rules)
        }
    }

    @Test("new rooms avoid dead processes; with none alive, joinOrCreate answers 503")
    func deadProcesses() throws {
        let (_, store, _) = Self.fleet()
        store.kill(process: "a")
        store.kill(process: "b")
        for index in 0..<3 {
            #expect(try store.reserveSeat(.create(mode: "duel"), player: "p\(index)", rules: Self.rules).process == "c")
        }
        store.kill(process: "c")
        #expect(throws: MatchmakingError.noLiveProcess) { try store.reserveSeat(.create(mode: "duel"), player: "q", rules: Self.rules) }
    }

    @Test("join and joinOrCreate never pick a room whose process is dead; joinOrCreate makes one on a live process")
    func deadProcessRoomsAreNotChosen() throws {
        let (_, store, _) = Self.fleet()
        let first = try store.reserveSeat(.create(mode: "arena"), player: "ann", rules: Self.rules)
        store.kill(process: first.process)
        #expect(throws: MatchmakingError.noOpenRoom(mode: "arena"), "join finds no room on a live process") {
            try store.reserveSeat(.join(mode: "arena"), player: "bob", rules: Self.rules)
        }
        let second = try store.reserveSeat(.joinOrCreate(mode: "arena"), player: "bob", rules: Self.rules)
        #expect(second.room != first.room && second.process != first.process, "bob got \(second)")
        let again = try store.reserveSeat(.joinOrCreate(mode: "arena"), player: "ann", rules: Self.rules)
        #expect(again.room == second.room, "ann's seat on the dead process is not given back to her")
    }

    @Test("a room created private is left out of listings and of joinOrCreate, whatever its process reports; joinByID reaches it")
    func privateAtCreation() throws {
        let (_, store, directories) = Self.fleet()
        let seat = try store.reserveSeat(.create(mode: "duel", isPrivate: true), player: "ann", rules: Self.rules)
        let holder = try #require(directories.first { $0.processID == seat.process })
        holder.report(rooms: [RoomLoad(name: seat.room, clients: 1, capacity: 2, players: ["ann"])])
        #expect(store.listRooms(mode: nil).isEmpty, "a private room is not listed, though its process reports it public")
        let other = try store.reserveSeat(.joinOrCreate(mode: "duel"), player: "bob", rules: Self.rules)
        #expect(other.room != seat.room && other.isNewRoom, "joinOrCreate does not seat bob in the private room")
        #expect(try store.reserveSeat(.joinByID(room: seat.room), player: "cat", rules: Self.rules).room == seat.room)
    }

    @Test("guest numbers are 1, 2, 3… and each is given once, across matchmakers on one store")
    func guestNumbers() async throws {
        let (_, store, _) = Self.fleet()
        let matchmakers = (0..<3).map { _ in InMemoryMatchmaker(store: store, rules: Self.rules) }
        let numbers = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for index in 0..<60 { group.addTask { try await matchmakers[index % 3].nextGuestNumber() } }
            var numbers: [UInt64] = []
            for try await number in group { numbers.append(number) }
            return numbers
        }
        #expect(numbers.sorted() == Array(1...60), "60 guests got 1 to 60, each once")
    }

    @Test("mode names: 1 to 32 bytes of letters, digits, - and _")
    func modeNames() {
        #expect(MatchmakingRules.isValidMode(String(repeating: "m", count: 32)))
        #expect(!MatchmakingRules.isValidMode(String(repeating: "m", count: 33)))
        #expect(!MatchmakingRules.isValidMode("") && !MatchmakingRules.isValidMode("a b") && !MatchmakingRules.isValidMode("é"))
        #expect(MatchmakingRules(capacities: ["ok_mode-1": 4, "bad mode": 4, "zero": 0]).capacities == ["ok_mode-1": 4])
    }

    @Test("a host reports its game's listing: a matchmaker lists the room's words, and stops listing it once the game locks it")
    func hostReportsTheGamesListing() throws {
        let fleet = FleetHarness(hosts: 2)
        let rules = MatchmakingRules(capacities: ["dots": 4])
        let seat = try fleet.store.reserveSeat(.create(mode: "dots"), player: "ann", rules: rules)
        let holder = try #require(FleetHarness.index(of: seat.processURL))
        fleet.addClient(room: seat.room, entries: [1 - holder])
        fleet.run(for: .seconds(2))
        #expect(fleet.holder(of: seat.room) == holder, "the made room opened on the process chosen for it, through a redirect")
        let listing = try #require(fleet.store.listRooms(mode: "dots").first)
        #expect(listing.room == seat.room && listing.metadata == ["players": "1"], "the game's words, from its world")
        // An anonymous player and ann's unused reservation: two seats until the reservation expires.
        #expect(listing.clients == 2)
        fleet.addClient(room: seat.room, entries: [holder])
        fleet.run(for: .seconds(2))
        #expect(fleet.store.listRooms(mode: "dots").isEmpty, "two players lock the room in this game, and a locked room is not listed")
        #expect(fleet.store.reportedRooms(of: "host-\(holder)").first?.isLocked == true)
    }

    @Test("a reserved player who arrives with a connect token takes one seat, not two")
    func arrivedPlayerCountsOnce() throws {
        var store: InMemoryDirectoryStore?
        let bench = RawClientBench(
            configure: {
                $0.createsRoomsOnDemand = true
                $0.tokenVerifier = HostTokenTests.PlainVerifier()
            },
            directory: { clock in
                let made = InMemoryDirectoryStore(clock: clock)
                store = made
                return made.directory(forProcess: "p", publicURL: "sim://p")
            })
        let fleet = try #require(store)
        let rules = MatchmakingRules(capacities: ["dots": 4])
        let seat = try fleet.reserveSeat(.create(mode: "dots"), player: "7", rules: rules)
        #expect(fleet.listRooms(mode: "dots").first?.clients == 1, "the reservation takes a seat")
        let client = bench.join(room: seat.room, connectToken: HostTokenTests.token(user: 7, room: seat.room, tag: 1))
        bench.run(milliseconds: 2_000, clients: [client])
        #expect(client.welcome != nil)
        #expect(fleet.reportedRooms(of: "p").first?.players == ["7"], "the host reports its verified player")
        #expect(fleet.listRooms(mode: "dots").first?.clients == 1, "ann reserved and arrived: one seat, not two")
    }
}

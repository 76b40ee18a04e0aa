import Synchronization
import Testing
import TickwireCodec
import TickwireIO
import TickwireSimTestSupport
import TickwireWebSocket
import TickwireWebSocketTransport

@testable import TickwireSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test game whose world records the threads its steps ran on: each room's in its own world,
/// which only the thread ticking that room touches, so the record needs no lock of its own.
/// Each step also works for `stepWork` (busy, on the CPU) and checks, through a counter of the
/// room's own, that no other step of the same room runs at the same time.
struct ThreadRecordingGame: Game {
    /// Counts a room's steps in progress, and the steps that found another already running.
    final class StepGuard: Sendable {
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
    }

    struct State: Sendable {
        var room: String
        /// How many of the room's steps ran on each thread (`pthread_self()` as a number).
        var stepsByThread: [UInt: Int] = [:]
        var steps = 0
        let guardian = StepGuard()

        /// The threads the room's steps ran on.
        var threads: Set<UInt> { Set(stepsByThread.keys) }
    }

    let schema = DotsGame.makeSchema()
    var stepWork: Duration = .zero

    static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    func makeWorld(room: String) -> State { State(room: room) }

    func step(_ state: State, inputs: [UInt32: UInt8], dt: Double) -> State {
        if state.guardian.inside.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue != 0 {
            state.guardian.overlaps.wrappingAdd(1, ordering: .relaxed)
        }
        defer { state.guardian.inside.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        let clock = ContinuousClock()
        let end = clock.now + stepWork
        while clock.now < end {}
        var next = state
        next.stepsByThread[Self.currentThread, default: 0] += 1
        next.steps += 1
        return next
    }

    func addPlayer(_ player: UInt32, to state: State) -> State { state }
    func removePlayer(_ player: UInt32, from state: State) -> State { state }
    func capture(_ state: State, into snapshot: inout Snapshot) throws(SnapshotError) {}
    func restore(from snapshot: Snapshot) -> State { State(room: "") }
    func entityID(of player: UInt32, in state: State) -> UInt32? { nil }
    func encode(_ input: UInt8) -> [UInt8] { [input] }
    func decodeInput(_ bytes: [UInt8]) -> UInt8? { bytes.count == 1 ? bytes[0] : nil }
}

@Suite("Host tick threads")
struct HostTickThreadsTests {
    /// The orbs of a snapshot (id, x, y): they freeze at the same world time whatever the threads.
    private static func orbs(of snapshot: Snapshot) -> [[Double]] {
        snapshot.indices.filter { snapshot.typeIndex(at: $0) == 1 }.map {
            [Double(snapshot.id(at: $0)), snapshot.double(at: $0, field: 0), snapshot.double(at: $0, field: 1)]
        }
    }

    /// Runs four rooms of two WebSocket clients each on `threads` tick threads until every room
    /// froze and every client holds a snapshot from after that; returns each room's frozen orbs.
    private func runFourRooms(threads: Int) throws -> [String: [[Double]]] {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port, "the server should report its bound port")
        let clientLoop = try EventLoop()
        try clientLoop.start()
        defer { clientLoop.stop() }
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 5, freezeAt: 0.5)
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.rooms = ["a", "b", "c", "d"]
        configuration.tickThreads = threads
        let host = Host(game: game, listener: server, clock: clock, configuration: configuration)
        #expect(host.tickThreadCount == threads)
        #expect(
            configuration.rooms.map { host.tickThread(ofRoom: $0) } == (threads == 1 ? [0, 0, 0, 0] : [0, 1, 0, 1]),
            "rooms go to the thread with the fewest rooms, the lowest first")
        var clients: [(room: String, session: ClientSession<DotsGame>)] = []
        var connections: [WebSocketClientTransportConnection] = []
        for room in configuration.rooms {
            for _ in 0..<2 {
                let connection = try WebSocketClientTransportConnection(
                    url: try WebSocketURL("ws://127.0.0.1:\(port)/\(room)"), loop: clientLoop)
                connections.append(connection)
                var clientConfiguration = ClientConfiguration()
                clientConfiguration.room = room
                let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
                session.connect(over: connection)
                clients.append((room, session))
            }
        }
        defer { for connection in connections { connection.close() } }
        let deadline = clock.now + .seconds(10)
        var tick = 0
        while clock.now < deadline {
            host.advance()
            for (index, client) in clients.enumerated() {
                client.session.tick(input: tick < 10 && index % 2 == 0 ? DotsGame.Input(dx: 1, dy: 0) : nil)
            }
            tick += 1
            let frozen = configuration.rooms.allSatisfy { (host.room(named: $0)?.tick ?? 0) > 40 }
            if frozen, clients.allSatisfy({ ($0.session.latestSnapshot?.tick ?? 0) > 30 }) { break }
            clock.sleep(until: clock.now + .milliseconds(33))
        }
        var frozenOrbs: [String: [[Double]]] = [:]
        for (index, client) in clients.enumerated() {
            let room = try #require(host.room(named: client.room))
            #expect(client.session.status == .connected, "client \(index) of room \(client.room): \(client.session.status)")
            let snapshot = try #require(client.session.latestSnapshot, "client \(index) of room \(client.room) received no snapshot")
            let truth = try #require(room.history.snapshot(at: snapshot.tick), "room \(client.room) forgot tick \(snapshot.tick)")
            #expect(snapshot == truth, "client \(index)'s snapshot of tick \(snapshot.tick) differs from room \(client.room)'s")
            #expect(room.clientIDs.count == 2, "room \(client.room) should hold its two clients")
            frozenOrbs[client.room] = Self.orbs(of: snapshot)
        }
        return frozenOrbs
    }

    @Test("rooms on 2 tick threads over real WebSockets converge exactly as on 1")
    func twoThreadsConvergeAsOne() throws {
        let one = try runFourRooms(threads: 1)
        let two = try runFourRooms(threads: 2)
        #expect(one.count == 4 && !(one["a"] ?? []).isEmpty, "every room's clients should have seen its orbs")
        #expect(one == two, "the frozen worlds the clients see should not depend on the number of tick threads")
    }

    @Test("each room ticks on one thread at a time; the rooms spread over both threads, the driving one among them")
    func roomTicksRunOneAtATime() throws {
        // Steps long enough (300 µs of CPU each) that one thread cannot finish a pass's five
        // rooms before the other has woken, so that both threads tick rooms.
        let game = ThreadRecordingGame(stepWork: .microseconds(300))
        var configuration = HostConfiguration()
        configuration.tickRate = 200
        configuration.rooms = ["a", "b", "c", "d", "e"]
        configuration.tickThreads = 2
        let host = Host(
            game: game, listener: SimulatedNetwork(clock: MonotonicClock(), seed: 1), clock: MonotonicClock(), configuration: configuration)
        var passes = 0
        host.run {
            passes += 1
            // Between passes, on the driving thread: no room ticks now, so its world may be read.
            return passes > 5000 || configuration.rooms.allSatisfy { (host.room(named: $0)?.state.steps ?? 0) >= 40 }
        }
        #expect(host.pool == nil, "run(until:) stops and joins its tick threads before it returns")
        #expect(configuration.rooms.map { host.tickThread(ofRoom: $0) } == [0, 1, 0, 1, 0], "home threads: the fewest rooms first")
        var allThreads: Set<UInt> = []
        for room in configuration.rooms {
            let state = try #require(host.room(named: room)?.state)
            #expect(state.steps >= 40, "room \(room) ticked \(state.steps) times")
            #expect(state.guardian.overlaps.load(ordering: .relaxed) == 0, "room \(room) ran two steps at once")
            #expect(state.stepsByThread.values.reduce(0, +) == state.steps)
            allThreads.formUnion(state.threads)
        }
        #expect(allThreads.count == 2, "the rooms should have run on exactly two threads, not \(allThreads.count)")
        #expect(allThreads.contains(ThreadRecordingGame.currentThread), "the driving thread is tick thread 0")
    }

    @Test("hellos racing for the last place in a room under 2 tick threads admit exactly one", arguments: 0..<3)
    func racingForTheLastSlot(round: Int) throws {
        let server = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { server.shutdown() }
        let port = try #require(server.address?.port)
        let clientLoop = try EventLoop()
        try clientLoop.start()
        defer { clientLoop.stop() }
        let clock = MonotonicClock()
        let game = DotsGame(orbCount: 2)
        var configuration = HostConfiguration()
        configuration.tickRate = 60
        configuration.rooms = ["x", "y"]
        configuration.roomCapacity = 3
        configuration.tickThreads = 2
        let host = Host(game: game, listener: server, clock: clock, configuration: configuration)
        var connections: [WebSocketClientTransportConnection] = []
        defer { for connection in connections { connection.close() } }
        func join(_ room: String) throws -> ClientSession<DotsGame> {
            let connection = try WebSocketClientTransportConnection(
                url: try WebSocketURL("ws://127.0.0.1:\(port)/\(room)"), loop: clientLoop)
            connections.append(connection)
            var clientConfiguration = ClientConfiguration()
            clientConfiguration.room = room
            let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
            session.connect(over: connection)
            return session
        }
        func run(_ sessions: [ClientSession<DotsGame>], until done: () -> Bool) {
            let deadline = clock.now + .seconds(10)
            while clock.now < deadline && !done() {
                host.advance()
                for session in sessions { session.tick(input: DotsGame.Input(dx: 0, dy: 1)) }
                clock.sleep(until: clock.now + .milliseconds(5))
            }
        }
        // Two players in x (thread 0) and three in y (thread 1), all ticking.
        let seated = try ["x", "x", "y", "y", "y"].map(join)
        run(seated) { seated.allSatisfy { $0.status == .connected } }
        #expect(seated.allSatisfy { $0.status == .connected }, "the first five should be seated")
        // Six hellos for x's last place arrive together.
        let racers = try (0..<6).map { _ in try join("x") }
        let everyone = seated + racers
        run(everyone) { racers.allSatisfy { $0.status != .handshaking } }
        let admitted = racers.filter { $0.status == .connected }.count
        let refused = racers.filter { if case .rejected(.roomFull, _) = $0.status { true } else { false } }.count
        #expect(admitted == 1 && refused == 5, "round \(round): \(admitted) admitted, \(refused) refused: \(racers.map(\.status))")
        #expect(host.room(named: "x")?.clientIDs.count == 3, "room x holds its capacity, never more")
        #expect(host.room(named: "y")?.clientIDs.count == 3, "room y on the other thread is untouched")
        #expect(host.rejections[.roomFull] == 5)
    }

    @Test("exporting and restoring the state of rooms on 2 tick threads keeps worlds, ticks, ids and resume tokens")
    func stateWithThreads() throws {
        let clock = VirtualClock()
        let game = DotsGame(orbCount: 3)
        var configuration = HostConfiguration()
        configuration.rooms = ["a", "b", "c"]
        configuration.tickThreads = 2
        configuration.usesTickThreadsOnVirtualClock = true
        configuration.tokenSeed = 7
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        #expect(host.tickThreadCount == 2 && host.tickThread(ofRoom: "b") == 1)
        var sessions: [ClientSession<DotsGame>] = []
        for room in ["a", "b", "c", "b"] {
            var clientConfiguration = ClientConfiguration()
            clientConfiguration.room = room
            let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
            session.connect(over: network.connect())
            sessions.append(session)
        }
        func run(_ host: Host<DotsGame>, ticks: Int) {
            for _ in 0..<ticks {
                host.advance()
                for session in sessions { session.tick(input: DotsGame.Input(dx: 1, dy: 0)) }
                clock.advance(by: .milliseconds(50))
            }
        }
        run(host, ticks: 40)
        #expect(host.pool != nil, "the rooms ran on the pool's threads")
        let state = host.exportState()
        #expect(state.rooms.map(\.name) == ["a", "b", "c"])
        #expect(state.rooms.map(\.clients.count) == [1, 2, 1])
        for saved in state.rooms {
            let room = try #require(host.room(named: saved.name))
            #expect(saved.tick == room.tick && saved.world.players == room.state.players, "room \(saved.name) exported as it stands")
        }
        let ids = sessions.map(\.clientID)

        let secondNetwork = SimulatedNetwork(clock: clock, seed: 2)
        var restoredConfiguration = configuration
        restoredConfiguration.tokenSeed = 8
        let restored = try Host(game: game, listener: secondNetwork, clock: clock, configuration: restoredConfiguration, restoring: state)
        #expect(["a", "b", "c"].map { restored.tickThread(ofRoom: $0) } == [0, 1, 0])
        let again = restored.exportState()
        #expect(again.rooms.map(\.tick) == state.rooms.map(\.tick) && again.rooms.map(\.clients) == state.rooms.map(\.clients))
        for session in sessions { session.connect(over: secondNetwork.connect()) }
        run(restored, ticks: 20)
        #expect(sessions.map(\.clientID) == ids, "every client resumed with its own id")
        #expect(sessions.allSatisfy { $0.status == .connected })
        for (index, room) in ["a", "b", "c", "b"].enumerated() {
            let id = try #require(ids[index])
            #expect(restored.room(named: room)?.isConnected(id) == true, "client \(id) is back in room \(room)")
        }
    }

    @Test("tickThreads is clamped to 1...maximumTickThreads, and a virtual clock ticks inline")
    func tickThreadLimits() {
        func count(_ threads: Int, clock: any TickClock = MonotonicClock()) -> Int {
            var configuration = HostConfiguration()
            configuration.tickThreads = threads
            return Host(game: DotsGame(), listener: SimulatedNetwork(clock: clock, seed: 1), clock: clock, configuration: configuration)
                .tickThreadCount
        }
        #expect(count(0) == 1 && count(1) == 1 && count(2) == 2)
        #expect(count(HostConfiguration.maximumTickThreads) == HostConfiguration.maximumTickThreads)
        #expect(count(HostConfiguration.maximumTickThreads + 1) == HostConfiguration.maximumTickThreads)
        #expect(count(8, clock: VirtualClock()) == 1, "a virtual clock ticks every room inline")
        #expect(HostConfiguration().tickThreads == HostConfiguration.processorCount && HostConfiguration.processorCount >= 1)
    }

    @Test("the allocator takes the settings that keep a tick thread's freed memory (glibc)")
    func allocatorTuning() {
        #if canImport(Glibc)
        #expect(AllocatorTuning.keepFreedHeapMemory(), "mallopt should accept the trim and mmap thresholds")
        #expect(
            AllocatorTuning.keepFreedHeapMemory(upTo: 1 << 20, largeBlockBytes: 1 << 40),
            "a large block size past glibc's 32 MiB maximum is clamped to it, not refused")
        AllocatorTuning.keepFreedHeapMemory()
        #else
        #expect(!AllocatorTuning.keepFreedHeapMemory(), "only glibc has these settings")
        #endif
    }
}

@Suite("Tick pass queue")
struct TickPassQueueTests {
    @Test("a thread takes its own rooms from the front, then the others' from the back, each once")
    func claimOrder() {
        let queue = TickPassQueue(shares: [[1, 2, 3], [4, 5], []])
        #expect(queue.claim(forThread: 0) == 1)
        #expect(queue.claim(forThread: 1) == 4)
        #expect(queue.claim(forThread: 2) == 3, "an idle thread takes the last room of the next list with rooms left")
        #expect(queue.claim(forThread: 1) == 5)
        #expect(queue.claim(forThread: 1) == 2, "thread 1, done with its own, takes thread 0's last untaken room")
        #expect(queue.claim(forThread: 0) == nil)
        #expect(queue.claim(forThread: 1) == nil && queue.claim(forThread: 2) == nil)
    }

    @Test("two threads claiming at once get every room exactly once")
    func concurrentClaims() async {
        let rooms = Array(0..<2000)
        let queue = TickPassQueue(shares: [Array(rooms[..<1000]), Array(rooms[1000...])])
        let claimed = await withTaskGroup(of: [Int].self) { group in
            for thread in 0..<2 {
                group.addTask {
                    var mine: [Int] = []
                    while let room = queue.claim(forThread: thread) { mine.append(room) }
                    return mine
                }
            }
            var all: [Int] = []
            for await mine in group { all += mine }
            return all
        }
        #expect(claimed.sorted() == rooms)
    }
}

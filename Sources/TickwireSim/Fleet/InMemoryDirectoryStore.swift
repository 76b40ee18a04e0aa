import Synchronization
import TickwireFoundation

/// The store behind ``InMemoryRoomDirectory`` views: claims with a time to live on a
/// ``TickClock``, saved room states, each process's public URL and reported rooms, and the test
/// controls ``kill(process:)``, ``partition(process:)`` and ``heal(process:)``.
///
/// Thread-safe: the state lives in one `Mutex`.
public final class InMemoryDirectoryStore: Sendable {
    struct Claim {
        var process: String
        var expiresAt: Timestamp
    }

    struct Process {
        var url: String
        /// Where it serves UDP (`udp://HOST:PORT`), or `nil`.
        var udpURL: String?
        var lastSeen: Timestamp
        var isKilled = false
        var isPartitioned = false
        /// The rooms the process believes it holds (it was told `.here`), to report lost ones.
        var held: Set<String> = []
        var loads: [RoomLoad] = []
    }

    struct State {
        var claims: [String: Claim] = [:]
        var saved: [String: [UInt8]] = [:]
        var processes: [String: Process] = [:]
        /// When each (process, room) question was first asked, for ``answerDelay``.
        var questions: [String: Timestamp] = [:]
        /// The matchmaker's rooms and reservations.
        var ledger = SeatLedger()
        /// Where the names of the rooms the matchmaker makes come from.
        var roomNames = SplitMix64(seed: 0x6D61_7463_686D_6B72)
        /// The last guest number given (``InMemoryDirectoryStore/nextGuestNumber()``).
        var guestNumbers: UInt64 = 0
    }

    /// The clock claims expire on.
    public let clock: any TickClock
    /// How long a claim lives without a heartbeat, and how long a silent process counts as live.
    public let claimTTL: Duration
    /// How long a placement question waits before it is answered (``RoomPlacement/pending`` until
    /// then), standing in for the round trip to a real store.
    public let answerDelay: Duration
    let state = Mutex(State())

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - clock: The clock claims expire on (a ``VirtualClock`` in tests).
    ///   - claimTTL: How long a claim lives without a heartbeat (default 3 s).
    ///   - answerDelay: How long a placement question stays pending (default 0: answered at once).
    public init(clock: any TickClock, claimTTL: Duration = .seconds(3), answerDelay: Duration = .zero) {
        self.clock = clock
        self.claimTTL = claimTTL
        self.answerDelay = answerDelay
    }

    /// A process's view of the store; the process is registered with its URL (or, when it is
    /// registered already, its URLs are updated: for a server that learns its ports after binding).
    ///
    /// - Parameters:
    ///   - id: The process's id, unique in the fleet.
    ///   - publicURL: Where clients reach it.
    ///   - udpURL: Where it serves UDP (`udp://HOST:PORT`), or `nil` (default) for nowhere.
    /// - Returns: Its directory.
    public func directory(forProcess id: String, publicURL: String, udpURL: String? = nil) -> InMemoryRoomDirectory {
        let now = clock.now
        state.withLock { state in
            if state.processes[id] != nil {
                state.processes[id]?.url = publicURL
                state.processes[id]?.udpURL = udpURL
            } else {
                state.processes[id] = Process(url: publicURL, udpURL: udpURL, lastSeen: now)
            }
        }
        return InMemoryRoomDirectory(store: self, processID: id)
    }

    func url(of process: String) -> String? {
        state.withLock { $0.processes[process]?.url }
    }

    /// The UDP address registered by the process whose public URL is `url`.
    func udpURL(ofProcessAt url: String) -> String? {
        state.withLock { state in state.processes.values.first { $0.url == url }?.udpURL }
    }

    /// Kills a process, for tests: from now on its calls are ignored (it cannot renew its claims,
    /// which expire after ``claimTTL``) and it is no other process's ``RoomDirectory/anotherProcessURL()``.
    ///
    /// - Parameter process: The process's id.
    public func kill(process: String) {
        state.withLock { $0.processes[process]?.isKilled = true }
    }

    /// Cuts a process off the store, for tests: its placements are ``RoomPlacement/unavailable``,
    /// its reports and saves are lost, and its claims expire after ``claimTTL``.
    ///
    /// - Parameter process: The process's id.
    public func partition(process: String) {
        state.withLock { $0.processes[process]?.isPartitioned = true }
    }

    /// Ends a ``partition(process:)``.
    ///
    /// - Parameter process: The process's id.
    public func heal(process: String) {
        state.withLock { $0.processes[process]?.isPartitioned = false }
    }

    /// The process holding `room` now (a live claim), for tests.
    ///
    /// - Parameter room: The room's name.
    /// - Returns: The process's id, or `nil`.
    public func holder(ofRoom room: String) -> String? {
        let now = clock.now
        return state.withLock { state in state.claims[room].flatMap { $0.expiresAt > now ? $0.process : nil } }
    }

    /// The state last saved for `room`, for tests.
    ///
    /// - Parameter room: The room's name.
    /// - Returns: The bytes, or `nil`.
    public func savedState(ofRoom room: String) -> [UInt8]? {
        state.withLock { $0.saved[room] }
    }

    /// The rooms a process reported last, for tests.
    ///
    /// - Parameter process: The process's id.
    /// - Returns: Its rooms.
    public func reportedRooms(of process: String) -> [RoomLoad] {
        state.withLock { $0.processes[process]?.loads ?? [] }
    }

    // MARK: The views' calls

    /// Whether `process` reaches the store; if so, its heartbeat: it is seen now and its claims renewed.
    func reach(_ process: String, _ state: inout State, now: Timestamp) -> Bool {
        guard let record = state.processes[process], !record.isKilled, !record.isPartitioned else { return false }
        state.processes[process]?.lastSeen = now
        for (room, claim) in state.claims where claim.process == process && claim.expiresAt > now {
            state.claims[room]?.expiresAt = now + claimTTL
        }
        return true
    }

    func placement(ofRoom room: String, for process: String) -> RoomPlacement {
        let now = clock.now
        return state.withLock { state in
            guard reach(process, &state, now: now) else { return .unavailable }
            let question = process + "\u{0}" + room
            let askedAt = state.questions[question] ?? now
            guard now - askedAt >= answerDelay else {
                state.questions[question] = askedAt
                return .pending
            }
            state.questions[question] = nil
            if let claim = state.claims[room], claim.expiresAt > now, claim.process != process {
                return .elsewhere(url: state.processes[claim.process]?.url ?? "")
            }
            state.claims[room] = Claim(process: process, expiresAt: now + claimTTL)
            state.processes[process]?.held.insert(room)
            return .here(savedState: state.saved[room])
        }
    }

    func report(rooms: [RoomLoad], for process: String) {
        let now = clock.now
        state.withLock { state in
            guard reach(process, &state, now: now) else { return }
            state.processes[process]?.loads = rooms
            state.ledger.apply(report: rooms, from: process)
        }
    }

    func save(room: String, state bytes: [UInt8], for process: String) {
        let now = clock.now
        state.withLock { state in
            guard reach(process, &state, now: now) else { return }
            guard let claim = state.claims[room], claim.process == process, claim.expiresAt > now else { return }
            state.saved[room] = bytes
        }
    }

    func release(room: String, for process: String) {
        let now = clock.now
        state.withLock { state in
            guard reach(process, &state, now: now) else { return }
            state.processes[process]?.held.remove(room)
            if state.claims[room]?.process == process { state.claims[room] = nil }
        }
    }

    func takeLostRooms(for process: String) -> [String] {
        let now = clock.now
        return state.withLock { state in
            guard reach(process, &state, now: now), let held = state.processes[process]?.held else { return [] }
            var lost: [String] = []
            for room in held.sorted() {
                if let claim = state.claims[room], claim.expiresAt > now {
                    guard claim.process != process else { continue }
                    lost.append(room)
                } else {
                    // Expired while unreachable, and no one else took it: take it back.
                    state.claims[room] = Claim(process: process, expiresAt: now + claimTTL)
                }
            }
            for room in lost { state.processes[process]?.held.remove(room) }
            return lost
        }
    }

    func anotherProcessURL(than process: String) -> String? {
        let now = clock.now
        return state.withLock { state in
            guard reach(process, &state, now: now) else { return nil }
            let live = state.processes.filter { id, record in
                id != process && !record.isKilled && !record.isPartitioned && now - record.lastSeen <= claimTTL
            }
            let best = live.min { a, b in
                let loadA = a.value.loads.reduce(0) { $0 + $1.clients }, loadB = b.value.loads.reduce(0) { $0 + $1.clients }
                return loadA != loadB ? loadA < loadB : a.key < b.key
            }
            return best?.value.url
        }
    }
}

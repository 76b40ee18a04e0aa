import Synchronization
import TickwireFoundation
@_spi(LoopThread) import TickwireIO
import TickwireSim

/// A ``RoomDirectory`` on Redis: the rooms of a fleet of host processes, claimed atomically
/// with `SET NX` and a TTL, renewed by a heartbeat, with each room's saved state beside its claim.
///
/// Placement: a room goes to the process that gets its first hello. An unknown room is claimed
/// at once (``RoomPlacement/here(savedState:)`` with the state its last holder saved); a room
/// another live process holds answers ``RoomPlacement/elsewhere(url:)`` with that process's
/// public URL; a room whose holder is dead (its registration gone, its claim not expired yet)
/// stays ``RoomPlacement/pending`` until the claim expires, at most ``RedisDirectoryConfiguration/claimTTL``.
///
/// Faults: while Redis cannot be reached, rooms this process holds stay here and every other
/// room answers ``RoomPlacement/unavailable`` (the host runs it here, standalone). The client
/// retries with backoff; when Redis is back, the directory registers again and claims again every
/// room it holds or runs (those another process claimed meanwhile come out of
/// ``takeLostRooms()``). The claim in Redis wins.
///
/// Every method returns at once from what the directory knows; its I/O runs on its
/// ``EventLoop``. Thread-safe: the state the host reads is behind a `Mutex`.
public final class RedisRoomDirectory: RoomDirectory {
    /// Keys, ids, intervals and the client's configuration.
    public let configuration: RedisDirectoryConfiguration
    /// The loop the directory's I/O runs on.
    public let loop: EventLoop
    let client: RedisClient
    let state = Mutex(State())
    /// The heartbeat's timer; loop thread only.
    let heartbeat = LoopBound<TimerHandle?>(nil)
    private let isLoopOwned: Bool

    /// What the host's calls and the loop's replies share.
    struct State {
        var isConnected = false
        var isStopped = false
        /// The rooms this process holds, with the last state saved for each.
        var held: [String: HeldRoom] = [:]
        /// Answers for rooms not held, each handed out once, and dropped unasked after a claim's
        /// TTL (stale by then; and room names that nobody asks about again must not pile up).
        var answers: [String: Answer] = [:]
        /// Rooms whose claim is being asked for.
        var resolving: Set<String> = []
        /// Rooms whose holder is dead, not asked for again before this monotonic time.
        var retryAfter: [String: UInt64] = [:]
        /// Rooms lost, not yet taken by the host.
        var lost: [String] = []
        /// The host's last report.
        var loads: [RoomLoad] = []
        /// Rooms released or lost that the host may still report for a while: never claimed
        /// again by a heartbeat (only by a placement), forgotten once a report leaves them out.
        var relinquished: Set<String> = []
        /// Set by ``RedisRoomDirectory/leave()``: the heartbeat no longer writes the registration.
        var isLeaving = false
        /// The other live processes' public URLs, least loaded first.
        var otherURLs: [String] = []
        /// The UDP addresses of the processes whose records were read (claim answers and
        /// heartbeats), by public URL; replaced by each heartbeat's reading.
        var udpURLs: [String: String] = [:]
    }

    /// An answer from Redis about a room not held here, and when it came (monotonic ns).
    struct Answer {
        var placement: RoomPlacement
        var time: UInt64
    }

    /// A room this process holds.
    struct HeldRoom {
        /// The state its last holder (or this process) saved, `nil` when none was.
        var savedState: [UInt8]?
    }

    /// Creates a directory and starts connecting to Redis; placements answer
    /// ``RoomPlacement/unavailable`` until the connection opens.
    ///
    /// - Parameters:
    ///   - configuration: Keys, ids, intervals and the client's configuration.
    ///   - loop: A loop to share, or `nil` for one of the directory's own.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public init(configuration: RedisDirectoryConfiguration, loop: EventLoop? = nil) throws(SystemError) {
        self.configuration = configuration
        (self.loop, isLoopOwned) = try EventLoop.sharedOrOwn(loop)
        let link = DirectoryLink()
        client = try RedisClient(url: configuration.url, configuration: configuration.client, loop: self.loop) { isConnected in
            link.directory?.connectionChanged(isConnected)
        }
        link.directory = self
        client.start()
    }

    /// Stops the heartbeat and closes the connection, without releasing anything: claims and the
    /// registration expire after ``RedisDirectoryConfiguration/claimTTL``, as when the process
    /// dies. Release rooms first (``release(room:)``) to hand them over at once.
    public func stop() {
        state.withLock { $0.isStopped = true }
        loop.execute { [self] in
            if let timer = heartbeat.value { loop.cancel(timer) }
            heartbeat.value = nil
        }
        client.stop()
        if isLoopOwned { loop.stop() }
    }

    // MARK: Status, for metrics

    /// Whether the directory is connected to Redis now.
    public var isConnected: Bool { state.withLock { $0.isConnected } }
    /// How many times the connection to Redis has opened again after the first time.
    public var reconnectCount: Int { client.reconnectCount }
    /// How many rooms this process holds a claim on.
    public var claimsHeld: Int { state.withLock { $0.held.count } }
    /// This process's id in the fleet.
    public var processID: String { configuration.processID }

    // MARK: RoomDirectory

    /// Where `room` lives, claiming it for this process when no live process holds it.
    ///
    /// - Parameter room: The room's name.
    /// - Returns: ``RoomPlacement/here(savedState:)`` for a room held here (with its last saved
    ///   state), an answer from Redis once it has come (each ``RoomPlacement/elsewhere(url:)`` is
    ///   handed out once: the next call asks again), ``RoomPlacement/unavailable`` while Redis
    ///   cannot be reached, else ``RoomPlacement/pending``.
    public func placement(ofRoom room: String) -> RoomPlacement {
        let (now, ttl) = (MonotonicTime.now(), configuration.claimTTL.nanoseconds)
        let (answer, shouldAsk) = state.withLock { state -> (RoomPlacement, Bool) in
            if let held = state.held[room] { return (.here(savedState: held.savedState), false) }
            if let answer = state.answers.removeValue(forKey: room), now < answer.time || now - answer.time <= ttl {
                return (answer.placement, false)
            }
            guard state.isConnected, !state.isStopped else { return (.unavailable, false) }
            if state.resolving.contains(room) { return (.pending, false) }
            if let time = state.retryAfter[room], now < time { return (.pending, false) }
            state.retryAfter[room] = nil
            state.resolving.insert(room)
            return (.pending, true)
        }
        if shouldAsk { loop.execute { [self] in claim(room) } }
        return answer
    }

    /// Keeps the host's report for this process's registration, written at the next heartbeat.
    ///
    /// - Parameter rooms: Every room this process holds, with its clients and capacity.
    public func report(rooms: [RoomLoad]) {
        state.withLock { state in
            state.loads = rooms
            if !state.relinquished.isEmpty { state.relinquished.formIntersection(rooms.map(\.name)) }
        }
    }

    /// Stores `state` for `room` in Redis if this process holds it (a room another process
    /// claimed meanwhile is reported lost instead). While Redis cannot be reached the state is
    /// only kept here: the next save after the connection is back stores it.
    ///
    /// - Parameters:
    ///   - room: The room's name.
    ///   - state: The room's state, encoded.
    public func save(room: String, state roomState: [UInt8]) {
        let isSending = state.withLock { state -> Bool in
            guard state.held[room] != nil else { return false }
            state.held[room]?.savedState = roomState
            return state.isConnected
        }
        if isSending { loop.execute { [self] in store(room, roomState) } }
    }

    /// Gives up this process's claim on `room` (deleted in Redis only while it holds this
    /// process's id); the saved state stays for the next holder.
    ///
    /// - Parameter room: The room's name.
    public func release(room: String) {
        let wasHeld = state.withLock { state -> Bool in
            state.loads.removeAll { $0.name == room }
            state.relinquished.insert(room)
            return state.held.removeValue(forKey: room) != nil
        }
        if wasHeld { loop.execute { [self] in unclaim(room) } }
    }

    /// The rooms this process held and another process holds now; each is reported once.
    ///
    /// - Returns: The rooms' names.
    public func takeLostRooms() -> [String] {
        state.withLock { state in
            defer { state.lost = [] }
            return state.lost
        }
    }

    /// The public URL of the least loaded other live process, as of the last heartbeat.
    ///
    /// - Returns: A URL other than this process's own, or `nil` when no other process is known.
    public func anotherProcessURL() -> String? {
        state.withLock { $0.otherURLs.first }
    }

    /// The UDP address the process at `url` registered (its record's `udp` field), as of the
    /// last heartbeat or claim answer that read its record.
    ///
    /// - Parameter url: The process's public URL.
    /// - Returns: Its `udp://HOST:PORT`, or `nil` when it registered none or is not known.
    public func udpURL(ofProcessAt url: String) -> String? {
        state.withLock { $0.udpURLs[url] }
    }

    /// Takes this process out of the fleet's registry at once (other processes stop sending
    /// clients here), for a process that drains: release its rooms, then leave, then stop.
    /// Claims still held are renewed until ``stop()``; what `leave` and ``release(room:)`` send
    /// before ``stop()`` still reaches Redis.
    public func leave() {
        state.withLock { $0.isLeaving = true }
        loop.execute { [self] in
            client.send(RedisCommand("DEL", configuration.processKey(configuration.processID))) { _ in }
            client.send(RedisCommand("SREM", configuration.processSetKey, configuration.processID)) { _ in }
        }
    }

    /// Moves a room to the lost rooms (another process holds its claim now) if this process
    /// held it, or ran it without a claim (standalone); each room once.
    func markLost(_ room: String) {
        state.withLock { state in
            let wasHeld = state.held.removeValue(forKey: room) != nil
            let wasRun = state.loads.contains { $0.name == room } && !state.relinquished.contains(room)
            guard wasHeld || wasRun, !state.lost.contains(room) else { return }
            state.loads.removeAll { $0.name == room }
            state.relinquished.insert(room)
            state.lost.append(room)
        }
    }
}

/// The directory as its client's connection handler sees it: weak, so that the directory can go
/// away. `Sendable` because the reference is behind a `Mutex`.
final class DirectoryLink: Sendable {
    private struct Weak {
        weak var directory: RedisRoomDirectory?
    }

    private let target = Mutex(Weak())

    var directory: RedisRoomDirectory? {
        get { target.withLock { $0.directory } }
        set { target.withLock { $0.directory = newValue } }
    }
}

import TickwireCodec
import TickwireFoundation

/// A server process's game host: accepts connections from a ``TransportListener``,
/// performs the handshake, and runs any number of named ``Room``s, each with its own
/// world, tick loop and clients.
///
/// The handshake: a connection's first frame must be a hello. It is rejected, with a
/// reason, words for a person that say what is wrong, and then a close with the reason's
/// code (``Message/Reject/Reason/closeCode``, PROTOCOL.md 5.5), when it is not a well-formed
/// uncompressed hello, when its protocol version or schema fingerprint differs from the
/// host's, when it names a room the host does not run, or when the room is full of connected
/// players (a full room first lets its oldest held slot go, see ``Room``). A hello carrying
/// the resume token of a client still within its grace period gets that client's id and
/// player back (and a full snapshot next); an unknown or expired token joins as a new player.
/// Everything else is the room's work.
///
/// Rooms opened on demand (``HostConfiguration/createsRoomsOnDemand``) close once they have
/// been empty, without players or held slots, for ``HostConfiguration/idleRoomTimeout``;
/// their place counts towards ``HostConfiguration/maximumRooms`` again. Rooms the
/// configuration names, and rooms opened with ``openRoom(named:)``, stay.
///
/// ``exportState()`` and ``init(game:listener:clock:configuration:restoring:)`` carry the rooms'
/// worlds and resumable clients over a restart of the server process.
///
/// Driven by calls: ``advance()`` (tests, on a ``VirtualClock``) or ``run(until:)`` (real
/// time). Not thread-safe: one thread drives it (calls every method and reads every room);
/// transports fill their inboxes from any thread.
///
/// Tick threads: on a real-time clock the rooms tick on ``HostConfiguration/tickThreads``
/// threads, the driving thread and more of the host's own. Each room has a home thread, the
/// one with the fewest rooms when it opened. Each ``advance()`` is one pass: the driving
/// thread accepts connections and runs every handshake (room placement, capacity, held slots,
/// resume tokens, on-demand rooms) while no room ticks; then every thread with a room due
/// ticks its rooms, at the same time, each room's inbox, tick and sends on one thread; a
/// thread that has finished its own rooms takes over, one by one, rooms another thread has not
/// reached yet, so that no thread idles while the pass waits for a late one. The driving
/// thread waits for all of them before it goes on (closing idle rooms, and
/// anything its caller does between passes, such as ``exportState()``). So a room is only ever
/// touched by one thread at a time, and the handshakes need no lock. On a virtual clock
/// every room ticks inline on the driving thread, as with one tick thread.
public final class Host<G: Game> {
    struct Pending {
        var connection: any TransportConnection
        var acceptedAt: Timestamp
        /// A hello read already, waiting for the room directory to place its room.
        var hello: Message.Hello?
    }

    /// The game hosted.
    public let game: G
    /// The host's configuration.
    public let configuration: HostConfiguration
    /// The clock every room ticks on.
    public let clock: any TickClock
    let listener: any TransportListener
    var roomsByName: [String: Room<G>] = [:]
    var roomOrder: [String] = []
    var pending: [Pending] = []
    /// The rooms opened for a hello (not named by the configuration nor by ``openRoom(named:)``),
    /// with the time each became empty: these close after ``HostConfiguration/idleRoomTimeout``.
    var onDemandRooms: [String: Timestamp?] = [:]
    /// Whether ``shutdown(text:)`` ran: every later hello is rejected as shutting down.
    public internal(set) var isShuttingDown = false
    /// Rooms opened on demand that closed after standing empty, over the host's life.
    public private(set) var idleRoomsClosed = 0
    /// The id the next new client gets (never 0); ``init(game:listener:clock:configuration:restoring:)`` moves it past restored ids.
    var nextClientID: UInt32 = 1
    var seededTokens: SplitMix64?
    /// The connect tokens that joined, each until it expires (PROTOCOL.md 5.3.1).
    var usedConnectTokens: UsedConnectTokens
    /// How long each pass of ``advance()`` that ran a tick took: accepting, handshakes and the
    /// due ticks of every room, each tick thread's rooms one after another, the threads side by
    /// side. This is what a tick period must cover, however many rooms there are; stats messages
    /// (PROTOCOL.md 5.11) report it.
    public private(set) var passStatistics = TickStatistics()
    /// How many threads tick the rooms: ``HostConfiguration/tickThreads`` (clamped to
    /// 1...``HostConfiguration/maximumTickThreads``) on a real-time clock or with
    /// ``HostConfiguration/usesTickThreadsOnVirtualClock``, else 1 (inline on the driving thread).
    public let tickThreadCount: Int
    /// The home tick thread of each room (0 is the driving thread).
    var threadOfRoom: [String: Int] = [:]
    /// The threads besides the driving one, started by the first pass that needs them and
    /// stopped when ``run(until:)`` returns and when the host goes.
    var pool: TickThreadPool?
    /// Handshakes refused so far, by reason.
    public internal(set) var rejections: [Message.Reject.Reason: Int] = [:]
    /// Hellos that carried a resume token (clients reconnecting), resumed or not, over the host's life.
    public internal(set) var reconnects = 0
    /// Hellos whose resume token found its client within the grace period, which got its id and
    /// player back, over the host's life.
    public internal(set) var resumes = 0
    /// New players admitted (hellos that did not resume a client), over the host's life.
    public internal(set) var joins = 0
    /// The host's figures for a metrics endpoint (``HostMetrics``; register it with a
    /// ``MetricsRegistry``), published by the driving thread after each pass that ticked or
    /// handshook, readable from any thread.
    public let publishedMetrics = PublishedMetrics(HostMetrics())
    /// Hears of every join, resume, departure and refusal (``HostEvent``), on the thread that
    /// drives the host: joins, resumes and refusals as ``advance()`` handshakes, departures
    /// after each pass, in the order of the rooms (a kick between passes is reported by the
    /// next ``advance()``), and a room's players at once when ``closeRoom(named:text:)`` closes
    /// it or its room moves to another process of the fleet. `nil` (default): nothing is reported.
    ///
    /// ```swift
    /// host.onEvent = { event in
    ///     if event.kind == .left, let id = event.clientID { scoreboard.remove(id) }
    /// }
    /// ```
    public var onEvent: ((HostEvent) -> Void)?
    /// The figures of closed rooms, kept for ``publishedMetrics``.
    var metricsBookkeeping = HostMetricsBookkeeping()
    /// The room directory and what the host needs to use it, or `nil` for a standalone host.
    var fleet: FleetLink<G>?
    /// The host's figures of its work with a room directory (all 0 without one).
    public internal(set) var fleetMetrics = FleetMetrics()

    /// Creates a host and the rooms its configuration names.
    ///
    /// - Parameters:
    ///   - game: The game to host.
    ///   - listener: Where new connections come from.
    ///   - clock: The clock to tick on.
    ///   - configuration: Rooms, rates, limits and policies.
    public convenience init(
        game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration = HostConfiguration()
    ) {
        self.init(game: game, listener: listener, clock: clock, configuration: configuration, fleet: nil)
    }

    /// Creates a host, standalone (`fleet` `nil`: it opens the rooms its configuration names) or
    /// with a room directory (it opens rooms as the directory places them).
    init(game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration, fleet: FleetLink<G>?) {
        self.game = game
        self.listener = listener
        self.clock = clock
        self.configuration = configuration
        self.seededTokens = configuration.tokenSeed.map(SplitMix64.init(seed:))
        self.usedConnectTokens = UsedConnectTokens(capacity: configuration.maximumUsedTokens)
        let threads = min(max(configuration.tickThreads, 1), HostConfiguration.maximumTickThreads)
        self.tickThreadCount = clock.isRealTime || configuration.usesTickThreadsOnVirtualClock ? threads : 1
        self.fleet = fleet
        if fleet == nil {
            for name in configuration.rooms { _ = openRoom(named: name) }
        }
    }

    deinit {
        pool?.stop()
    }

    /// The rooms' names, in the order they were opened.
    public var roomNames: [String] { roomOrder }

    /// The room named `name`, if the host runs it. Read or change it on the thread that drives
    /// the host, between calls of ``advance()`` (in ``run(until:)``, from its `shouldStop`): the
    /// room ticks on a tick thread only while a pass runs.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: The room, or `nil`.
    public func room(named name: String) -> Room<G>? { roomsByName[name] }

    /// Opens a room (or returns the one already open under that name) that stays open until
    /// ``closeRoom(named:text:)``.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: The room.
    @discardableResult
    public func openRoom(named name: String) -> Room<G> {
        if let room = roomsByName[name] {
            if onDemandRooms[name] != nil { onDemandRooms[name] = nil }  // named now: it stays
            return room
        }
        let room = Room(name: name, game: game, configuration: configuration, clock: clock)
        room.serverTickStatistics = { [weak self] in self?.passStatistics }
        roomsByName[name] = room
        roomOrder.append(name)
        threadOfRoom[name] = leastLoadedTickThread()
        return room
    }

    /// Accepts new connections, advances handshakes, runs every room's due ticks (each room on
    /// one tick thread, the threads side by side, and waits for them), and closes rooms opened
    /// on demand that have stood empty for ``HostConfiguration/idleRoomTimeout``.
    public func advance() {
        let now = clock.now
        for connection in listener.acceptPending() { pending.append(Pending(connection: connection, acceptedAt: now)) }
        let handshook = !pending.isEmpty
        listener.batchingSends { handshake(now: now) }
        var passDuration: Duration?
        if runTickPass() {
            passDuration = clock.now - now
            passStatistics.record(clock.now - now, period: .nanoseconds(1_000_000_000 / Int64(max(1, configuration.tickRate))))
        }
        closeIdleRooms(now: now)
        for name in roomOrder {
            if let room = roomsByName[name] { reportDepartures(of: room) }
        }
        if passDuration != nil || handshook || roomOrder.count != metricsBookkeeping.publishedRoomCount {
            publishMetrics(passDuration: passDuration)
        }
        if fleet != nil { directoryPass(now: now) }
    }

    /// Reports ``onEvent`` an event (on the driving thread).
    func report(_ event: HostEvent) {
        onEvent?(event)
    }

    /// Reports the players a room removed since the last report, and forgets them.
    func reportDepartures(of room: Room<G>) {
        guard !room.departures.isEmpty else { return }
        let departures = room.departures
        room.departures.removeAll(keepingCapacity: true)
        for (id, why, identity) in departures {
            report(HostEvent(kind: .left, room: room.name, clientID: id, departure: why, identity: identity))
        }
    }

    /// Opens a room for a hello that names it: like ``openRoom(named:)``, but the room closes
    /// once it has stood empty for ``HostConfiguration/idleRoomTimeout``.
    func openRoomOnDemand(named name: String) -> Room<G> {
        let room = openRoom(named: name)
        onDemandRooms[name] = .some(nil)
        return room
    }

    private func closeIdleRooms(now: Timestamp) {
        for (name, emptySince) in onDemandRooms {
            guard let room = roomsByName[name] else {
                onDemandRooms[name] = nil
                continue
            }
            guard room.clientIDs.isEmpty else {
                if emptySince != nil { onDemandRooms[name] = .some(nil) }
                continue
            }
            guard let since = emptySince else {
                onDemandRooms[name] = .some(now)
                continue
            }
            if now - since >= configuration.idleRoomTimeout {
                closeRoom(named: name)
                idleRoomsClosed += 1
            }
        }
    }

    /// Closes a room: each of its connected clients gets a disconnect message and a close with
    /// code 4006 (room closed), its held slots are dropped, and the room's place counts towards
    /// ``HostConfiguration/maximumRooms`` again. A later hello naming it opens a fresh room
    /// when the host creates rooms on demand, and is rejected otherwise. With a room directory,
    /// the room's state is saved a last time and its claim released first.
    ///
    /// - Parameters:
    ///   - name: The room's name; nothing happens when the host runs no such room.
    ///   - text: Words for the players, sent in the disconnect message and the close.
    public func closeRoom(named name: String, text: String = "the room closed") {
        guard roomsByName[name] != nil else { return }
        saveAndRelease(room: name)
        removeRoom(named: name, why: .roomClosed) { room, now in room.closeAll(text: text, now: now) }
    }

    /// Takes a room out of the host, after `farewell` has ended its clients' connections; its
    /// players are reported as having left for `why`.
    func removeRoom(named name: String, why: HostEvent.Departure, farewell: (Room<G>, Timestamp) -> Void) {
        guard let room = roomsByName.removeValue(forKey: name) else { return }
        reportDepartures(of: room)
        for id in room.clientIDs {
            report(HostEvent(kind: .left, room: name, clientID: id, departure: why, identity: room.clients[id]?.identity))
        }
        retireMetrics(of: room)
        roomOrder.removeAll { $0 == name }
        onDemandRooms[name] = nil
        threadOfRoom[name] = nil
        fleet?.unclaimed.remove(name)
        listener.batchingSends { farewell(room, clock.now) }
    }

    /// Stops taking players before the process exits: every connected client of every room
    /// gets a disconnect message (server shutting down) and a close with code 1001, every
    /// connection still in its handshake a reject (server shutting down) and the same close,
    /// and from now on every hello is rejected so. The rooms and their held slots stay, for
    /// ``exportState()``.
    ///
    /// - Parameter text: Words for the players.
    public func shutdown(text: String = "the server is shutting down") {
        isShuttingDown = true
        let now = clock.now
        listener.batchingSends {
            for entry in pending { reject(entry.connection, .serverShuttingDown, text) }
            pending.removeAll()
            for name in roomOrder { roomsByName[name]?.disconnectAll(reason: .serverShuttingDown, text: text, now: now) }
        }
        publishMetrics(passDuration: nil)
    }

    /// Runs the host in real time until `shouldStop` returns `true`: sleeps to the next room
    /// deadline (at most 5 ms, to answer handshakes promptly), then advances. Returns once
    /// every tick thread has stopped (they start again with the next ``advance()``).
    ///
    /// - Parameter shouldStop: Checked before every sleep, on the calling thread, between passes
    ///   (so it may read the rooms and call ``exportState()``).
    public func run(until shouldStop: () -> Bool) {
        defer { stopTickThreads() }
        while !shouldStop() {
            let soonest = roomOrder.compactMap { roomsByName[$0]?.loop.nextDeadline }.min()
            let limit = clock.now + .milliseconds(5)
            clock.sleep(until: min(soonest ?? limit, limit))
            advance()
        }
    }
}

@available(*, unavailable)
extension Host: Sendable {}

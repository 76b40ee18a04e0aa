import TickwireFoundation

/// The matchmaker over the in-memory store: reservations and listings for tests and for one
/// machine, with the same rules a Redis store keeps in one script. A room the matchmaker makes is
/// claimed at once for the process it places it on, so that a hello reaching any other process is
/// redirected there.
extension InMemoryDirectoryStore {
    /// Reserves a seat for `player`, atomically: the seat is chosen and counted under one lock, so
    /// concurrent requests never put more players in a room than its capacity.
    ///
    /// A player holds one reservation at a time: a `joinOrCreate` or `join` of a mode in whose
    /// room the player already holds one returns that room again (with a new expiry); any other
    /// request moves the reservation.
    ///
    /// - Parameters:
    /// A `join` or `joinOrCreate` never picks a room whose process is dead (killed, cut off, or
    /// silent for longer than ``claimTTL``): it picks another or makes one on a live process.
    /// A room made private (``MatchAction/create(mode:isPrivate:)``) stays private whatever its
    /// process reports.
    ///
    /// - Parameters:
    ///   - action: What the player asks for.
    ///   - player: The player's user id (from the matchmaker's `authenticate`).
    ///   - rules: The modes and the reservation's time.
    /// - Returns: The reservation.
    /// - Throws: ``MatchmakingError``.
    public func reserveSeat(_ action: MatchAction, player: String, rules: MatchmakingRules) throws(MatchmakingError) -> SeatReservation {
        let now = clock.now
        let expiresAt = now + rules.reservationTTL
        let validFor = rules.reservationTTL
        let result: Result<SeatReservation, MatchmakingError> = state.withLock { state in
            expireReservations(&state, now: now)
            func reservation(in name: String, isNew: Bool) -> SeatReservation? {
                guard let room = state.ledger.rooms[name] else { return nil }
                state.ledger.reserve(player, in: name, until: expiresAt)
                let process = state.processes[room.process]
                return SeatReservation(
                    room: name, mode: room.mode, process: room.process, processURL: process?.url ?? "", processUDPURL: process?.udpURL,
                    player: player, validFor: validFor, isNewRoom: isNew)
            }
            switch action {
            case .joinOrCreate(let mode), .join(let mode):
                guard rules.capacities[mode] != nil else { return .failure(.unknownMode(mode)) }
                let live = Set(liveProcessesByLoad(state, now: now))
                if let held = state.ledger.reservedRoom[player], let room = state.ledger.rooms[held], room.mode == mode,
                    live.contains(room.process), let again = reservation(in: held, isNew: false)
                {
                    return .success(again)
                }
                if let name = state.ledger.roomToJoin(mode: mode, liveProcesses: live), let seat = reservation(in: name, isNew: false) {
                    return .success(seat)
                }
                guard case .joinOrCreate = action else { return .failure(.noOpenRoom(mode: mode)) }
                return makeRoom(mode: mode, isPrivate: false, rules: rules, &state, now: now).flatMap { name in
                    reservation(in: name, isNew: true).map { .success($0) } ?? .failure(.noLiveProcess)
                }
            case .create(let mode, let isPrivate):
                guard rules.capacities[mode] != nil else { return .failure(.unknownMode(mode)) }
                return makeRoom(mode: mode, isPrivate: isPrivate, rules: rules, &state, now: now).flatMap { name in
                    reservation(in: name, isNew: true).map { .success($0) } ?? .failure(.noLiveProcess)
                }
            case .joinByID(let name):
                guard let room = state.ledger.rooms[name] else { return .failure(.unknownRoom(name)) }
                if state.ledger.reservedRoom[player] == name, let again = reservation(in: name, isNew: false) { return .success(again) }
                guard !room.isLocked else { return .failure(.roomLocked(name)) }
                guard room.seatsTaken < room.capacity else { return .failure(.roomFull(name)) }
                return reservation(in: name, isNew: false).map { .success($0) } ?? .failure(.unknownRoom(name))
            }
        }
        return try result.get()
    }

    /// The public open rooms the matchmaker made, across every process: of `mode`, or of every
    /// mode when `nil`; locked and private rooms are left out. Fullest first.
    ///
    /// - Parameter mode: A mode, or `nil`.
    /// - Returns: The listings.
    public func listRooms(mode: String?) -> [RoomListing] {
        let now = clock.now
        return state.withLock { state in
            expireReservations(&state, now: now)
            return state.ledger.listings(mode: mode)
        }
    }

    /// A number no other guest of this store is given: 1, 2, 3… (under the store's lock).
    ///
    /// - Returns: The number.
    public func nextGuestNumber() -> UInt64 {
        state.withLock { state in
            // Wrapping: 2^64 guests cannot be reached.
            state.guestNumbers &+= 1
            return state.guestNumbers
        }
    }

    /// The public URL of a process, for a matchmaker's answer.
    ///
    /// - Parameter process: The process's id.
    /// - Returns: Its URL, or `nil` when it is not registered.
    public func publicURL(ofProcess process: String) -> String? {
        state.withLock { $0.processes[process]?.url }
    }

    /// Drops expired reservations, and the claims of rooms made for them that never opened.
    private func expireReservations(_ state: inout State, now: Timestamp) {
        let before = state.ledger.rooms
        state.ledger.expire(now: now)
        for (name, room) in before where state.ledger.rooms[name] == nil {
            if state.claims[name]?.process == room.process, state.processes[room.process]?.held.contains(name) != true {
                state.claims[name] = nil
            }
        }
    }

    /// The live processes (not killed, not cut off, seen within the claim TTL), least loaded
    /// first: clients reported in all its rooms, plus seats reserved in its rooms for players who
    /// have not arrived (ties: the id).
    func liveProcessesByLoad(_ state: State, now: Timestamp) -> [String] {
        let live = state.processes.filter { _, record in !record.isKilled && !record.isPartitioned && now - record.lastSeen <= claimTTL }
        func load(_ id: String) -> Int {
            let reported = live[id]?.loads.reduce(0) { $0 + $1.clients } ?? 0
            let pending = state.ledger.rooms.values.lazy.filter { $0.process == id }.reduce(0) { $0 + ($1.seatsTaken - $1.reportedClients) }
            return reported + max(0, pending)
        }
        return live.keys.map { ($0, load($0)) }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    /// Makes a room of `mode` on the least loaded live process and claims it there.
    private func makeRoom(
        mode: String, isPrivate: Bool, rules: MatchmakingRules, _ state: inout State, now: Timestamp
    ) -> Result<String, MatchmakingError> {
        guard let capacity = rules.capacities[mode] else { return .failure(.unknownMode(mode)) }
        guard let process = liveProcessesByLoad(state, now: now).first else { return .failure(.noLiveProcess) }
        var name: String
        repeat {
            let suffix = String(state.roomNames.next() & 0xFFFF_FFFF, radix: 16)
            name = mode + "-" + String(repeating: "0", count: 8 - suffix.count) + suffix
        } while state.ledger.rooms[name] != nil || state.claims[name].map({ $0.expiresAt > now }) == true
        state.ledger.rooms[name] = SeatLedger.Room(mode: mode, process: process, capacity: capacity, createdAt: now)
        state.ledger.rooms[name]?.isMadePrivate = isPrivate
        state.claims[name] = Claim(process: process, expiresAt: now + claimTTL)
        return .success(name)
    }
}

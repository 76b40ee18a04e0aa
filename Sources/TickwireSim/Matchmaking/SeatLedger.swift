/// The matchmaker's accounting, one value that a store keeps under one lock (or mirrors in one
/// Redis script): the rooms it made, their seats, and which seats are reserved for whom.
///
/// Seats taken in a room are the players its process reports, plus the reservations of players
/// not among them: `anonymous clients + |reported players ∪ reserved players|`. A reserved player
/// who arrives is counted once; one who never comes stops counting when the reservation expires.
/// Every reservation is made and counted in the same step, so concurrent requests never put more
/// players in a room than its capacity.
struct SeatLedger {
    struct Room {
        var mode: String
        var process: String
        var capacity: Int
        var createdAt: Timestamp
        /// Reserved players and when each reservation expires.
        var reservations: [String: Timestamp] = [:]
        /// What the process reported last.
        var reportedClients = 0
        var reportedPlayers: Set<String> = []
        var isLocked = false
        /// Private as its process reported it last.
        var isPrivate = false
        /// Private as the matchmaker made it (`create` with `isPrivate`), whatever the process reports.
        var isMadePrivate = false
        var metadata: [String: String] = [:]
        /// Whether the process has reported the room (it opened there).
        var isReported = false

        var seatsTaken: Int {
            let anonymous = max(0, reportedClients - reportedPlayers.count)
            return anonymous + reportedPlayers.union(reservations.keys).count
        }

        var hasFreeSeat: Bool { !isLocked && seatsTaken < capacity }

        /// Left out of listings and of `join`/`joinOrCreate`: made private, or reported so.
        var isHidden: Bool { isPrivate || isMadePrivate }
    }

    var rooms: [String: Room] = [:]
    /// The room each player's reservation is in.
    var reservedRoom: [String: String] = [:]

    /// Drops expired reservations, and rooms that were made and never opened on their process
    /// (no report) once the reservations that made them have expired.
    mutating func expire(now: Timestamp) {
        for (name, room) in rooms {
            let live = room.reservations.filter { $0.value > now }
            for player in room.reservations.keys where live[player] == nil && reservedRoom[player] == name {
                reservedRoom[player] = nil
            }
            rooms[name]?.reservations = live
            if live.isEmpty && !room.isReported { rooms[name] = nil }
        }
    }

    /// Applies a process's report: the rooms it made that it holds, with their players. A room
    /// the matchmaker made that the process no longer reports, after it had, has closed.
    mutating func apply(report: [RoomLoad], from process: String) {
        let reported = Dictionary(report.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, room) in rooms where room.process == process {
            guard let load = reported[name] else {
                if room.isReported { close(name) }
                continue
            }
            rooms[name]?.isReported = true
            rooms[name]?.reportedClients = load.clients
            rooms[name]?.reportedPlayers = Set(load.players)
            rooms[name]?.isLocked = load.isLocked
            rooms[name]?.isPrivate = load.isPrivate
            rooms[name]?.metadata = load.metadata
        }
    }

    /// Forgets a room and its reservations.
    mutating func close(_ name: String) {
        guard let room = rooms.removeValue(forKey: name) else { return }
        for player in room.reservations.keys where reservedRoom[player] == name { reservedRoom[player] = nil }
    }

    /// Seats taken on each process in the rooms made here (for placement).
    func seatsTaken(byProcess process: String) -> Int {
        rooms.values.lazy.filter { $0.process == process }.reduce(0) { $0 + $1.seatsTaken }
    }

    /// The open room of `mode` to join: the fullest with a free seat on a live process, so that
    /// rooms fill before new ones are made (ties: the oldest, then the name). A room whose
    /// process is dead is never chosen: its player's hello would find nobody there.
    func roomToJoin(mode: String, liveProcesses: Set<String>) -> String? {
        rooms.filter {
            $0.value.mode == mode && !$0.value.isHidden && $0.value.hasFreeSeat && liveProcesses.contains($0.value.process)
        }
        .min { a, b in
            if a.value.seatsTaken != b.value.seatsTaken { return a.value.seatsTaken > b.value.seatsTaken }
            if a.value.createdAt != b.value.createdAt { return a.value.createdAt < b.value.createdAt }
            return a.key < b.key
        }?.key
    }

    /// Reserves a seat for `player` in `room` (which has one free), replacing any reservation the
    /// player held elsewhere.
    mutating func reserve(_ player: String, in name: String, until expiresAt: Timestamp) {
        if let previous = reservedRoom[player], previous != name { rooms[previous]?.reservations[player] = nil }
        rooms[name]?.reservations[player] = expiresAt
        reservedRoom[player] = name
    }

    /// The public open rooms of `mode` (all modes when `nil`), fullest first.
    func listings(mode: String?) -> [RoomListing] {
        rooms.filter { (mode == nil || $0.value.mode == mode) && !$0.value.isHidden && !$0.value.isLocked }
            .map { name, room in
                RoomListing(room: name, mode: room.mode, clients: room.seatsTaken, capacity: room.capacity, metadata: room.metadata)
            }
            .sorted { $0.clients != $1.clients ? $0.clients > $1.clients : $0.room < $1.room }
    }
}

import Tickwire

/// What `tickwire load --matchmaker` saw of the matchmaker's placement: the seats it gave, the
/// rooms they were in, how many of the run's players each room held at the end, and the
/// matchmaker's own listing (`GET /rooms`) for the rooms' capacities, so that a report shows
/// whether any room ran over its capacity.
package struct MatchmakerLoadFigures: Hashable, Sendable {
    /// Seats the matchmaker gave, over every player's requests.
    package var seats = 0
    /// The rooms the seats were in.
    package var roomsSeen: Set<String> = []
    /// The run's players connected in each room at the end.
    package var playersAtEnd: [String: Int] = [:]
    /// The matchmaker's listing at the end (`GET /rooms?mode=…`), or `nil` when it could not be read.
    package var listing: [RoomListing]?
    /// Why the listing could not be read, in words.
    package var listingFailure: String?

    /// Empty figures.
    package init() {}

    /// Adds another driver thread's figures (the listing is read once, after the merge).
    ///
    /// - Parameter other: Its figures.
    package mutating func merge(_ other: MatchmakerLoadFigures) {
        seats += other.seats
        roomsSeen.formUnion(other.roomsSeen)
        for (room, count) in other.playersAtEnd { playersAtEnd[room, default: 0] += count }
    }

    /// These figures with `other`'s added (see ``merge(_:)``).
    ///
    /// - Parameter other: Another driver thread's figures.
    /// - Returns: The sum.
    package func merging(_ other: MatchmakerLoadFigures) -> MatchmakerLoadFigures {
        var sum = self
        sum.merge(other)
        return sum
    }

    /// Counts one player: its seats, and its room when it is connected at the end.
    ///
    /// - Parameters:
    ///   - seats: The seats the matchmaker gave the player.
    ///   - connectedRoom: The room it is connected in at the end, or `nil`.
    package mutating func record(seats playerSeats: [MatchmakerSeat], connectedRoom: String?) {
        seats += playerSeats.count
        for seat in playerSeats { roomsSeen.insert(seat.room) }
        if let connectedRoom { playersAtEnd[connectedRoom, default: 0] += 1 }
    }

    /// A room's capacity, from the listing.
    package func capacity(of room: String) -> Int? { listing?.first { $0.room == room }?.capacity }

    /// The room with the most of the run's players at the end (ties: by name), with its count.
    package var largestRoom: (room: String, players: Int)? {
        playersAtEnd.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }.map { ($0.key, $0.value) }
    }

    /// Rooms over their capacity: by the listing's own count, or by the run's players in a listed room.
    package var roomsOverCapacity: Int {
        guard let listing else { return 0 }
        return listing.filter { listed in listed.clients > listed.capacity || (playersAtEnd[listed.room] ?? 0) > listed.capacity }.count
    }

    /// `12 seats in 3 rooms; largest room arena-1a2b3c4d: 16 of 16 players; no room over capacity`.
    package var text: String {
        var line = "\(seats) seat\(seats == 1 ? "" : "s") in \(roomsSeen.count) room\(roomsSeen.count == 1 ? "" : "s")"
        if let (room, players) = largestRoom {
            line += "; largest room \(room): \(players) of \(capacity(of: room).map(String.init) ?? "?") players"
        }
        if listing != nil {
            line += roomsOverCapacity == 0 ? "; no room over capacity" : "; \(roomsOverCapacity) room(s) OVER capacity"
        } else {
            line += "; capacities unknown (\(listingFailure ?? "no listing"))"
        }
        return line
    }

    /// `{"seats":12,"roomsSeen":3,"largestRoom":{"room":"…","players":16,"capacity":16},"roomsOverCapacity":0,"listedRooms":3,"listingError":null}`:
    /// `largestRoom` is `null` when no player was connected at the end, its `capacity` and
    /// `roomsOverCapacity` `null` when the listing could not be read.
    package var json: String {
        let largest = largestRoom.map { room, players in
            "{\"room\":\(ConnectionOutcomes.jsonString(room)),\"players\":\(players),"
                + "\"capacity\":\(capacity(of: room).map(String.init) ?? "null")}"
        }
        return "{\"seats\":\(seats),\"roomsSeen\":\(roomsSeen.count),\"largestRoom\":\(largest ?? "null"),"
            + "\"roomsOverCapacity\":\(listing == nil ? "null" : String(roomsOverCapacity)),"
            + "\"listedRooms\":\(listing.map { String($0.count) } ?? "null"),"
            + "\"listingError\":\(listingFailure.map(ConnectionOutcomes.jsonString) ?? "null")}"
    }
}

import TickwireSim

/// What a request's path asks the service for: the listing, or a seat (`/matchmake/{action}/{target}`).
enum MatchmakerRoute: Hashable, Sendable {
    /// The four seat requests, as their paths name them.
    enum SeatKind: String, Hashable, Sendable {
        case joinOrCreate, join, create, joinById
    }

    case rooms
    case seat(SeatKind, target: String)

    /// Reads a `/matchmake/…` path.
    ///
    /// - Throws: `404 notFound` for another action; `404 unknownMode` or `unknownRoom` for a
    ///   mode or room that no name can be (`Protocol/MATCHMAKER.md` section 1).
    init(path: Substring) throws(MatchmakerRefusal) {
        let rest = path.dropFirst(MatchmakerService.matchmakePath.count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let kind = SeatKind(rawValue: String(rest[..<slash])) else { throw .notFound(path) }
        let target = slash == rest.endIndex ? "" : String(rest[rest.index(after: slash)...])
        if kind == .joinById {
            guard Self.isValidRoom(target) else { throw MatchmakerRefusal(MatchmakingError.unknownRoom(target)) }
        } else {
            guard MatchmakingRules.isValidMode(target) else { throw MatchmakerRefusal(MatchmakingError.unknownMode(target)) }
        }
        self = .seat(kind, target: target)
    }

    /// Whether `room` can name a room: 1 to ``MatchmakerService/maximumRoomBytes`` bytes of ASCII
    /// letters, digits, `-` and `_`.
    static func isValidRoom(_ room: String) -> Bool {
        let bytes = Array(room.utf8)
        return (1...MatchmakerService.maximumRoomBytes).contains(bytes.count)
            && bytes.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}

import Foundation
import TickwireSim

/// A process's registration, as JSON in `PREFIX:process:ID`:
/// `{"id":"…","url":"ws://…","udp":"udp://HOST:PORT","rooms":[{"name":"…","clients":3,"capacity":32}]}`.
/// A room's entry also carries, when they are not empty or false, its verified `players`, `locked`,
/// `private` and `metadata` (what a ``RedisMatchmaker`` counts and lists).
///
/// `udp` is where the process serves netcode.io (`udp://HOST:PORT`, a numeric host: the address
/// its connect tokens name); it is absent for a process that serves no UDP, and a record without
/// it (from an earlier version) reads as such.
struct RedisProcessRecord: Codable, Hashable, Sendable {
    struct Room: Codable, Hashable, Sendable {
        var name: String
        var clients: Int
        var capacity: Int
        /// The verified user ids of its players; absent when none came with an identity.
        var players: [String]?
        /// Present and `true` when its game locked it.
        var locked: Bool?
        /// Present and `true` when it is private.
        var `private`: Bool?
        /// The game's words about it; absent when none.
        var metadata: [String: String]?

        init(_ load: RoomLoad) {
            name = load.name
            clients = load.clients
            capacity = load.capacity
            players = load.players.isEmpty ? nil : load.players
            locked = load.isLocked ? true : nil
            `private` = load.isPrivate ? true : nil
            metadata = load.metadata.isEmpty ? nil : load.metadata
        }
    }

    var id: String
    var url: String
    var udp: String?
    var rooms: [Room]

    init(id: String, url: String, udp: String? = nil, loads: [RoomLoad]) {
        self.id = id
        self.url = url
        self.udp = udp
        rooms = loads.map(Room.init)
    }

    /// The record's JSON (keys sorted, so equal records give equal bytes; slashes as they are).
    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { Array($0) } ?? []
    }

    /// Decodes a record; `nil` for bytes that are not one (a foreign or damaged value).
    static func decode(_ bytes: [UInt8]) -> RedisProcessRecord? {
        try? JSONDecoder().decode(RedisProcessRecord.self, from: Data(bytes))
    }

    /// The clients of all its rooms.
    var clients: Int { rooms.reduce(0) { $0 + $1.clients } }
}

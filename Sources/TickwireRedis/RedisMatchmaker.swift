import Foundation
import TickwireFoundation
import TickwireIO
import TickwireSim

/// The matchmaker's reservations and listings on the fleet's Redis: what
/// ``InMemoryDirectoryStore/reserveSeat(_:player:rules:)`` does on one machine, for every
/// process of a fleet at once. Each request is one `EVAL` of a Lua script,
/// atomic on the server, so concurrent requests from all processes never put more players in a
/// room than its capacity.
///
/// Placement reads the processes' registrations (``RedisRoomDirectory`` writes them every
/// heartbeat): a new room goes to the live process with the fewest players, counting seats
/// reserved in its rooms, and is claimed there at once (a hello reaching any other process is
/// redirected to it). Seats taken in a room are the players its process reports plus the reserved
/// players not among them; a seat nobody takes is given back after the reservation's time.
///
/// Thread-safe: requests may come from any thread or task.
public final class RedisMatchmaker: MatchmakerStore {
    /// The fleet's key prefix (``RedisDirectoryConfiguration/keyPrefix``).
    public let keyPrefix: String
    /// The modes and the reservation's time.
    public let rules: MatchmakingRules
    private let client: RedisClient

    /// A matchmaker on the Redis at `url`; it connects at once.
    ///
    /// - Parameters:
    ///   - url: The fleet's Redis.
    ///   - keyPrefix: The fleet's key prefix (default `tickwire`, as the directory's).
    ///   - rules: The modes and the reservation's time.
    ///   - client: The Redis client's timeouts and limits.
    ///   - loop: A loop to share, or `nil` for one of its own.
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public init(
        url: RedisURL, keyPrefix: String = "tickwire", rules: MatchmakingRules,
        client: RedisClientConfiguration = RedisClientConfiguration(),
        loop: EventLoop? = nil
    ) throws(SystemError) {
        self.keyPrefix = keyPrefix
        self.rules = rules
        self.client = try RedisClient(url: url, configuration: client, loop: loop)
        self.client.start()
    }

    /// Whether the connection to Redis is open now: requests while it is not fail at once with
    /// ``MatchmakingError/unavailable(_:)`` (the client keeps reconnecting).
    public var isConnected: Bool { client.isConnected }

    /// Closes the connection; requests after it fail with ``MatchmakingError/unavailable(_:)``.
    public func stop() {
        client.stop()
    }

    /// Reserves a seat for `player` (the rules of ``InMemoryDirectoryStore/reserveSeat(_:player:rules:)``).
    ///
    /// - Parameters:
    ///   - action: What the player asks for.
    ///   - player: The player's user id.
    /// - Returns: The reservation.
    /// - Throws: ``MatchmakingError``; ``MatchmakingError/unavailable(_:)`` when Redis fails.
    public func reserveSeat(_ action: MatchAction, player: String) async throws(MatchmakingError) -> SeatReservation {
        let (name, target): (String, String)
        var isPrivate = false
        switch action {
        case .joinOrCreate(let mode): (name, target) = ("joinOrCreate", mode)
        case .join(let mode): (name, target) = ("join", mode)
        case .create(let mode, let makesPrivate): (name, target, isPrivate) = ("create", mode, makesPrivate)
        case .joinByID(let room): (name, target) = ("joinByID", room)
        }
        var capacity = 0
        if case .joinByID = action {
        } else {
            guard let modeCapacity = rules.capacities[target] else { throw .unknownMode(target) }
            capacity = modeCapacity
        }
        let ttl = rules.reservationTTL.components.seconds * 1000 + rules.reservationTTL.components.attoseconds / 1_000_000_000_000_000
        // A fresh name for a new room; taken names (vanishingly rare) are asked again with another.
        for _ in 0..<4 {
            let reply = try await evaluate(
                RedisMatchmakerScripts.reserve,
                [name, target, player, String(ttl), String(capacity), Self.roomName(mode: target), isPrivate ? "1" : "0"])
            guard let fields = reply.elements?.compactMap(\.string), fields.first == "ok" || fields.first == "err" else {
                throw .unavailable("the reserve script answered \(reply)")
            }
            if fields[0] == "ok", fields.count == 7 {
                return SeatReservation(
                    room: fields[1], mode: fields[2], process: fields[3], processURL: fields[4],
                    processUDPURL: fields[5].isEmpty ? nil : fields[5], player: player, validFor: rules.reservationTTL,
                    isNewRoom: fields[6] == "1")
            }
            switch fields.count == 2 ? fields[1] : "" {
            case "noOpenRoom": throw .noOpenRoom(mode: target)
            case "unknownRoom": throw .unknownRoom(target)
            case "roomFull": throw .roomFull(target)
            case "roomLocked": throw .roomLocked(target)
            case "noLiveProcess": throw .noLiveProcess
            case "nameTaken": continue
            default: throw .unavailable("the reserve script answered \(fields)")
            }
        }
        throw .unavailable("four new room names in a row were taken")
    }

    /// The public open rooms the matchmaker made, across the fleet: of `mode`, or of every mode
    /// when `nil`; locked and private rooms left out. Fullest first.
    ///
    /// - Parameter mode: A mode, or `nil`.
    /// - Returns: The listings.
    /// - Throws: ``MatchmakingError/unavailable(_:)`` when Redis fails.
    public func listRooms(mode: String?) async throws(MatchmakingError) -> [RoomListing] {
        let reply = try await evaluate(RedisMatchmakerScripts.list, [mode ?? ""])
        guard let rows = reply.elements else { throw .unavailable("the list script answered \(reply)") }
        var listings: [RoomListing] = []
        for row in rows {
            guard let cells = row.elements, cells.count == 5, let room = cells[0].string, let mode = cells[1].string,
                let seats = cells[2].integer, let capacity = cells[3].integer, let metadataText = cells[4].string
            else { throw .unavailable("the list script answered a row \(row)") }
            var metadata: [String: String] = [:]
            do {
                if case .object(let members) = try JSONParser.parse(metadataText) {
                    for (key, value) in members { metadata[key] = value.stringValue ?? value.text }
                }
            } catch {
                throw .unavailable("the list script answered metadata that is not JSON: \(error)")
            }
            listings.append(RoomListing(room: room, mode: mode, clients: Int(seats), capacity: Int(capacity), metadata: metadata))
        }
        return listings.sorted { $0.clients != $1.clients ? $0.clients > $1.clients : $0.room < $1.room }
    }

    /// A number the whole fleet gives one guest only: `INCR` on `PREFIX:mm:guests` (1, 2, 3…).
    ///
    /// - Returns: The number.
    /// - Throws: ``MatchmakingError/unavailable(_:)`` when Redis fails.
    public func nextGuestNumber() async throws(MatchmakingError) -> UInt64 {
        let reply = try await send(RedisCommand(["INCR", keyPrefix + ":mm:guests"]))
        guard let number = reply.integer, number > 0 else { throw .unavailable("INCR \(keyPrefix):mm:guests answered \(reply)") }
        return UInt64(number)
    }

    /// `MODE-` and 8 random hex digits.
    static func roomName(mode: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(generator.next() as UInt32, radix: 16)
        return mode + "-" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    private func evaluate(_ script: String, _ arguments: [String]) async throws(MatchmakingError) -> RedisReply {
        let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        return try await send(RedisCommand(["EVAL", script, "0", keyPrefix, String(nowMilliseconds)] + arguments))
    }

    private func send(_ command: RedisCommand) async throws(MatchmakingError) -> RedisReply {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RedisReply, RedisError>, Never>) in
            client.send(command) { continuation.resume(returning: $0) }
        }
        switch result {
        case .success(let reply): return reply
        case .failure(let error): throw .unavailable("\(error)")
        }
    }
}

/// Where a matchmaker keeps its rooms and seats: the one step that reserves a seat atomically,
/// the listings, and the fleet's guest numbers. ``InMemoryMatchmaker`` keeps them in one
/// process; the fleet's Redis keeps them for every process at once (`RedisMatchmaker`), so that
/// any process's matchmaker gives the same answer.
///
/// A store is called from any task, concurrently: each call is atomic on its own.
public protocol MatchmakerStore: Sendable {
    /// The modes it serves, each with its capacity, and how long a reserved seat waits.
    var rules: MatchmakingRules { get }

    /// Reserves a seat for `player`, atomically: concurrent requests never put more players in a
    /// room than its capacity, and a `join` or `joinOrCreate` never picks a room whose process is
    /// dead.
    ///
    /// - Parameters:
    ///   - action: What the player asks for.
    ///   - player: The player's user id, in decimal (one reservation per player at a time).
    /// - Returns: The reservation.
    /// - Throws: ``MatchmakingError``, whose ``MatchmakingError/httpStatus`` a matchmaker answers.
    func reserveSeat(_ action: MatchAction, player: String) async throws(MatchmakingError) -> SeatReservation

    /// The public open rooms the matchmaker made, across the fleet: of `mode`, or of every mode
    /// when `nil`; locked and private rooms are left out. Fullest first.
    ///
    /// - Parameter mode: A mode, or `nil`.
    /// - Returns: The listings.
    /// - Throws: ``MatchmakingError/unavailable(_:)`` when the store cannot be reached.
    func listRooms(mode: String?) async throws(MatchmakingError) -> [RoomListing]

    /// A number the whole fleet gives one guest only (1, 2, 3…), for its display name and user id.
    ///
    /// - Returns: The number.
    /// - Throws: ``MatchmakingError/unavailable(_:)`` when the store cannot be reached.
    func nextGuestNumber() async throws(MatchmakingError) -> UInt64
}

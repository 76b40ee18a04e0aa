/// The matchmaker's store on an ``InMemoryDirectoryStore``: for one machine and for tests, with
/// the rules a Redis store keeps for a fleet. Guest numbers come from a counter under the
/// store's lock, so that every matchmaker on one store gives each number once.
///
/// ```swift
/// let store = InMemoryDirectoryStore(clock: MonotonicClock())
/// let matchmaker = InMemoryMatchmaker(store: store, rules: MatchmakingRules(capacities: ["arena": 16]))
/// let seat = try await matchmaker.reserveSeat(.joinOrCreate(mode: "arena"), player: "42")
/// ```
public struct InMemoryMatchmaker: MatchmakerStore {
    /// The store the rooms, seats and guest numbers live in.
    public let store: InMemoryDirectoryStore
    /// The modes and the reservation's time.
    public let rules: MatchmakingRules

    /// A matchmaker on `store`.
    ///
    /// - Parameters:
    ///   - store: The store (shared with the processes' ``InMemoryRoomDirectory`` views).
    ///   - rules: The modes and the reservation's time.
    public init(store: InMemoryDirectoryStore, rules: MatchmakingRules) {
        self.store = store
        self.rules = rules
    }

    /// Reserves a seat (``InMemoryDirectoryStore/reserveSeat(_:player:rules:)``).
    ///
    /// - Parameters:
    ///   - action: What the player asks for.
    ///   - player: The player's user id.
    /// - Returns: The reservation.
    /// - Throws: ``MatchmakingError``.
    public func reserveSeat(_ action: MatchAction, player: String) async throws(MatchmakingError) -> SeatReservation {
        try store.reserveSeat(action, player: player, rules: rules)
    }

    /// The public open rooms (``InMemoryDirectoryStore/listRooms(mode:)``).
    ///
    /// - Parameter mode: A mode, or `nil` for all.
    /// - Returns: The listings, fullest first.
    /// - Throws: Never: the store is in memory.
    public func listRooms(mode: String?) async throws(MatchmakingError) -> [RoomListing] {
        store.listRooms(mode: mode)
    }

    /// The store's next guest number (``InMemoryDirectoryStore/nextGuestNumber()``).
    ///
    /// - Returns: The number.
    /// - Throws: Never: the store is in memory.
    public func nextGuestNumber() async throws(MatchmakingError) -> UInt64 {
        store.nextGuestNumber()
    }
}

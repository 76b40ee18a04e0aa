/// What a game says about one of its rooms for a matchmaker (``Game/listing(of:room:)``): words
/// a room browser shows, and whether the room takes more players through the matchmaker.
public struct RoomListingDetails: Hashable, Sendable {
    /// The game's words about the room (a map name, a skill band), listed by `GET /rooms`.
    public var metadata: [String: String]
    /// Locked: the matchmaker lists the room no more and seats no one in it (a match under way).
    public var isLocked: Bool
    /// Private: left out of listings and `joinOrCreate`; whoever names the room may still join it.
    public var isPrivate: Bool

    /// An open public room with no words: the default.
    public static let open = RoomListingDetails()

    /// Details for a room.
    ///
    /// - Parameters:
    ///   - metadata: The game's words about the room.
    ///   - isLocked: Whether it takes no more players through the matchmaker.
    ///   - isPrivate: Whether it is left out of listings and `joinOrCreate`.
    public init(metadata: [String: String] = [:], isLocked: Bool = false, isPrivate: Bool = false) {
        self.metadata = metadata
        self.isLocked = isLocked
        self.isPrivate = isPrivate
    }
}

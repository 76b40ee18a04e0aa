/// One open room, as `GET /rooms` lists it: what a room browser shows.
public struct RoomListing: Hashable, Sendable {
    /// The room's name.
    public let room: String
    /// Its mode.
    public let mode: String
    /// Seats taken: players present and seats reserved for players on their way.
    public let clients: Int
    /// How many players it holds.
    public let capacity: Int
    /// The game's own words about the room (a map name, a skill band), as its process reported them.
    public let metadata: [String: String]

    /// A listing, as a store makes it.
    ///
    /// - Parameters:
    ///   - room: The room's name.
    ///   - mode: Its mode.
    ///   - clients: Seats taken.
    ///   - capacity: Its capacity.
    ///   - metadata: The game's words about it.
    public init(room: String, mode: String, clients: Int, capacity: Int, metadata: [String: String]) {
        self.room = room
        self.mode = mode
        self.clients = clients
        self.capacity = capacity
        self.metadata = metadata
    }
}

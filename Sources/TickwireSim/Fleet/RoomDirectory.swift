/// A directory of rooms shared by several host processes (a fleet): which process holds which
/// room, where each process can be reached, and each room's last saved state, so that any
/// process can send a client to its room's process and a room outlives the process that held it.
///
/// A host asks the directory from its driving thread, once per pass, and must never wait on it:
/// every method returns at once, from what the directory already knows, and the directory does
/// its own I/O (to Redis, say) elsewhere and answers a question on a later call. A directory is
/// shared between the host's thread and its own I/O, hence `Sendable`.
///
/// Claims: a process holds a room while its claim lives. The directory claims a room for this
/// process atomically (no other process holds it at the same time), keeps the claims of this
/// process alive while the process is, and lets them expire when it dies.
public protocol RoomDirectory: AnyObject, Sendable {
    /// Where `room` lives, claiming it for this process when no process holds it.
    ///
    /// Returns ``RoomPlacement/pending`` until the directory knows; the host asks again on its
    /// next pass. Once a room is ``RoomPlacement/here(savedState:)``, the claim is this
    /// process's until ``release(room:)`` or until the directory reports it lost
    /// (``takeLostRooms()``).
    ///
    /// - Parameter room: The room's name, as the hello gives it.
    /// - Returns: Where the room lives, as far as the directory knows now.
    func placement(ofRoom room: String) -> RoomPlacement

    /// Tells the directory what this process runs now, for its registration (other processes
    /// and operators read it; a directory may place new rooms by load). The host calls it at
    /// most once per pass.
    ///
    /// - Parameter rooms: Every room this process holds, with its clients and capacity.
    func report(rooms: [RoomLoad])

    /// Stores a room's state, replacing the one stored before, for the process that holds the
    /// room next. Does nothing for a room this process does not hold.
    ///
    /// - Parameters:
    ///   - room: The room's name.
    ///   - state: The room's state, encoded (opaque to the directory).
    func save(room: String, state: [UInt8])

    /// Gives up this process's claim on a room (it closed, or the process is draining), after
    /// the last ``save(room:state:)`` for it has been stored.
    ///
    /// - Parameter room: The room's name.
    func release(room: String)

    /// The rooms this process held and holds no longer (its claim expired while the directory
    /// was unreachable, and another process claimed the room): the host must stop running them
    /// and send their clients on. Each room is reported once.
    ///
    /// - Returns: The rooms' names.
    func takeLostRooms() -> [String]

    /// The public URL of another live process of the fleet, if the directory knows one: where a
    /// draining process sends its clients.
    ///
    /// - Returns: A URL other than this process's own, or `nil`.
    func anotherProcessURL() -> String?

    /// The UDP address (`udp://HOST:PORT`) the process at `url` serves netcode.io on, as its
    /// registration says: where a redirect or a move sends a client connected over UDP (with a
    /// connect token for it, ``HandoverConnection``). Defaults to `nil` (no process serves UDP).
    ///
    /// - Parameter url: A process's public URL, as ``RoomPlacement/elsewhere(url:)`` or
    ///   ``anotherProcessURL()`` gives it.
    /// - Returns: The address, or `nil` when the process registered none or is not known.
    func udpURL(ofProcessAt url: String) -> String?
}

extension RoomDirectory {
    /// `nil`: a directory that does not record UDP addresses sends every client to WebSocket URLs.
    ///
    /// - Parameter url: A process's public URL.
    /// - Returns: `nil`.
    public func udpURL(ofProcessAt url: String) -> String? { nil }
}

/// Where a room lives, as a ``RoomDirectory`` answers.
public enum RoomPlacement: Sendable, Equatable {
    /// The directory does not know yet: ask again on the next pass.
    case pending
    /// This process holds the room. `savedState` is the state the room's last holder saved
    /// (restore it), or `nil` for a room no process has saved.
    case here(savedState: [UInt8]?)
    /// Another process holds the room: the client belongs at this public URL.
    case elsewhere(url: String)
    /// The directory cannot answer (its store is unreachable). The host decides; the
    /// documented choice is to run the room here, as a standalone host would.
    case unavailable
}

/// One room of a process's report to its ``RoomDirectory``.
public struct RoomLoad: Hashable, Sendable {
    /// The room's name.
    public var name: String
    /// Its clients, connected or within their grace period.
    public var clients: Int
    /// How many clients it can hold.
    public var capacity: Int
    /// The verified user ids of its players (those who came with a connect token), in decimal
    /// (``PlayerIdentity/userID``), so that a matchmaker counts a reserved player who has arrived
    /// once: a matchmaker reserves seats under the same decimal user id.
    public var players: [String]
    /// Whether its game locked it: a matchmaker lists it no more and seats no one in it.
    public var isLocked: Bool
    /// Whether it is private: a matchmaker leaves it out of listings and `joinOrCreate`, and
    /// seats only whoever names it (`joinByID`).
    public var isPrivate: Bool
    /// The game's own words about the room, listed by a matchmaker.
    public var metadata: [String: String]

    /// Creates a room load.
    ///
    /// - Parameters:
    ///   - name: The room's name.
    ///   - clients: Its clients.
    ///   - capacity: Its capacity.
    ///   - players: The verified user ids of its players (default none).
    ///   - isLocked: Whether its game locked it (default `false`).
    ///   - isPrivate: Whether it is private (default `false`).
    ///   - metadata: The game's words about it (default none).
    public init(
        name: String, clients: Int, capacity: Int, players: [String] = [], isLocked: Bool = false, isPrivate: Bool = false,
        metadata: [String: String] = [:]
    ) {
        self.name = name
        self.clients = clients
        self.capacity = capacity
        self.players = players
        self.isLocked = isLocked
        self.isPrivate = isPrivate
        self.metadata = metadata
    }
}

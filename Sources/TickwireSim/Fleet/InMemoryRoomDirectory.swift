import Synchronization

/// A ``RoomDirectory`` held in memory, on a ``TickClock``: the directory for tests and for
/// fleets simulated on a ``VirtualClock`` (``TickSimulation``'s clock), where a Redis directory
/// would be out of place.
///
/// One ``InMemoryDirectoryStore`` stands for the shared store (Redis); each host process gets
/// its own view of it, an ``InMemoryRoomDirectory`` from
/// ``InMemoryDirectoryStore/directory(forProcess:publicURL:udpURL:)``. It behaves as a fleet's directory
/// should: a room is claimed by the first process that asks where it lives (one process at a
/// time), claims live ``InMemoryDirectoryStore/claimTTL`` and every call a process makes renews
/// all of its claims (its heartbeat: a host reports every ``HostConfiguration/directoryInterval``),
/// and test controls kill a process (its calls are ignored, so its claims expire), partition it
/// (it cannot reach the store: its placements are ``RoomPlacement/unavailable``, its saves are
/// lost and its claims expire) and heal it (its next calls reach the store again, and
/// ``takeLostRooms()`` reports the rooms another process claimed meanwhile).
///
/// Thread-safe: every view calls into its store, whose state lives in one `Mutex`.
public final class InMemoryRoomDirectory: RoomDirectory {
    /// The shared store this view reads and writes.
    public let store: InMemoryDirectoryStore
    /// The process this view belongs to.
    public let processID: String
    /// The process's public URL, where redirects to its rooms point (as last registered).
    public var publicURL: String { store.url(of: processID) ?? "" }

    init(store: InMemoryDirectoryStore, processID: String) {
        self.store = store
        self.processID = processID
    }

    /// Where `room` lives, claiming it for this process when no process holds it (see
    /// ``RoomDirectory/placement(ofRoom:)``). Answers ``RoomPlacement/pending`` until the question
    /// is ``InMemoryDirectoryStore/answerDelay`` old, as a directory doing I/O elsewhere would.
    ///
    /// - Parameter room: The room's name.
    /// - Returns: Where the room lives.
    public func placement(ofRoom room: String) -> RoomPlacement {
        store.placement(ofRoom: room, for: processID)
    }

    /// Records this process's rooms and renews its claims (see ``RoomDirectory/report(rooms:)``).
    ///
    /// - Parameter rooms: The rooms this process holds.
    public func report(rooms: [RoomLoad]) {
        store.report(rooms: rooms, for: processID)
    }

    /// Stores a room's state when this process holds the room (see ``RoomDirectory/save(room:state:)``).
    ///
    /// - Parameters:
    ///   - room: The room's name.
    ///   - state: Its encoded state.
    public func save(room: String, state: [UInt8]) {
        store.save(room: room, state: state, for: processID)
    }

    /// Gives up this process's claim on `room` (see ``RoomDirectory/release(room:)``).
    ///
    /// - Parameter room: The room's name.
    public func release(room: String) {
        store.release(room: room, for: processID)
    }

    /// The rooms this process held that another process holds now (see ``RoomDirectory/takeLostRooms()``).
    ///
    /// - Returns: Their names, each once.
    public func takeLostRooms() -> [String] {
        store.takeLostRooms(for: processID)
    }

    /// The URL of another live process, the one reporting the fewest clients (see
    /// ``RoomDirectory/anotherProcessURL()``).
    ///
    /// - Returns: Its URL, or `nil`.
    public func anotherProcessURL() -> String? {
        store.anotherProcessURL(than: processID)
    }

    /// The UDP address the process at `url` registered (see ``RoomDirectory/udpURL(ofProcessAt:)``).
    ///
    /// - Parameter url: The process's public URL.
    /// - Returns: Its `udp://HOST:PORT`, or `nil`.
    public func udpURL(ofProcessAt url: String) -> String? {
        store.udpURL(ofProcessAt: url)
    }
}

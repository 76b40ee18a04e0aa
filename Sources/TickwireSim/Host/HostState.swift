/// What a ``Host`` needs to carry its rooms over into another process: each room's world,
/// tick and resumable clients, and the next client id it would hand out.
///
/// A value, produced by ``Host/exportState()`` and consumed by
/// ``Host/init(game:listener:clock:configuration:restoring:)``. Tickwire does not write it to
/// disk: the game chooses how to store its ``Game/State`` (the arena demo writes a small
/// versioned binary file). Connections, compression streams, acknowledgements, queued inputs
/// and metrics are not part of it: a restored client starts disconnected and, when it
/// resumes, gets a full snapshot, as after any reconnection.
public struct HostState<World: Sendable>: Sendable {
    /// The rooms, in the order the host opened them.
    public var rooms: [RoomState<World>]
    /// The id the host hands the next new client (0 is never handed out).
    public var nextClientID: UInt32

    /// Creates a host state.
    ///
    /// - Parameters:
    ///   - rooms: The rooms, in order.
    ///   - nextClientID: The id of the next new client.
    public init(rooms: [RoomState<World>], nextClientID: UInt32) {
        self.rooms = rooms
        self.nextClientID = nextClientID
    }
}

/// One room of a ``HostState``: its name, tick, world and the clients that may resume in it.
public struct RoomState<World: Sendable>: Sendable {
    /// The room's name.
    public var name: String
    /// The tick of the room's newest snapshot; the restored room counts on from it.
    public var tick: UInt32
    /// The game's world, players of the listed clients included.
    public var world: World
    /// The room's clients (connected or within their grace period when exported), by ascending id.
    public var clients: [ResumableClient]

    /// Creates a room state.
    ///
    /// - Parameters:
    ///   - name: The room's name.
    ///   - tick: The newest snapshot's tick.
    ///   - world: The game's world.
    ///   - clients: The clients that may resume.
    public init(name: String, tick: UInt32, world: World, clients: [ResumableClient]) {
        self.name = name
        self.tick = tick
        self.world = world
        self.clients = clients
    }
}

/// A client a restored room keeps a place for: its id (its player's number), the resume
/// token its hello must carry to get that place back, and the identity its connect token
/// verified when it joined.
public struct ResumableClient: Hashable, Sendable {
    /// The client id, which is also the player's number in the game.
    public var id: UInt32
    /// The resume token the host gave the client in its welcome.
    public var token: [UInt8]
    /// The identity the client's connect token verified when it joined (PROTOCOL.md 5.3.1);
    /// `nil` for anonymous play. The restored client resumes with it: the game's
    /// ``AdmissionRequest/identity`` and the ``HostEvent/identity`` of its resume carry it.
    public var identity: PlayerIdentity?

    /// Creates a resumable client.
    ///
    /// - Parameters:
    ///   - id: The client id (not 0).
    ///   - token: Its resume token (1 to ``FrameLimits/maximumResumeTokenBytes`` bytes).
    ///   - identity: The identity its connect token verified, or `nil` for anonymous play.
    public init(id: UInt32, token: [UInt8], identity: PlayerIdentity? = nil) {
        self.id = id
        self.token = token
        self.identity = identity
    }
}

// Equal when every room, client and world is equal (for tests and change detection).
extension HostState: Equatable where World: Equatable {}

extension RoomState: Equatable where World: Equatable {}

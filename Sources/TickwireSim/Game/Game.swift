import TickwireCodec

/// What a game provides to be networked by Tickwire: its schema, its world state, a step
/// function that runs the same on the server and (for prediction) on the client, and the
/// mapping between its state and snapshot entities. The ``Host`` and ``ClientSession``
/// do everything else: handshakes, rooms, snapshots, deltas, compression, interpolation,
/// prediction and reconciliation.
///
/// Players are numbered by the host (the client id of the welcome), and keep their
/// number when a client resumes its session.
public protocol Game: Sendable {
    /// The game's whole world state.
    associatedtype State: Sendable
    /// One player's input for one tick.
    associatedtype Input: Sendable

    /// The schema every snapshot follows; its fingerprint is checked in the handshake.
    var schema: Schema { get }

    /// The game's version for a person (`"tag 1.4.2"`), or `nil` (the default). A host names it
    /// in the words of a schema-mismatch refusal, after the two fingerprints, so that a player
    /// with an old client learns which version the server runs (the words are cut to
    /// ``FrameLimits/maximumTextBytes`` UTF-8 bytes, the version first).
    var version: String? { get }

    /// The world of a new room.
    ///
    /// - Parameter room: The room's name.
    /// - Returns: The initial state.
    func makeWorld(room: String) -> State

    /// Advances the world by one fixed step.
    ///
    /// Must be deterministic: the client replays it on its own inputs to predict its player.
    /// Iterate `inputs` in sorted key order: a dictionary's own order differs from run to run.
    ///
    /// - Parameters:
    ///   - state: The world before the step.
    ///   - inputs: Each player's input for this tick; a player without one has sent none in time.
    ///   - dt: The step in seconds.
    /// - Returns: The world after the step.
    func step(_ state: State, inputs: [UInt32: Input], dt: Double) -> State

    /// Whether the host keeps a history of each room's captured world and calls
    /// ``step(_:inputs:dt:lag:)`` with views rewound to what each player saw (lag compensation,
    /// ``HostConfiguration/lagCompensation``). The default, `false`, keeps no history and costs
    /// nothing; clients are then never asked for render times.
    var compensatesLag: Bool { get }

    /// Advances the world by one fixed step on the host, with lag compensation: `lag` gives, for
    /// each player with an input, the world as that player's screen showed it when it sampled
    /// the input (``LagCompensation/world(seenBy:)``), for hitscan weapons and other instant tests.
    ///
    /// Called instead of ``step(_:inputs:dt:)`` by a host when ``compensatesLag`` is `true`; the
    /// client's prediction still calls ``step(_:inputs:dt:)``. The default ignores `lag`.
    ///
    /// - Parameters:
    ///   - state: The world before the step.
    ///   - inputs: Each player's input for this tick.
    ///   - dt: The step in seconds.
    ///   - lag: The rewound views.
    /// - Returns: The world after the step.
    func step(_ state: State, inputs: [UInt32: Input], dt: Double, lag: LagCompensation) -> State

    /// The entities that teleported (respawned, were placed) in the step that produced `state`:
    /// the lag-compensation history never shows one between its old and new place. Asked after
    /// every step when ``compensatesLag`` is `true`; the default, none, leaves teleports to
    /// ``LagCompensationConfiguration/snapDistance``.
    ///
    /// - Parameter state: The world after a step.
    /// - Returns: The ids of the entities that jumped.
    func teleportedEntities(in state: State) -> [UInt32]

    /// How a matchmaker lists a room: the game's words about it, and whether it is locked (a
    /// match under way) or private. Asked from the room's world each time the host reports to
    /// its room directory (``HostConfiguration/directoryInterval``), on the thread that drives the
    /// host while no room ticks. The default, ``RoomListingDetails/open``, lists every room with
    /// no words.
    ///
    /// - Parameters:
    ///   - state: The room's world.
    ///   - room: The room's name.
    /// - Returns: The details.
    func listing(of state: State, room: String) -> RoomListingDetails

    /// Decides whether a client plays, before it is welcomed: every hello that reaches a room
    /// (right protocol version and schema, a room the host runs, and for a new player a place
    /// free) asks it, new players and resumed sessions alike, on the thread that drives the
    /// host while no room ticks.
    ///
    /// A refusal reaches the client as a reject with the application reason and text
    /// (PROTOCOL.md 5.5) and is final for a ``ReconnectingSession``; nothing of the world is
    /// sent, and a new player is never added (``addPlayer(_:payload:to:)`` is not called). A
    /// refused resume leaves the held player as it was (its grace period runs on). The default
    /// admits everyone.
    ///
    /// ```swift
    /// func admit(_ request: AdmissionRequest, in state: State) -> Admission {
    ///     guard state.players.count < 2 else { return .refused(text: "this game is for two players") }
    ///     return .admitted
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: Who asks to play: the player's number, the room, the hello's payload.
    ///   - state: The room's world.
    /// - Returns: ``Admission/admitted``, or ``Admission/refused(_:text:)``.
    func admit(_ request: AdmissionRequest, in state: State) -> Admission

    /// Adds a player to the world (a client joined).
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - state: The world.
    /// - Returns: The world with the player.
    func addPlayer(_ player: UInt32, to state: State) -> State

    /// Adds a player to the world with what its client sent in the hello's payload (a name,
    /// a chosen colour: the game's own encoding, at most ``FrameLimits/maximumHelloPayloadBytes``).
    ///
    /// The default ignores the payload and calls ``addPlayer(_:to:)``.
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - payload: The hello's application payload, as the client sent it (untrusted).
    ///   - state: The world.
    /// - Returns: The world with the player.
    func addPlayer(_ player: UInt32, payload: [UInt8], to state: State) -> State

    /// Adds a player to the world with its hello's payload and the identity its connect token
    /// verified (PROTOCOL.md 5.3.1): a user id, a display name, the game's claims. Called for every
    /// new player; `identity` is `nil` for anonymous play.
    ///
    /// The default ignores the identity and calls ``addPlayer(_:payload:to:)``, so a game that
    /// predates tokens plays on unchanged.
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - payload: The hello's application payload, as the client sent it (untrusted).
    ///   - identity: The verified identity, or `nil`.
    ///   - state: The world.
    /// - Returns: The world with the player.
    func addPlayer(_ player: UInt32, payload: [UInt8], identity: PlayerIdentity?, to state: State) -> State

    /// Removes a player from the world (a client left, or its resumption grace period ended).
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - state: The world.
    /// - Returns: The world without the player.
    func removePlayer(_ player: UInt32, from state: State) -> State

    /// Writes the world's entities into an empty snapshot (quantization is the snapshot's).
    ///
    /// - Parameters:
    ///   - state: The world.
    ///   - snapshot: An empty snapshot of the game's schema to fill.
    /// - Throws: A ``SnapshotError`` when an entity cannot be inserted.
    func capture(_ state: State, into snapshot: inout Snapshot) throws(SnapshotError)

    /// Rebuilds a world from a snapshot, as far as the client needs it to predict its player.
    ///
    /// - Parameter snapshot: A full snapshot.
    /// - Returns: The world it describes.
    func restore(from snapshot: Snapshot) -> State

    /// The entity that represents `player`, if it has one (used for prediction and interest).
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - state: The world.
    /// - Returns: The entity id, or `nil`.
    func entityID(of player: UInt32, in state: State) -> UInt32?

    /// Writes the entity that represents `player` into `entity`, quantized as
    /// ``capture(_:into:)`` writes it into a snapshot: the client's prediction path, which reads
    /// its own player's entity from the predicted world every render frame.
    ///
    /// The default captures the whole world into a new snapshot and copies the entity out, which
    /// costs as much as the world is large. A game with many entities implements it to write
    /// that one entity alone (``QuantizedEntity/reset(id:type:)``, then the setters its capture
    /// calls), with exactly the values its capture gives.
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - state: The world.
    ///   - entity: Set to the player's entity (its storage is reused); left unspecified when
    ///     the player has none.
    /// - Returns: Whether `player` has an entity in `state` (``entityID(of:in:)`` is not `nil`).
    /// - Throws: A ``SnapshotError`` when the entity cannot be written.
    func captureEntity(of player: UInt32, in state: State, into entity: inout QuantizedEntity) throws(SnapshotError) -> Bool

    /// Encodes an input for the wire (at most ``FrameLimits/maximumInputBytes`` bytes).
    ///
    /// - Parameter input: The input.
    /// - Returns: Its bytes.
    func encode(_ input: Input) -> [UInt8]

    /// Decodes an input from the wire; `nil` for bytes that are not a valid input (the host ignores them).
    ///
    /// - Parameter bytes: The input's bytes.
    /// - Returns: The input, or `nil`.
    func decodeInput(_ bytes: [UInt8]) -> Input?
}

extension Game {
    /// `nil`: the game names no version.
    public var version: String? { nil }

    /// `false`: no lag-compensation history.
    public var compensatesLag: Bool { false }

    /// Ignores `lag` and calls ``step(_:inputs:dt:)``.
    public func step(_ state: State, inputs: [UInt32: Input], dt: Double, lag: LagCompensation) -> State {
        step(state, inputs: inputs, dt: dt)
    }

    /// Admits everyone.
    public func admit(_ request: AdmissionRequest, in state: State) -> Admission { .admitted }

    /// None.
    public func teleportedEntities(in state: State) -> [UInt32] { [] }

    /// Every room open and public, with no words.
    public func listing(of state: State, room: String) -> RoomListingDetails { .open }

    /// Ignores the payload and adds the player with ``addPlayer(_:to:)``.
    public func addPlayer(_ player: UInt32, payload: [UInt8], to state: State) -> State {
        addPlayer(player, to: state)
    }

    /// Ignores the identity and adds the player with ``addPlayer(_:payload:to:)``.
    public func addPlayer(_ player: UInt32, payload: [UInt8], identity: PlayerIdentity?, to state: State) -> State {
        addPlayer(player, payload: payload, to: state)
    }

    /// Captures the whole world with ``capture(_:into:)`` into a new snapshot and copies out the
    /// entity ``entityID(of:in:)`` names.
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - state: The world.
    ///   - entity: Set to the player's entity.
    /// - Returns: Whether `player` has an entity in `state` (and the capture holds it).
    /// - Throws: A ``SnapshotError`` when the world cannot be captured.
    public func captureEntity(of player: UInt32, in state: State, into entity: inout QuantizedEntity) throws(SnapshotError) -> Bool {
        guard let id = entityID(of: player, in: state) else { return false }
        var snapshot = Snapshot(schema: schema, tick: 0)
        try capture(state, into: &snapshot)
        guard let index = snapshot.index(of: id) else { return false }
        entity.copy(entityAt: index, from: snapshot)
        return true
    }
}

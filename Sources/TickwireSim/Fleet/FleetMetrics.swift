/// A ``Host``'s figures of its work with a ``RoomDirectory`` (``Host/fleetMetrics``), over its life.
public struct FleetMetrics: Hashable, Sendable {
    /// Rooms the directory placed here (opened on a ``RoomPlacement/here(savedState:)``).
    public var roomsClaimed = 0
    /// Of those, rooms restored from a saved state.
    public var roomsRestored = 0
    /// Saved states that could not be read or restored (the room opened fresh instead).
    public var statesRefused = 0
    /// Room states saved to the directory.
    public var statesSaved = 0
    /// Room states not saved because they were over ``RoomStateEncoding/Limits/maximumBytes``.
    public var statesTooLarge = 0
    /// Hellos redirected to another process (reject reason redirect).
    public var redirects = 0
    /// Rooms opened without a claim because the directory was unavailable (standalone mode).
    public var standaloneRooms = 0
    /// Rooms closed because the directory reported them lost (another process holds them now).
    public var roomsLost = 0
    /// Drains (``Host/drain(text:)``): 1 once the host has handed its rooms on, else 0.
    public var drains = 0
    /// Clients told to reconnect elsewhere (disconnect reason moved) by a drain or a lost room.
    public var clientsMoved = 0
    /// Redirects and moves that sent a client to another process on its own transport
    /// (``HandoverConnection``: a UDP client, with a connect token for the process's UDP address).
    public var handovers = 0
    /// Handovers that could not be made (the address did not parse, no token could be minted):
    /// the client was sent to the process's WebSocket URL instead.
    public var handoversFailed = 0

    /// Creates zeroed figures.
    public init() {}
}

/// A seat a matchmaker reserved for one player: the room, the process that holds it, and how
/// long the seat waits for the player's hello before it is given back.
public struct SeatReservation: Hashable, Sendable {
    /// The room's name (what the player's hello names).
    public let room: String
    /// The room's mode.
    public let mode: String
    /// The id of the process that holds the room.
    public let process: String
    /// Where clients reach that process over WebSocket (its registered public URL).
    public let processURL: String
    /// Where that process serves UDP (`udp://HOST:PORT`), or `nil`.
    public let processUDPURL: String?
    /// The player the seat is for (the identity's user id, as the matchmaker's `authenticate` gave it).
    public let player: String
    /// How long the seat waits for the player's hello before it is given back (the connect
    /// token's time to connect should not be longer).
    public let validFor: Duration
    /// Whether the room was made for this reservation.
    public let isNewRoom: Bool

    /// A reservation, as a store makes it.
    ///
    /// - Parameters:
    ///   - room: The room.
    ///   - mode: Its mode.
    ///   - process: The holding process's id.
    ///   - processURL: Its public URL.
    ///   - processUDPURL: Its UDP address, or `nil`.
    ///   - player: The player.
    ///   - validFor: How long the seat waits.
    ///   - isNewRoom: Whether the room was made for it.
    public init(
        room: String, mode: String, process: String, processURL: String, processUDPURL: String?, player: String, validFor: Duration,
        isNewRoom: Bool
    ) {
        self.room = room
        self.mode = mode
        self.process = process
        self.processURL = processURL
        self.processUDPURL = processUDPURL
        self.player = player
        self.validFor = validFor
        self.isNewRoom = isNewRoom
    }
}

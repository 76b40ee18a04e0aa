/// A seat a matchmaker reserved for one player: the room, the process that holds it, and how
/// long the seat waits for the player's hello before it is given back.
public struct SeatReservation: Hashable, Sendable {
    /// The room's name (what the player's hello names).
    public let room: String
    /// The room's mode.
    public let mode: String
    /// The id of the process that holds the room.
    public let process: String
    /// The player the seat is for (the identity's user id, as the matchmaker's `authenticate` gave it).
    public let player: String
    /// When the seat is given back if the player has not come (the host's clock).
    public let expiresAt: Timestamp
    /// Whether the room was made for this reservation.
    public let isNewRoom: Bool
}

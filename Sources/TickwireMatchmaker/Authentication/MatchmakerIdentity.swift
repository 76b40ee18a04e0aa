/// Who a player is, as a matchmaker's ``MatchmakerAuthenticator`` verified it: what the connect
/// token it mints carries (its client id, and in its user data the display name and the claims).
public struct MatchmakerIdentity: Hashable, Sendable {
    /// The player's 64-bit user id: the token's client id, answered as `userId` in decimal.
    public var userID: UInt64
    /// The name the room shows (at most 64 UTF-8 bytes, the token's user data).
    public var displayName: String
    /// The game's own claims about the player (a rank, a cosmetic), what fits of the token's user data.
    public var claims: [UInt8]

    /// An identity.
    ///
    /// - Parameters:
    ///   - userID: The user id.
    ///   - displayName: The name to show.
    ///   - claims: The game's claims (none by default).
    public init(userID: UInt64, displayName: String, claims: [UInt8] = []) {
        self.userID = userID
        self.displayName = displayName
        self.claims = claims
    }
}

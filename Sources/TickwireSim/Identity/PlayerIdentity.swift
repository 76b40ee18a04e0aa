/// A player's identity as a verified connect token states it (`Protocol/PROTOCOL.md` 5.3.1):
/// the token's client id as the user id, its 256 bytes of user data, and what Tickwire's layout
/// of those bytes says (``ConnectTokenUserData``): the room it reserves, the display name and
/// the game's claims.
///
/// The host hands it to the game with every hello a token vouched for (``AdmissionRequest/identity``,
/// ``Game/addPlayer(_:payload:identity:to:)``, ``HostEvent/identity``). Only a token verifier
/// (``ConnectTokenVerifier``) or a transport that opened a token makes one in a server; a game's
/// tests make their own.
public struct PlayerIdentity: Hashable, Sendable {
    /// The user id: the connect token's 64-bit client id, as the issuer set it.
    public let userID: UInt64
    /// The token's user data, as the issuer wrote it (256 bytes from a token).
    public let userData: [UInt8]
    /// What the user data says in Tickwire's layout; `nil` when it is not that layout (a token
    /// minted by another netcode.io backend, which the UDP transport still accepts).
    public let details: ConnectTokenUserData?

    /// The room the token reserves, when its user data is in Tickwire's layout.
    public var room: String? { details?.room }
    /// The name the player is shown under, when its user data is in Tickwire's layout.
    public var displayName: String? { details?.displayName }
    /// The game's claims, when its user data is in Tickwire's layout; otherwise empty.
    public var claims: [UInt8] { details?.claims ?? [] }

    /// An identity from a token's user id and user data, read in Tickwire's layout when it is one.
    ///
    /// - Parameters:
    ///   - userID: The token's client id.
    ///   - userData: The token's user data.
    public init(userID: UInt64, userData: [UInt8]) {
        self.userID = userID
        self.userData = userData
        do {
            details = try ConnectTokenUserData(decoding: userData)
        } catch {
            // Not Tickwire's layout: a valid netcode.io token of another backend; the raw
            // bytes stay in `userData` for the game to read.
            details = nil
        }
    }

    /// An identity in Tickwire's layout, for a game's tests (a host gets its identities from tokens).
    ///
    /// - Parameters:
    ///   - userID: The user id.
    ///   - details: The room, display name and claims.
    /// - Throws: ``ConnectTokenUserDataError`` when they do not fit in 256 bytes of user data.
    public init(userID: UInt64, details: ConnectTokenUserData) throws(ConnectTokenUserDataError) {
        self.userID = userID
        self.userData = try details.encoded()
        self.details = details
    }
}

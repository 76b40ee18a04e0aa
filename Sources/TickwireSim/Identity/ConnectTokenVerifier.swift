import TickwireCodec

/// Opens the connect token a hello carries (`Protocol/PROTOCOL.md` 5.3.1) with the fleet's key
/// and says whose it is: the seam between the game core, which links no cryptography, and a
/// verifier that does (`NetcodeConnectTokenVerifier` in TickwireTokens, on libsodium).
///
/// A verifier checks the key and the expiry; the host checks the room and that each token is
/// used once (``UsedConnectTokens``). It runs on the thread that drives the host, once per
/// hello that carries a token.
public protocol ConnectTokenVerifier: Sendable {
    /// Verifies a hello's connect token.
    ///
    /// - Parameter token: The token as the hello carries it.
    /// - Returns: The player's identity, the token's expiry and the time of the check.
    /// - Throws: ``ConnectTokenRefusal``: ``Message/Reject/Reason/tokenExpired`` for a token
    ///   whose expiry has come, ``Message/Reject/Reason/tokenInvalid`` for one that does not
    ///   open with the key or whose user data is not Tickwire's layout.
    func verify(_ token: Message.Hello.ConnectToken) throws(ConnectTokenRefusal) -> VerifiedConnectToken
}

/// What a ``ConnectTokenVerifier`` learned from a token that opened.
public struct VerifiedConnectToken: Hashable, Sendable {
    /// Whose the token is.
    public let identity: PlayerIdentity
    /// The room the token reserves (from its user data).
    public let room: String
    /// The Unix time (seconds) the token expires; the host remembers it as used until then.
    public let expireTimestamp: UInt64
    /// The Unix time (seconds) of the check, by the verifier's clock.
    public let verifiedAt: UInt64
    /// What identifies the token among all others: its AEAD tag (``Message/Hello/ConnectToken/tag``).
    public let tag: [UInt8]

    /// Creates the result of a verification.
    ///
    /// - Parameters:
    ///   - identity: Whose the token is.
    ///   - room: The room it reserves.
    ///   - expireTimestamp: When it expires (Unix seconds).
    ///   - verifiedAt: The time of the check (Unix seconds).
    ///   - tag: The token's tag.
    public init(identity: PlayerIdentity, room: String, expireTimestamp: UInt64, verifiedAt: UInt64, tag: [UInt8]) {
        self.identity = identity
        self.room = room
        self.expireTimestamp = expireTimestamp
        self.verifiedAt = verifiedAt
        self.tag = tag
    }
}

/// Why a host refuses a hello's connect token: the reject reason (PROTOCOL.md 5.5, 9…14) and
/// words for the player.
public struct ConnectTokenRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reject reason the client gets.
    public let reason: Message.Reject.Reason
    /// Words for the player and the logs.
    public let text: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - reason: The reject reason, one of the token reasons (9…14).
    ///   - text: Words for the player.
    public init(_ reason: Message.Reject.Reason, _ text: String) {
        self.reason = reason
        self.text = text
    }

    /// The reason and the words.
    public var description: String { "\(reason): \(text)" }
}

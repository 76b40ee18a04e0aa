import TickwireCodec

/// Who asks to play: what a host knows of a hello that reached a room, handed to
/// ``Game/admit(_:in:)`` before the client is welcomed.
///
/// The host makes these; a game reads them (and its tests make their own). More of what a host
/// learns about a player joins as new properties, with defaults in the initializer, so a game's
/// `admit` and its tests keep compiling as they come (``identity`` was the first).
public struct AdmissionRequest: Hashable, Sendable {
    /// The player's number: the client id its welcome will carry. For a new player, the id the
    /// host gives it if admitted; for a resumed session, the id it held.
    public let player: UInt32
    /// The room the hello names (the empty string for the default room).
    public let room: String
    /// The hello's application payload, as the client sent it (untrusted; at most
    /// ``FrameLimits/maximumHelloPayloadBytes``).
    public let payload: [UInt8]
    /// Whether the hello resumes a held player with its resume token (the player is already in
    /// the world), rather than joining as a new one.
    public let isResuming: Bool
    /// The player's verified identity, when a connect token vouched for it (PROTOCOL.md 5.3.1):
    /// the token of this hello, or for a resumed session the token it first joined with. `nil`
    /// for anonymous play (a host without ``HostConfiguration/requiresTokens`` and a hello
    /// without a token).
    public let identity: PlayerIdentity?

    /// Creates a request, as a host does for a hello (for a game's own tests of its `admit`).
    ///
    /// - Parameters:
    ///   - player: The player's number.
    ///   - room: The room the hello names.
    ///   - payload: The hello's application payload.
    ///   - isResuming: Whether the hello resumes a held player.
    ///   - identity: The verified identity a connect token gave, if any.
    public init(player: UInt32, room: String, payload: [UInt8] = [], isResuming: Bool = false, identity: PlayerIdentity? = nil) {
        self.player = player
        self.room = room
        self.payload = payload
        self.isResuming = isResuming
        self.identity = identity
    }
}

/// A game's answer to an ``AdmissionRequest``: the player is admitted (welcomed, then added to
/// the world), or refused with an application reason and words for the player.
///
/// A refusal reaches the client as a reject (PROTOCOL.md 5.5) and a close with code 1008; a
/// ``ReconnectingSession`` treats it as final (state ``ConnectionState/refused(reason:text:)``)
/// and makes no more attempts.
public struct Admission: Hashable, Sendable {
    enum Decision: Hashable, Sendable {
        case admitted
        case refused(Message.Reject.Reason, String)
    }

    let decision: Decision

    /// The player plays.
    public static let admitted = Admission(decision: .admitted)

    /// The player does not play.
    ///
    /// - Parameters:
    ///   - reason: An application reason, 32768 and up (``Message/Reject/Reason/isApplicationReason``).
    ///     A reason below 32768 is Tickwire's to give: the host sends
    ///     ``Message/Reject/Reason/refusedByGame`` (32768) in its place, and logs a warning.
    ///   - text: Words for the player (cut to ``FrameLimits/maximumTextBytes`` UTF-8 bytes).
    /// - Returns: The refusal.
    public static func refused(_ reason: Message.Reject.Reason = .refusedByGame, text: String) -> Admission {
        Admission(decision: .refused(reason, text))
    }

    /// Whether the player plays.
    public var isAdmitted: Bool { decision == .admitted }
}

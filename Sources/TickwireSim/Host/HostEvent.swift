import TickwireCodec

/// Something that happened to a player on a ``Host``: a join, a resume, a departure or a
/// refusal, reported to ``Host/onEvent`` on the thread that drives the host.
///
/// More of what a host learns about a player joins as new properties, so a listener keeps
/// compiling as they come (``identity`` was the first).
public struct HostEvent: Hashable, Sendable, CustomStringConvertible {
    /// What happened: an extensible set of kinds.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's name.
        public let rawValue: String

        /// Creates a kind from its name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A new player was admitted and welcomed (its player is in the world).
        public static let joined = Kind(rawValue: "joined")
        /// A client resumed its held player with its resume token, on a new connection.
        public static let resumed = Kind(rawValue: "resumed")
        /// A player left the room: it is gone from the world (``HostEvent/departure`` says why).
        public static let left = Kind(rawValue: "left")
        /// A hello was refused (``HostEvent/refusal`` holds the reject's reason and words).
        /// Redirects to another process of a fleet are not refusals of the player and are not reported.
        public static let refused = Kind(rawValue: "refused")

        /// The name.
        public var description: String { rawValue }
    }

    /// Why a player left its room: an extensible set of causes.
    public struct Departure: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The cause's name.
        public let rawValue: String

        /// Creates a cause from its name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The client said it was leaving (a disconnect message).
        public static let leaving = Departure(rawValue: "leaving")
        /// The game kicked it (``Room/kick(_:text:allowRejoin:)``).
        public static let kicked = Departure(rawValue: "kicked")
        /// Its connection ended and its grace period ran out without a resume.
        public static let gracePeriodEnded = Departure(rawValue: "grace period ended")
        /// Its connection had ended and its held slot was let go, for the held-slot limit or to
        /// make room for a new player.
        public static let heldSlotReleased = Departure(rawValue: "held slot released")
        /// It sent more bad frames than the host allows.
        public static let protocolError = Departure(rawValue: "protocol error")
        /// The room closed (``Host/closeRoom(named:text:)``, or an idle room opened on demand).
        public static let roomClosed = Departure(rawValue: "room closed")
        /// The room moved to another process of the fleet, which the client follows (its player
        /// goes on there).
        public static let moved = Departure(rawValue: "moved")

        /// The name.
        public var description: String { rawValue }
    }

    /// What happened.
    public let kind: Kind
    /// The room: the one joined, resumed or left, or the one a refused hello named; `nil` for a
    /// refusal that came before a hello named a room (a first frame that was not a hello).
    public let room: String?
    /// The player's number (its client id); `nil` for a refused hello that asked for a new player.
    public let clientID: UInt32?
    /// Why the player left, for ``Kind/left``; otherwise `nil`.
    public let departure: Departure?
    /// The reject's reason and words, for ``Kind/refused``; otherwise `nil`.
    public let refusal: Message.Reject?
    /// The player's verified identity (PROTOCOL.md 5.3.1), for the join, resume or departure of a
    /// player a connect token vouched for, and for a refusal after its token was verified (a
    /// replay, another room, the game's own refusal); otherwise `nil` (anonymous play). A player
    /// restored from a saved state resumes with the identity saved with it
    /// (``ResumableClient/identity``); one saved by a version 1 ``RoomStateEncoding`` has none.
    public let identity: PlayerIdentity?

    /// Creates an event, as the host reports it; public so that a game can test its own
    /// ``Host/onEvent`` handler.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - room: The room's name, when the event has one.
    ///   - clientID: The player's client id, when the event has one.
    ///   - departure: Why the player left, for ``Kind/left``.
    ///   - refusal: The reject, for ``Kind/refused``.
    ///   - identity: The player's verified identity, when a connect token gave one.
    public init(
        kind: Kind, room: String?, clientID: UInt32?, departure: Departure? = nil, refusal: Message.Reject? = nil,
        identity: PlayerIdentity? = nil
    ) {
        self.kind = kind
        self.room = room
        self.clientID = clientID
        self.departure = departure
        self.refusal = refusal
        self.identity = identity
    }

    /// The kind, room and client, and why: `left room 'red' client 3 (kicked)`.
    public var description: String {
        var words = "\(kind)"
        if let room { words += " room '\(room)'" }
        if let clientID { words += " client \(clientID)" }
        if let identity { words += " user \(identity.userID)" }
        if let departure { words += " (\(departure))" }
        if let refusal { words += refusal.text.isEmpty ? " (\(refusal.reason))" : " (\(refusal.reason): \(refusal.text))" }
        return words
    }
}

import TickwireCodec

/// A new place for a ``ReconnectingSession`` whose player is gone for good (its resume token no
/// longer resumes anything and its connect token is spent or expired): where to connect, the
/// room to join there, and the connect token that admits a new player. A matchmaker's seat is
/// one (``ReconnectingSession/rejoiner``).
public struct RejoinTicket: Hashable, Sendable {
    /// The URL to connect to from now on (it replaces ``ReconnectingSession/entryURLs``), or `nil`
    /// to keep the entry URLs.
    public var url: String?
    /// The room the next hello names, or `nil` for the one the configuration or the URL's path names.
    public var room: String?
    /// The connect token the next hello carries (PROTOCOL.md 5.3.1), or `nil` to join without one.
    public var connectToken: Message.Hello.ConnectToken?

    /// A ticket.
    ///
    /// - Parameters:
    ///   - url: Where to connect from now on, or `nil` to keep the entry URLs.
    ///   - room: The room to join, or `nil`.
    ///   - connectToken: The connect token that admits the new player, or `nil`.
    public init(url: String?, room: String?, connectToken: Message.Hello.ConnectToken?) {
        self.url = url
        self.room = room
        self.connectToken = connectToken
    }
}

import TickwireFoundation
import TickwireSim
import TickwireWebSocket
import TickwireWebSocketTransport

extension Matchmaker {
    /// A ``ReconnectingSession`` that plays through `seat`, and asks this matchmaker for another
    /// seat of the same mode when it loses the player for good.
    ///
    /// The session connects to the seat's WebSocket URL, names its room, and joins with its
    /// ``MatchmakerSeat/helloToken``. After a loss it resumes with its resume token within the
    /// host's grace period, as any ``ReconnectingSession``; past it (the host refuses the resume,
    /// or a connect token that is spent or expired: ``ReconnectingSession/rejoinRefusals``; or no
    /// connection at all for ``ReconnectingSession/rejoinAfterLoss``, when its process died) its
    /// ``ReconnectingSession/rejoiner`` asks the matchmaker for a new seat (`joinOrCreate` of the
    /// seat's mode, with `options`), and the next attempt joins there as a new player. The
    /// matchmaker's request runs on the session's driving thread, which it blocks up to
    /// ``timeout``; a refusal with status 401 or 403 ends the session
    /// (``ConnectionState/refusedConnection(_:)``), any other failure is retried with backoff.
    ///
    /// - Parameters:
    ///   - seat: The seat to play through (from ``joinOrCreate(_:options:)`` and the others).
    ///   - game: The game (the same schema and step as the host's).
    ///   - clock: The clock to read.
    ///   - configuration: Compression, view and hello settings; its room and connect token are
    ///     the seat's.
    ///   - policy: Backoff between attempts, and when to give up.
    ///   - seed: Seeds the jitter of the backoff delays.
    ///   - options: The options sent when asking for a new seat (the `"name"` among them).
    ///   - open: Opens a connection to a URL; by default a ``WebSocketClientTransportConnection``.
    /// - Returns: The session, not started yet (its first ``ReconnectingSession/tick(input:)`` connects).
    /// - Throws: ``MatchmakerClientError`` when the seat has no `ws` or `wss` URL.
    public func session<G: Game>(
        joining seat: MatchmakerSeat, game: G, clock: any TickClock, configuration: ClientConfiguration = ClientConfiguration(),
        policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 0x7157, options: [String: JSONValue] = [:],
        open: @escaping ReconnectingSession<G>.URLOpener = Matchmaker.openWebSocket
    ) throws(MatchmakerClientError) -> ReconnectingSession<G> {
        guard let url = seat.webSocketURL else {
            throw MatchmakerClientError(
                .invalidRequest("the seat in room '\(seat.room)' has no ws or wss URL (it names \(seat.urls.keys.sorted()))"))
        }
        var configuration = configuration
        configuration.room = seat.room
        configuration.connectToken = seat.helloToken
        let session = ReconnectingSession(
            game: game, clock: clock, configuration: configuration, entryURLs: [url], policy: policy, seed: seed, open: open)
        session.rejoiner = rejoiner(mode: seat.mode, options: options)
        return session
    }

    /// Asks for a seat in a room of `mode` (`joinOrCreate`) and makes the session that plays
    /// through it (``session(joining:game:clock:configuration:policy:seed:options:open:)``).
    ///
    /// - Parameters:
    ///   - mode: The mode.
    ///   - options: The options sent, now and when asking again (the `"name"` among them).
    ///   - game: The game.
    ///   - clock: The clock to read.
    ///   - configuration: Compression, view and hello settings.
    ///   - policy: Backoff between attempts, and when to give up.
    /// - Returns: The session, not started yet.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
    public func joinOrCreateSession<G: Game>(
        _ mode: String, options: [String: JSONValue] = [:], game: G, clock: any TickClock,
        configuration: ClientConfiguration = ClientConfiguration(), policy: ReconnectPolicy = ReconnectPolicy()
    ) async throws(MatchmakerClientError) -> ReconnectingSession<G> {
        let seat = try await joinOrCreate(mode, options: options)
        return try session(joining: seat, game: game, clock: clock, configuration: configuration, policy: policy, options: options)
    }

    /// What a session asks this matchmaker for once its player is gone: a `joinOrCreate` seat of
    /// `mode`, as a ``RejoinTicket`` (the seat's WebSocket URL, room and hello token).
    ///
    /// - Parameters:
    ///   - mode: The mode.
    ///   - options: The options sent.
    /// - Returns: The closure for ``ReconnectingSession/rejoiner``.
    public func rejoiner(mode: String, options: [String: JSONValue] = [:]) -> () throws -> RejoinTicket {
        let matchmaker = self
        return { () throws(MatchmakerClientError) -> RejoinTicket in
            let seat = try matchmaker.seatNow(.joinOrCreate(mode: mode), options: options)
            guard let url = seat.webSocketURL else {
                throw MatchmakerClientError(.invalidAnswer(status: 200, words: "the seat in room '\(seat.room)' has no ws or wss URL"))
            }
            return RejoinTicket(url: url, room: seat.room, connectToken: seat.helloToken)
        }
    }

    /// Opens a ``WebSocketClientTransportConnection`` to `url` (the default opener of a
    /// matchmaker's session).
    ///
    /// - Parameter url: A `ws://` or `wss://` URL.
    /// - Returns: The connection, opening.
    /// - Throws: When the URL does not parse or the client's loop cannot start.
    public static func openWebSocket(_ url: String) throws -> any TransportConnection {
        try WebSocketClientTransportConnection(url: try WebSocketURL(url))
    }
}

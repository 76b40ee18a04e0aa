import TickwireCodec
import TickwireFoundation

/// A ``ClientSession`` that stays connected: it opens connections through a closure you
/// give it, and when one is lost it waits (exponential backoff with jitter, from a
/// ``ReconnectPolicy``) and opens another, resuming with the session's token so that a client
/// back within the host's grace period gets its own player again.
///
/// ```swift
/// let url = try WebSocketURL("ws://server:7777/main")
/// let client = ReconnectingSession(game: MyGame(), clock: MonotonicClock()) {
///     try WebSocketClientTransportConnection(url: url)
/// }
/// client.tick(input: myInput)      // once per client tick: reconnects when due, then ticks the session
/// let view = client.render()       // once per frame
/// ```
///
/// **Attempts and backoff.** The first attempt starts at the first ``tick(input:)`` (or
/// ``start()``). Every setback, a lost connection or a failed attempt, counts; after the
/// *k*-th setback in a row the session waits `policy.delay(forAttempt: k, unitRandom: u)`, with
/// `u` drawn from a ``SplitMix64`` seeded by `seed`, so runs are repeatable. A welcome resets
/// the count: the next loss waits the first, shortest delay again. An attempt fails when the
/// opener throws, the connection closes before the welcome, the welcome does not come within
/// ``handshakeTimeout``, or the server refuses the hello for a retryable reason.
///
/// **Refused connections.** A connection the server refuses before any game message, with a
/// status in ``finalConnectionRefusals`` (401 and 403 by default: over WebSocket, an upgrade
/// refused by `WebSocketServerConfiguration.shouldAccept`; over UDP, a token endpoint's answer,
/// which the opener throws as a ``TransportRefusalError``), ends the loop after that one
/// attempt (state ``ConnectionState/refusedConnection(_:)``, with the status and the server's
/// words); any other status is a failed attempt.
///
/// **Kicks.** A kick ends the loop (state ``ConnectionState/kicked(text:)``) unless the host
/// allowed a rejoin (``Room/kick(_:text:allowRejoin:)``, disconnect reason
/// ``Message/Disconnect/Reason/kickedMayRejoin``): then the session reconnects with backoff, as
/// after a lost connection, and comes back as a new player.
///
/// **Refusals.** A refused hello ends the loop (state ``ConnectionState/refused(reason:text:)``)
/// unless its reason is in ``retryableRefusals``: by default a full room (a place may free up),
/// a server shutting down (it or another process may come back) and a server holding its most
/// used connect tokens (one will expire). A version or schema mismatch, an unknown room, a bad
/// resume token, an invalid hello, a connect token refused (required, invalid, expired, already
/// used, for another room: PROTOCOL.md 5.3.1), no reason, and every
/// application reason (32768 and up, such as "banned") are final: the same hello would be
/// refused again.
///
/// **Rejoining.** A session with a ``rejoiner`` (a matchmaker's, in TickwireMatchmaker) treats
/// the refusals a host gives a player it no longer holds (``rejoinRefusals``: an unknown resume
/// token, a room gone, a connect token missing, expired or spent) as a failed attempt instead,
/// and before the next attempt asks the rejoiner for a ``RejoinTicket``: a new URL, room and
/// connect token, with which it joins as a new player. It asks too when it has been without a
/// connection for ``rejoinAfterLoss`` (its process died: nothing is left to refuse it).
///
/// **A fleet of processes.** Made with entry URLs and an opener that takes a URL
/// (``init(session:entryURLs:policy:seed:open:)``), the session finds its room by itself:
/// - a hello refused with reason ``Message/Reject/Reason/redirect`` (another process holds the
///   room) is sent again at once to the URL the reject carries, at most ``maximumRedirects``
///   times in a row; one more and the session stops, refused, with a ``RedirectError`` in
///   ``redirectError`` saying which URLs it went through;
/// - a lost connection or a failed attempt is retried (with backoff) at the entry URLs, not at
///   the process it was redirected to, which may be the one that died; each failed attempt at an
///   entry moves on to the next entry, so a list of entry URLs (every process, or any few)
///   stands in for a load balancer in front of the fleet;
/// - a disconnect with reason ``Message/Disconnect/Reason/moved`` (the process is draining, or
///   lost the room) reconnects at once, without backoff and without counting a setback, to the
///   URL it carries, or to the entries when it carries none.
///
/// The resume token carries over every hop, so the process that holds the room (restored from
/// the directory) gives the client its own player back.
///
/// Not thread-safe: one thread drives it, as it drives the ``ClientSession`` inside.
public final class ReconnectingSession<G: Game> {
    /// Opens one new connection to the host; throwing counts as a failed attempt, except a
    /// ``TransportRefusalError`` whose status is in ``finalConnectionRefusals``, which ends the loop.
    public typealias Opener = () throws -> any TransportConnection
    /// Opens one new connection to the process at a URL (an entry URL, or where a redirect or a
    /// moved disconnect points); throwing counts as a failed attempt, except a
    /// ``TransportRefusalError`` whose status is in ``finalConnectionRefusals``, which ends the loop.
    public typealias URLOpener = (String) throws -> any TransportConnection

    /// The most redirects followed in a row before the session gives up: 3.
    public static var defaultMaximumRedirects: Int { 3 }

    /// The session inside: the view, prediction, metrics and the resume token live there.
    public let session: ClientSession<G>
    /// How long to wait between attempts, and when to give up.
    public let policy: ReconnectPolicy
    /// Refusal reasons worth another attempt (after the usual backoff); every other refusal is final.
    public var retryableRefusals: Set<Message.Reject.Reason> = [.roomFull, .serverShuttingDown, .tokensExhausted]
    /// Statuses of a transport's refusal (``TransportRefusal/status``; for WebSocket, the HTTP
    /// status of a refused upgrade) that end the loop: by default 401 and 403, a token or an
    /// origin the server does not accept, which the same attempt would meet again. Every other
    /// refusal (a 429 or a 503 from a busy server) is a failed attempt, retried with backoff.
    public var finalConnectionRefusals: Set<Int> = [401, 403]
    /// How long an attempt may wait for the welcome before it counts as failed.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Called with every state ``state`` takes, in order, on the driving thread. Setting it
    /// calls it at once with the current state (so the first ``ConnectionState/connecting(attempt:)``
    /// is always reported, whenever the hook is set); from then on it hears each state of a tick
    /// that passes through several (a welcome whose connection is lost within the same tick
    /// reports ``ConnectionState/connected(resumed:)``, then ``ConnectionState/waitingToReconnect(attempt:at:)``).
    public var onStateChange: ((ConnectionState) -> Void)? {
        didSet { onStateChange?(state) }
    }

    /// Where the connection stands (before the first attempt starts, the state it will take:
    /// ``ConnectionState/connecting(attempt:)`` with attempt 1).
    public private(set) var state = ConnectionState.connecting(attempt: 1) {
        didSet { onStateChange?(state) }
    }
    /// Successful connections after the first one.
    public private(set) var reconnects = 0
    /// Attempts that did not end in a welcome, over the session's life.
    public private(set) var failedAttempts = 0
    /// Why the last connection was lost or the last attempt failed, in words.
    public private(set) var lastFailure: String?
    /// Whether the session stopped because the policy gave up (state ``ConnectionState/left``
    /// without a call to ``leave()``).
    public private(set) var hasGivenUp = false
    /// The connection the current (or last) attempt opened.
    public private(set) var connection: (any TransportConnection)?
    /// Where the session enters the fleet: tried in turn, one further on after each failed
    /// attempt at one. A session made with an ``Opener`` has one, the empty string. A
    /// ``rejoiner``'s ticket with a URL replaces them with it.
    public private(set) var entryURLs: [String]
    /// Gives the session a new place to join as a new player (``RejoinTicket``: a URL, a room,
    /// a fresh connect token) once its player is gone for good: asked before the attempt that
    /// follows a hello refused for a reason in ``rejoinRefusals``. Throwing counts as a failed
    /// attempt (asked again at the next one), except a ``TransportRefusalError`` whose status is
    /// in ``finalConnectionRefusals``, which ends the loop. Runs on the driving thread, which it
    /// may block (a matchmaker's HTTP request). `nil` (default): those refusals are final.
    public var rejoiner: (() throws -> RejoinTicket)?
    /// The refusals after which the session asks its ``rejoiner`` for a new place, when it has
    /// one: by default a resume token the host does not know (``Message/Reject/Reason/badResumeToken``),
    /// a room gone (``Message/Reject/Reason/unknownRoom``), and a connect token missing, expired
    /// or already used (``Message/Reject/Reason/tokenRequired``, ``Message/Reject/Reason/tokenExpired``,
    /// ``Message/Reject/Reason/tokenAlreadyUsed``): what a host answers a player past its resume
    /// grace period, or one whose seat was given back.
    public var rejoinRefusals: Set<Message.Reject.Reason> = [
        .badResumeToken, .unknownRoom, .tokenRequired, .tokenExpired, .tokenAlreadyUsed,
    ]
    /// With a ``rejoiner``: how long the session may stay without a connection, after its last
    /// one was lost, before its next attempt asks the rejoiner for a new place anyway. A process
    /// that died leaves nobody to refuse the resume: its URL only fails, while the fleet gave the
    /// room (or not) to another. Default 30 s (a host's default resume grace period); `nil`: only
    /// the refusals of ``rejoinRefusals`` lead to a new place.
    public var rejoinAfterLoss: Duration? = .seconds(30)
    /// When the last connection was lost, while none has been welcomed since.
    private var lostAt: Timestamp?
    /// Tickets the ``rejoiner`` gave, over the session's life.
    public private(set) var rejoins = 0
    /// Whether the next attempt asks the ``rejoiner`` for a new place first: set by a refusal in
    /// ``rejoinRefusals``, cleared by a ticket. Set it before ``start()`` to take the first place
    /// from the rejoiner too (a session made with no entry URLs, whose first seat a matchmaker
    /// gives on the driving thread, as `tickwire load --matchmaker` does).
    public var isRejoinPending = false
    /// The most redirects followed in a row (without a welcome or a failed attempt between
    /// them); one more ends the session with a ``RedirectError``. Default
    /// ``defaultMaximumRedirects``.
    public var maximumRedirects = ReconnectingSession.defaultMaximumRedirects
    /// The URL of the current (or last) attempt.
    public private(set) var currentURL: String?
    /// Redirects followed, over the session's life.
    public private(set) var redirectsFollowed = 0
    /// Moved disconnects followed (reconnections at once), over the session's life.
    public private(set) var movesFollowed = 0
    /// Why the session stopped at a redirect, when it did (state ``ConnectionState/refused(reason:text:)``
    /// with reason ``Message/Reject/Reason/redirect``).
    public private(set) var redirectError: RedirectError?

    private let open: URLOpener
    /// Whether the opener takes a URL (a session made with an ``Opener`` cannot follow a redirect).
    private let followsURLs: Bool
    /// Where the next attempt goes instead of an entry: a redirect's or a moved disconnect's URL.
    private var target: String?
    private var entryIndex = 0
    /// The URLs of the redirects followed in a row.
    private var redirectChain: [String] = []
    private var random: SplitMix64
    /// Lost connections and failed attempts since the last welcome.
    private var setbacks = 0
    /// Attempts since the last welcome.
    private var attempt = 0
    private var attemptStartedAt = Timestamp.zero
    private var hasStarted = false
    private var hasConnected = false
    /// Whether an attempt was ever opened.
    private var hasOpened = false
    /// The inner session's welcome count already reported as connected.
    private var welcomesSeen = 0

    /// Wraps a session that is not connected yet.
    ///
    /// - Parameters:
    ///   - session: The session to keep connected.
    ///   - policy: Backoff between attempts, and when to give up.
    ///   - seed: Seeds the jitter of the backoff delays.
    ///   - open: Opens a new connection to the host, once per attempt.
    public init(session: ClientSession<G>, policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 0x7157, open: @escaping Opener) {
        self.session = session
        self.welcomesSeen = session.welcomes
        self.policy = policy
        self.random = SplitMix64(seed: seed)
        self.open = { _ in try open() }
        self.entryURLs = [""]
        self.followsURLs = false
    }

    /// Wraps a session that is not connected yet and enters a fleet through `entryURLs`,
    /// following redirects and moved disconnects by itself.
    ///
    /// - Parameters:
    ///   - session: The session to keep connected.
    ///   - entryURLs: Where to enter the fleet, tried in turn (at least one; with none, every
    ///     attempt fails).
    ///   - policy: Backoff between attempts, and when to give up.
    ///   - seed: Seeds the jitter of the backoff delays.
    ///   - open: Opens a new connection to a URL, once per attempt.
    public init(
        session: ClientSession<G>, entryURLs: [String], policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 0x7157,
        open: @escaping URLOpener
    ) {
        self.session = session
        self.welcomesSeen = session.welcomes
        self.policy = policy
        self.random = SplitMix64(seed: seed)
        self.open = open
        self.entryURLs = entryURLs
        self.followsURLs = true
    }

    /// Creates the session and wraps it.
    ///
    /// - Parameters:
    ///   - game: The game (the same schema and step as the host's).
    ///   - clock: The clock to read.
    ///   - configuration: Room, hello payload, compression and view settings.
    ///   - policy: Backoff between attempts, and when to give up.
    ///   - seed: Seeds the jitter of the backoff delays.
    ///   - open: Opens a new connection to the host, once per attempt.
    public convenience init(
        game: G, clock: any TickClock, configuration: ClientConfiguration = ClientConfiguration(),
        policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 0x7157, open: @escaping Opener
    ) {
        self.init(session: ClientSession(game: game, clock: clock, configuration: configuration), policy: policy, seed: seed, open: open)
    }

    /// Creates the session and wraps it, entering a fleet through `entryURLs`.
    ///
    /// - Parameters:
    ///   - game: The game (the same schema and step as the host's).
    ///   - clock: The clock to read.
    ///   - configuration: Room, hello payload, compression and view settings.
    ///   - entryURLs: Where to enter the fleet, tried in turn.
    ///   - policy: Backoff between attempts, and when to give up.
    ///   - seed: Seeds the jitter of the backoff delays.
    ///   - open: Opens a new connection to a URL, once per attempt.
    public convenience init(
        game: G, clock: any TickClock, configuration: ClientConfiguration = ClientConfiguration(), entryURLs: [String],
        policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 0x7157, open: @escaping URLOpener
    ) {
        self.init(
            session: ClientSession(game: game, clock: clock, configuration: configuration), entryURLs: entryURLs, policy: policy,
            seed: seed, open: open)
    }

    /// The clock the session reads.
    public var clock: any TickClock { session.clock }

    /// The client's tick rate: the server's, once welcomed.
    public var tickRate: Int { session.tickRate }

    /// Opens the first connection now, rather than at the first ``tick(input:)``. Does nothing
    /// once started.
    public func start() {
        guard !hasStarted, !state.isFinal else { return }
        hasStarted = true
        openConnection()
    }

    /// One client tick: opens the next connection when one is due, ticks the session (taking in
    /// what arrived and sending `input`), and updates ``state``.
    ///
    /// - Parameter input: This tick's input, or `nil` to send only the acknowledgement.
    public func tick(input: G.Input?) {
        guard !state.isFinal else { return }
        if !hasStarted {
            start()
        } else if case .waitingToReconnect(_, let at) = state, clock.now >= at {
            openConnection()
        }
        session.tick(input: input)
        observeSession()
    }

    /// The world to draw now (see ``ClientSession/render()``). Rendering takes in what arrived,
    /// so it updates ``state`` too.
    ///
    /// - Returns: The view, or `nil` before the first snapshot.
    public func render() -> WorldView? {
        let view = session.render()
        observeSession()
        return view
    }

    /// Leaves the game: tells the host (which frees the player at once), closes, and makes no
    /// more attempts. The state becomes ``ConnectionState/left`` unless it is already final.
    public func leave() {
        session.leave()
        connection = nil
        if !state.isFinal { state = .left }
    }

    private func openConnection() {
        attempt += 1
        attemptStartedAt = clock.now
        // The very first attempt is the state the session was made in, already reported.
        if hasOpened || state != .connecting(attempt: attempt) { state = .connecting(attempt: attempt) }
        hasOpened = true
        if !isRejoinPending, rejoiner != nil, let lostAt, let limit = rejoinAfterLoss, clock.now - lostAt >= limit {
            // Gone too long to resume anywhere; the next loss, if this one also fails, counts from now.
            isRejoinPending = true
            self.lostAt = clock.now
        }
        if isRejoinPending, let rejoiner {
            do {
                let ticket = try rejoiner()
                isRejoinPending = false
                rejoins += 1
                session.rejoin(room: ticket.room, connectToken: ticket.connectToken)
                if let url = ticket.url {
                    entryURLs = [url]
                    entryIndex = 0
                    target = nil
                }
            } catch {
                if let refusal = (error as? any TransportRefusalError)?.transportRefusal, finalConnectionRefusals.contains(refusal.status) {
                    return stop(refusedWith: refusal)
                }
                return failAttempt(because: "could not get a new place to join: \(error)")
            }
        }
        let url = target ?? (entryURLs.isEmpty ? nil : entryURLs[entryIndex % entryURLs.count])
        currentURL = url
        guard let url else { return failAttempt(because: "no entry URL was given") }
        do {
            let connection = try open(url)
            self.connection = connection
            session.connect(over: connection)
        } catch {
            if let refusal = (error as? any TransportRefusalError)?.transportRefusal, finalConnectionRefusals.contains(refusal.status) {
                return stop(refusedWith: refusal)
            }
            failAttempt(because: "could not open a connection: \(error)")
        }
    }

    /// Ends the loop on a refusal of the connection itself that retrying cannot fix.
    private func stop(refusedWith refusal: TransportRefusal) {
        connection?.close()
        connection = nil
        lastFailure = "refused by the server: \(refusal)"
        state = .refusedConnection(refusal)
        session.configuration.logSink.log(
            .error, "the server refused the connection; not reconnecting",
            metadata: ["status": "\(refusal.status)", "reason": refusal.reason, "text": refusal.text, "url": currentURL ?? "none"],
            source: "client")
    }

    /// Moves ``state`` on from what the session's status says now.
    private func observeSession() {
        if case .connecting = state, session.welcomes > welcomesSeen {
            // Welcomed, even if the connection ended again within this tick: connected first.
            welcomesSeen = session.welcomes
            if hasConnected { reconnects += 1 }
            hasConnected = true
            lostAt = nil
            setbacks = 0
            attempt = 0
            target = nil
            redirectChain.removeAll()
            state = .connected(resumed: session.wasResumed)
        }
        switch state {
        case .connecting:
            switch session.status {
            case .connected:
                break  // reported above, with the welcome
            case .rejected(.redirect, let url) where followsURLs && !url.isEmpty:
                follow(redirectTo: url)
            case .rejected(let reason, let text) where rejoiner != nil && rejoinRefusals.contains(reason):
                // The player is gone for good: a new place, then a new player, at the next attempt.
                isRejoinPending = true
                failAttempt(because: (text.isEmpty ? "refused: \(reason)" : "refused: \(reason): \(text)") + "; asking for a new place")
            case .rejected(let reason, let text):
                if retryableRefusals.contains(reason) {
                    failAttempt(because: text.isEmpty ? "refused: \(reason)" : "refused: \(reason): \(text)")
                } else {
                    // Final: no later tick drains or closes this connection, so close it now.
                    connection?.close()
                    connection = nil
                    state = .refused(reason: reason, text: text)
                    session.configuration.logSink.log(
                        .error, "the server refused the session; not reconnecting",
                        metadata: ["reason": "\(reason)", "text": text, "url": currentURL ?? "none"], source: "client")
                }
            case .disconnected(_) where session.closeReason?.refusal.map({ finalConnectionRefusals.contains($0.status) }) ?? false:
                stop(refusedWith: session.closeReason?.refusal ?? TransportRefusal(status: 0, reason: ""))
            case .disconnected(let reason):
                failAttempt(because: reason)
            case .idle, .handshaking:
                if clock.now - attemptStartedAt > handshakeTimeout {
                    connection?.close()
                    failAttempt(because: "no welcome within \(handshakeTimeout)")
                }
            }
        case .connected:
            if case .connected = session.status {
            } else if lostAt == nil {
                lostAt = clock.now
            }
            switch session.status {
            case .connected: break
            case .disconnected where session.lastDisconnect?.reason == .kicked:
                // A final kick: the player is gone and the host wants it gone.
                let text = session.lastDisconnect?.text ?? ""
                connection?.close()
                connection = nil
                lastFailure = text.isEmpty ? "kicked" : "kicked: \(text)"
                state = .kicked(text: text)
                session.configuration.logSink.log(
                    .error, "the server kicked the player; not reconnecting", metadata: ["text": text, "url": currentURL ?? "none"],
                    source: "client")
            case .disconnected where session.lastDisconnect?.reason == .moved:
                // Draining or lost room: at once, to the URL given or the entries, no setback.
                let url = session.lastDisconnect?.text ?? ""
                movesFollowed += 1
                lastFailure = url.isEmpty ? "moved: reconnecting through the entry URLs" : "moved to \(url)"
                target = url.isEmpty || !followsURLs ? nil : url
                redirectChain.removeAll()
                attempt = 0
                openConnection()
            case .disconnected(let reason): scheduleNextAttempt(because: reason)
            case .rejected(_, let text): scheduleNextAttempt(because: text)
            case .idle, .handshaking: scheduleNextAttempt(because: "the connection was reset")
            }
        case .waitingToReconnect, .refused, .refusedConnection, .kicked, .left:
            break
        }
    }

    /// Sends the hello again at once to where a redirect points, or stops past ``maximumRedirects``.
    private func follow(redirectTo url: String) {
        redirectChain.append(url)
        guard redirectChain.count <= maximumRedirects else {
            let error = RedirectError(.tooManyRedirects(limit: maximumRedirects, urls: redirectChain))
            redirectError = error
            connection?.close()
            connection = nil
            state = .refused(reason: .redirect, text: error.description)
            session.configuration.logSink.log(.error, "gave up following redirects", metadata: ["error": "\(error)"], source: "client")
            return
        }
        redirectsFollowed += 1
        target = url
        openConnection()
    }

    private func failAttempt(because reason: String) {
        failedAttempts += 1
        // The next attempt starts a new search from the entries, the next entry when this one failed.
        if target == nil, !entryURLs.isEmpty { entryIndex = (entryIndex + 1) % entryURLs.count }
        target = nil
        redirectChain.removeAll()
        scheduleNextAttempt(because: reason)
    }

    /// Counts a setback and waits for the next attempt, or gives up as the policy says.
    private func scheduleNextAttempt(because reason: String) {
        lastFailure = reason
        target = nil
        setbacks += 1
        let attemptsExhausted = policy.maximumAttempts.map { attempt >= $0 } ?? false
        let metadata = ["reason": reason, "attempt": "\(attempt)", "url": currentURL ?? "none"]
        guard policy.isEnabled, !attemptsExhausted else {
            hasGivenUp = true
            connection?.close()
            connection = nil
            state = .left
            session.configuration.logSink.log(
                .error, policy.isEnabled ? "out of reconnection attempts; the session ends" : "connection lost; the session ends",
                metadata: metadata, source: "client")
            return
        }
        let delay = policy.delay(forAttempt: setbacks, unitRandom: Double.random(in: 0..<1, using: &random))
        session.configuration.logSink.log(
            .warning, "connection lost or attempt failed; reconnecting in \(delay)", metadata: metadata, source: "client")
        state = .waitingToReconnect(attempt: attempt + 1, at: clock.now + delay)
    }
}

@available(*, unavailable, message: "A ReconnectingSession is driven from one thread.")
extension ReconnectingSession: Sendable {}

/// What a transport connection reports when its inbox is drained.
public enum TransportEvent: Hashable, Sendable {
    /// One complete frame from the peer, in order of arrival.
    case frame([UInt8])
    /// The connection is closed; no more events follow.
    case closed(TransportCloseReason)
}

/// Why a transport connection closed, as its ``TransportEvent/closed(_:)`` event tells it.
///
/// A `struct` with static members so that transports can add their own reasons. Besides a
/// short name it carries the close code and reason text the peer sent
/// (``TransportConnection/close(code:reason:)``; PROTOCOL.md section 1.3), when one arrived:
/// a client session acts on the code (for example, 4000 or 4003 make reconnecting pointless)
/// and shows the text.
public struct TransportCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// A short name of the reason.
    public let name: String
    /// The close code the peer sent; `nil` when none arrived (the connection was cut, or this
    /// side closed it first, or the peer's close frame had no code).
    public let code: CloseCode?
    /// The reason text the peer sent with its close code (at most 123 UTF-8 bytes); empty when none.
    public let text: String
    /// The server's refusal of the connection before any game message (for WebSocket, an
    /// upgrade answered with an HTTP status other than 101), when that is how it ended.
    public let refusal: TransportRefusal?

    /// Creates a reason.
    ///
    /// - Parameters:
    ///   - name: A short, human-readable name.
    ///   - code: The close code the peer sent, if any.
    ///   - text: The reason text the peer sent, if any.
    ///   - refusal: The server's refusal of the connection, if it refused it.
    public init(_ name: String, code: CloseCode? = nil, text: String = "", refusal: TransportRefusal? = nil) {
        self.name = name
        self.code = code
        self.text = text
        self.refusal = refusal
    }

    /// The server refused the connection before any game message.
    ///
    /// - Parameter refusal: Its status and words.
    /// - Returns: The reason, named `refused by server`.
    public static func refused(_ refusal: TransportRefusal) -> TransportCloseReason {
        TransportCloseReason("refused by server", refusal: refusal)
    }

    /// The peer closed the connection in an orderly way, with `code` and `text`.
    ///
    /// - Parameters:
    ///   - code: The close code the peer sent (1000 for a plain ``TransportConnection/close()``),
    ///     or `nil` when its close carried none.
    ///   - text: The reason text the peer sent.
    /// - Returns: The reason.
    public static func closedByPeer(code: CloseCode?, text: String = "") -> TransportCloseReason {
        TransportCloseReason("closed by peer", code: code, text: text)
    }

    /// This side closed the connection.
    public static let closedLocally = TransportCloseReason("closed locally")
    /// The connection was cut (network failure, simulated disconnect, socket error).
    public static let connectionLost = TransportCloseReason("connection lost")

    /// The name, then the code and text when there are any: `closed by peer (4001: room full)`,
    /// `refused by server (401 Unauthorized: the token expired)`.
    public var description: String {
        if let refusal { return "\(name) (\(refusal))" }
        guard let code else { return name }
        return text.isEmpty ? "\(name) (\(code))" : "\(name) (\(code): \(text))"
    }
}

/// The most UTF-8 bytes of a close reason text (a WebSocket close frame's limit, RFC 6455 5.5).
public let transportCloseReasonMaximumBytes = 123

extension String {
    /// The longest prefix of the string, cut at a character boundary, that fits in `limit`
    /// UTF-8 bytes.
    package func prefix(utf8Bytes limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }
}

/// What became of a frame handed to ``TransportConnection/send(_:)``, or what would become of
/// one sent now (``TransportConnection/readiness(budgetBytes:)``): the one backpressure signal.
public enum TransportSendResult: Hashable, Sendable, CustomStringConvertible {
    /// The frame was queued for the peer (or would be).
    case taken
    /// Refused: the connection's send buffer is backed up (the peer reads too slowly); the
    /// connection is still open and may take frames again once it drains.
    case backedUp
    /// Refused: the connection is closed or closing.
    case closed

    /// Whether the frame was (or would be) queued.
    public var isTaken: Bool { self == .taken }

    /// `taken`, `backed up` or `closed`.
    public var description: String {
        switch self {
        case .taken: "taken"
        case .backedUp: "backed up"
        case .closed: "closed"
        }
    }
}

/// One connection that carries whole frames (byte arrays) both ways.
///
/// The contract every implementation keeps, so that the host and client sessions can run
/// unchanged over the simulated network and over WebSockets:
/// - ``send(_:)`` never blocks: it queues the frame and says whether it did
///   (``TransportSendResult``); ``bufferedBytes`` tells how much is still queued.
/// - ``readiness(budgetBytes:)`` says, before anything is encoded, whether a frame sent now
///   would be taken with at most a budget of bytes queued. A sender that must not drop a frame
///   once encoded (a streaming-compressed one, whose body is already in the deflate history)
///   asks first and skips the message when the answer is not ``TransportSendResult/taken``;
///   this is how the host skips snapshots for a backed-up client.
/// - Incoming frames collect in an inbox (protected by a lock when another thread fills
///   it) and are taken out only by ``drain()``, once per tick, so the simulation stays
///   single-threaded and deterministic.
/// - After a `.closed` event, a connection delivers nothing more and refuses what is sent
///   (``TransportSendResult/closed``).
public protocol TransportConnection: AnyObject, Sendable {
    /// A number identifying the connection within its transport, for logs and metrics.
    var connectionID: UInt64 { get }

    /// Queues `frame` for the peer without blocking.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: ``TransportSendResult/taken`` when queued; ``TransportSendResult/backedUp``
    ///   when the transport's own send buffer limit refused it; ``TransportSendResult/closed``
    ///   once the connection is closed. A refused frame is not sent.
    @discardableResult
    func send(_ frame: [UInt8]) -> TransportSendResult

    /// Bytes handed to ``send(_:)`` that have not yet left this side.
    var bufferedBytes: Int { get }

    /// Whether a frame sent now would be taken, for a sender that allows at most `budgetBytes`
    /// queued: the one backpressure signal, asked before a frame is encoded.
    ///
    /// The default answers ``TransportSendResult/closed`` when ``isClosed``,
    /// ``TransportSendResult/backedUp`` when ``bufferedBytes`` is over `budgetBytes`, else
    /// ``TransportSendResult/taken``; a transport with a send buffer limit of its own also
    /// answers `backedUp` when ``send(_:)`` would refuse.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now.
    func readiness(budgetBytes: Int) -> TransportSendResult

    /// Takes every event that has arrived since the last call, oldest first.
    ///
    /// - Returns: The frames (and at most one final `.closed`) received so far.
    func drain() -> [TransportEvent]

    /// Takes every event that has arrived since the last call, oldest first, each with how long
    /// it waited on this side before this call (``TransportArrival/waited``).
    ///
    /// A host and a client session drain through this, so that pings and pongs are timed from
    /// their arrival rather than from the next tick. The default calls ``drain()`` and says
    /// every event waited zero (it arrived at the drain). A connection that keeps its frames
    /// in a ``TransportInbox`` (which stamps each one as it is pushed) implements it in one
    /// line, `inbox.drainArrivals()`, and implements ``drain()`` as `inbox.drain()`.
    ///
    /// - Returns: The events (and at most one final `.closed`) received so far, with their waits.
    func drainArrivals() -> [TransportArrival]

    /// Closes the connection with a close code and a reason text; the peer receives what was
    /// already sent, then `.closed` with a ``TransportCloseReason`` carrying `code` and `reason`.
    ///
    /// The codes are PROTOCOL.md section 1.3's: 1000 for a normal end, 1001 when the server
    /// shuts down, 4000–4006 for Tickwire's reasons (``CloseCode/roomFull`` and
    /// the rest). A transport that has no close frames of its own (the simulated network)
    /// hands both to the peer's `.closed` event all the same.
    ///
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: Words for a person and a log; cut to
    ///     ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    func close(code: CloseCode, reason: String)

    /// Whether this side knows the connection is closed.
    var isClosed: Bool { get }

    /// The path the client side asked for when it opened the connection (a WebSocket URL's
    /// path, such as `/main`), or `nil` for a transport without one. A ``ClientSession`` whose
    /// ``ClientConfiguration/room`` is `nil` joins the room it names (see ``ClientSession/room``).
    var requestPath: String? { get }

    /// Whether every frame sent arrives, in the order sent (a stream transport such as
    /// WebSocket, the default); `false` for a transport that may lose frames or deliver them
    /// out of order (UDP, whose snapshots travel unreliably). A host never selects streaming
    /// compression, which needs every frame in order, on such a connection (PROTOCOL.md 1A.1).
    var deliversFramesInOrder: Bool { get }

    /// The player's identity when the transport itself verified a connect token to open the
    /// connection (UDP: netcode.io's handshake opens the token with the fleet's key, checks its
    /// expiry and lets it connect once), else `nil` (the default; WebSocket, whose token comes in
    /// the hello, PROTOCOL.md 5.3.1). A host takes it as the hello's verified identity: it checks
    /// only the room, when the token's user data names one.
    var identity: PlayerIdentity? { get }
}

extension TransportConnection {
    /// Closes the connection normally: ``close(code:reason:)`` with 1000 and no reason.
    public func close() { close(code: .normalClosure, reason: "") }

    /// The events of ``drain()``, each said to have waited zero: a transport that does not
    /// know when its frames arrived (the default).
    ///
    /// - Returns: The events, oldest first.
    public func drainArrivals() -> [TransportArrival] { drain().map { TransportArrival($0) } }

    /// No path: the transport's connections do not ask for one (the default).
    public var requestPath: String? { nil }

    /// Every frame arrives, in order (the default).
    public var deliversFramesInOrder: Bool { true }

    /// No identity: the transport verified no token (the default).
    public var identity: PlayerIdentity? { nil }

    /// Whether a frame sent now would be taken: closed, over `budgetBytes` queued, or taken.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: ``TransportSendResult/closed``, ``TransportSendResult/backedUp`` or ``TransportSendResult/taken``.
    public func readiness(budgetBytes: Int) -> TransportSendResult {
        if isClosed { return .closed }
        return bufferedBytes > budgetBytes ? .backedUp : .taken
    }
}

/// The accepting side of a transport: where a host finds its new connections.
public protocol TransportListener: AnyObject, Sendable {
    /// Takes the connections accepted since the last call, in order of arrival.
    ///
    /// - Returns: The new connections.
    func acceptPending() -> [any TransportConnection]

    /// Runs `body`, in which the host sends to many connections, so that the transport can
    /// hand the frames on in one batch rather than one by one (a WebSocket transport wakes its
    /// socket loop once, not once per connection). The frames must still all leave.
    ///
    /// - Parameter body: The sending.
    func batchingSends(_ body: () -> Void)
}

extension TransportListener {
    /// Runs `body` as it is: a transport without batching sends each frame as it comes.
    ///
    /// - Parameter body: The sending.
    public func batchingSends(_ body: () -> Void) { body() }
}

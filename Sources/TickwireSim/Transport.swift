/// What a transport connection reports when its inbox is drained.
public enum TransportEvent: Hashable, Sendable {
    /// One complete frame from the peer, in order of arrival.
    case frame([UInt8])
    /// The connection is closed; no more events follow.
    case closed(TransportCloseReason)
}

/// Why a transport connection closed.
///
/// A `struct` with static members so that transports can add their own reasons.
public struct TransportCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// A short name of the reason.
    public let name: String

    /// Creates a reason.
    ///
    /// - Parameter name: A short, human-readable name.
    public init(_ name: String) { self.name = name }

    /// The peer closed the connection in an orderly way.
    public static let closedByPeer = TransportCloseReason("closed by peer")
    /// This side closed the connection.
    public static let closedLocally = TransportCloseReason("closed locally")
    /// The connection was cut (network failure, simulated disconnect, socket error).
    public static let connectionLost = TransportCloseReason("connection lost")

    public var description: String { name }
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

    /// Closes the connection; the peer receives what was already sent, then `.closed`.
    func close()

    /// Whether this side knows the connection is closed.
    var isClosed: Bool { get }
}

extension TransportConnection {
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

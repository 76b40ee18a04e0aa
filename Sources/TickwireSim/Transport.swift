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

/// One connection that carries whole frames (byte arrays) both ways.
///
/// The contract every implementation keeps, so that the host and client sessions can run
/// unchanged over the simulated network and over WebSockets:
/// - ``send(_:)`` never blocks: it queues the frame and returns; ``bufferedBytes`` tells
///   how much is still queued, which is how the host notices a backed-up client.
/// - Incoming frames collect in an inbox (protected by a lock when another thread fills
///   it) and are taken out only by ``drain()``, once per tick, so the simulation stays
///   single-threaded and deterministic.
/// - After a `.closed` event, a connection delivers nothing more and drops what is sent.
public protocol TransportConnection: AnyObject, Sendable {
    /// A number identifying the connection within its transport, for logs and metrics.
    var connectionID: UInt64 { get }

    /// Queues `frame` for the peer without blocking; ignored once the connection is closed.
    ///
    /// - Parameter frame: The frame's bytes.
    func send(_ frame: [UInt8])

    /// Bytes handed to ``send(_:)`` that have not yet left this side.
    var bufferedBytes: Int { get }

    /// Takes every event that has arrived since the last call, oldest first.
    ///
    /// - Returns: The frames (and at most one final `.closed`) received so far.
    func drain() -> [TransportEvent]

    /// Closes the connection; the peer receives what was already sent, then `.closed`.
    func close()

    /// Whether this side knows the connection is closed.
    var isClosed: Bool { get }
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

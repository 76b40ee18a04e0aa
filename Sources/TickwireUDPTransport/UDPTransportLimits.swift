import TickwirePacket

/// The bounds of a UDP transport connection beyond the packet layer's own
/// (`PacketLimits`, PROTOCOL.md 1A.7): the frames handed over by the sending thread and not
/// yet taken by the event loop, the close linger, the timer's period and the connection
/// requests one host may send.
///
/// Frames on the reliable-ordered channel are also bounded by the packet layer's reliable send
/// queue (`PacketLimits.reliableSendQueueMessages`, `PacketLimits.reliableSendQueueBytes`),
/// which a connection counts as it takes them: ``TransportConnection/send(_:)`` answers
/// ``TransportSendResult/backedUp`` rather than overflow it.
public struct UDPTransportLimits: Hashable, Sendable {
    /// The most frames handed to ``TransportConnection/send(_:)`` and not yet passed to the
    /// packet layer on the event loop; one more is refused as backed up. Default 1024.
    public var maximumQueuedFrames = 1024
    /// The most bytes of such frames; a frame that would pass it is refused as backed up.
    /// Default 1 MiB.
    public var maximumQueuedBytes = 1 << 20
    /// How long, in seconds, a closing side waits for its close message to be acknowledged
    /// before it sends netcode.io's disconnect anyway; also how long a side that received a
    /// close keeps acknowledging before it drops the peer. Default 0.5.
    public var closeLinger = 0.5
    /// The period, in seconds, of the loop's timer that runs netcode.io's keep-alives and
    /// timeouts and the packet layer's acks and resends. Default 0.01.
    public var updateInterval = 0.01
    /// The most netcode.io connection requests a server reads from one host (any port) in a
    /// second, and in one burst; one more is dropped unread and counted
    /// (``UDPTransportServer/Statistics/connectionRequestsOverBudget``). A request costs the
    /// server a decryption and, when valid, a challenge; a client sends 10 a second until it is
    /// challenged. The default lets as many players as a WebSocket server admits from one address
    /// (64, `WebSocketServerConfiguration.maximumConnectionsPerAddress`: a NAT's players, a load
    /// test) connect at once. At least 1 (clamped). Default 64.
    public var connectionRequestsPerAddressPerSecond = 64
    /// The packet layer's limits, which both peers must share (PROTOCOL.md 1A.7).
    public var packet = PacketLimits()

    /// The standard limits.
    public init() {}
}

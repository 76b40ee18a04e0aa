import Synchronization
import TickwireNetcode
import TickwireSim

/// One client connected to a ``UDPTransportServer``, seen as a ``TransportConnection``: a
/// netcode.io client slot with a packet-layer endpoint (PROTOCOL.md 1A).
///
/// Frames go on the channel their message type chooses (``deliversFramesInOrder`` is `false`:
/// snapshots, inputs and pings are never resent and may overtake each other); a frame larger
/// than a packet travels in fragments. Thread-safe: the shared state is Mutex-protected and the
/// event loop does the sending.
///
/// It is a ``HandoverConnection``: a host of a fleet sends its client to another process's UDP
/// address with a connect token for it (``handOver(to:)``).
public final class UDPServerTransportConnection: HandoverConnection, Sendable {
    let core: UDPConnectionCore
    private let minter: UDPHandoverMinter
    private let requestFlush: @Sendable () -> Void
    static let nextID = Atomic<UInt64>(1)

    /// A number for logs (the server's connections are numbered in the order they connected).
    public let connectionID: UInt64
    /// The client id the connect token carries (the player's identity, as the token's minter
    /// verified it).
    public let clientID: UInt64
    /// The 256 bytes of user data the connect token carries.
    public let userData: [UInt8]
    /// The connect token's identity: its client id as the user id and its user data, read in
    /// Tickwire's layout (room, display name, claims; PROTOCOL.md 5.3.2) when it is that layout.
    /// The host hands it to the game as it does a WebSocket hello's verified token.
    public let identity: PlayerIdentity?
    /// The client's address.
    public let address: NetcodeAddress

    init(
        core: UDPConnectionCore, clientID: UInt64, userData: [UInt8], address: NetcodeAddress, minter: UDPHandoverMinter,
        requestFlush: @escaping @Sendable () -> Void
    ) {
        self.core = core
        self.minter = minter
        self.clientID = clientID
        self.userData = userData
        self.identity = PlayerIdentity(userID: clientID, userData: userData)
        self.address = address
        self.requestFlush = requestFlush
        connectionID = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Queues `frame` for the client on the channel its type byte chooses.
    ///
    /// A frame over `PacketLimits.maximumMessageBytes` cannot travel over UDP at all: it is
    /// taken, and the event loop then closes the connection with 1009 (message too big).
    ///
    /// - Parameter frame: The frame's bytes, at most `PacketLimits.maximumMessageBytes`.
    /// - Returns: ``TransportSendResult/backedUp`` when the frames waiting for the event loop
    ///   (``UDPTransportLimits/maximumQueuedFrames``, ``UDPTransportLimits/maximumQueuedBytes``)
    ///   or, for a reliable frame, the reliable send queue (`PacketLimits.reliableSendQueueMessages`,
    ///   `PacketLimits.reliableSendQueueBytes`) would pass their bounds; ``TransportSendResult/closed``
    ///   once either side closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult { core.send(frame, requestFlush: requestFlush) }

    /// Bytes waiting for the event loop, plus reliable bytes the client has not acknowledged.
    public var bufferedBytes: Int { core.bufferedBytes }

    /// Whether a frame sent now would be taken: `backedUp` over `budgetBytes` (``bufferedBytes``)
    /// or at any bound ``send(_:)`` keeps.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now.
    public func readiness(budgetBytes: Int) -> TransportSendResult { core.readiness(budgetBytes: budgetBytes) }

    /// Takes the events received since the last call.
    ///
    /// - Returns: The frames, and `.closed` once the connection ended.
    public func drain() -> [TransportEvent] { core.inbox.drain() }

    /// Takes the events received since the last call, each with how long it waited since the
    /// socket loop took it off the socket.
    ///
    /// - Returns: The frames and their waits, and `.closed` once the connection ended.
    public func drainArrivals() -> [TransportArrival] { core.inbox.drainArrivals() }

    /// Closes the connection: what was sent goes first, then a close message with `code` and
    /// `reason` on the reliable channel, then netcode.io's disconnect once it is acknowledged
    /// (at most ``UDPTransportLimits/closeLinger`` later). Does not block.
    ///
    /// - Parameters:
    ///   - code: The close code (PROTOCOL.md section 1.3).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: CloseCode, reason: String) { core.close(code: code, reason: reason, requestFlush: requestFlush) }

    /// Sends the client a connect token for another process of the fleet at `address`, on the
    /// reliable channel ahead of every frame sent after this call (a handover message,
    /// PROTOCOL.md 1A.11), and returns the `udp://HOST:PORT` URL the redirect or moved message
    /// carries. The token is sealed with this server's private key (the fleet's, which every
    /// process shares), names `address` only, keeps this connection's client id and user data,
    /// and lives ``UDPTransportServerConfiguration/handoverTokenLifetime`` seconds.
    ///
    /// - Parameter address: The other process's UDP address, `udp://HOST:PORT` with a numeric host.
    /// - Returns: The URL, or `nil` when the address does not parse, netcode.io cannot make the
    ///   token, or the connection cannot take the message (closed, or its reliable queue is full).
    public func handOver(to address: String) -> String? {
        guard let target = UDPHandoverMessage.address(ofURL: address) else { return nil }
        let token: ConnectToken
        do throws(NetcodeError) {
            token = try minter.token(for: target, clientID: clientID, userData: userData, now: UInt64(UDPClock.unixSeconds()))
        } catch {
            return nil
        }
        let sent = core.send(UDPHandoverMessage(token: token).encoded, on: .reliableOrdered, requestFlush: requestFlush)
        return sent == .taken ? "udp://\(target)" : nil
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { core.isClosed }

    /// `false`: frames on the unreliable channel may be lost or overtake each other.
    public var deliversFramesInOrder: Bool { false }

    /// The round-trip time, jitter, loss and packet counts the event loop last measured.
    public var statistics: UDPConnectionStatistics { core.statistics }
}

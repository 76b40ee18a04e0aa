import Dispatch
import Synchronization
import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// A client-side ``TransportConnection`` over UDP: a netcode.io client connecting with a
/// connect token, with Tickwire's packet layer (PROTOCOL.md 1A) over its payloads.
///
/// One instance is one connection: it does not reconnect on its own (a ``ReconnectingSession``
/// makes a new one, with a fresh token when the old one has expired). Frames sent before
/// netcode.io has connected wait (bounded by ``UDPTransportLimits/maximumQueuedFrames``) and go
/// out once it has. Frames on the unreliable channel that arrive before the first reliable one
/// (the welcome) are dropped, counted. A token the server refuses, or that expires first, ends
/// the connection with a `.closed` event named `could not connect`, the netcode.io state in its text.
///
/// ```swift
/// let connection = try UDPClientTransportConnection(token: token, requestPath: "/main")
/// let session = ClientSession(game: game, configuration: configuration, clock: clock)
/// session.connect(over: connection)
/// ```
///
/// Thread-safe: the shared state is Mutex-protected and the event loop does the I/O.
public final class UDPClientTransportConnection: TransportConnection, Sendable {
    let driver: UDPClientDriver
    private static let nextID = Atomic<UInt64>(1)
    /// A number for logs (client connections are numbered in the order they were made).
    public let connectionID: UInt64
    /// The path of the `udp://` URL (`/main` for `udp://host:7778/main`): the room a
    /// ``ClientSession`` joins when its ``ClientConfiguration/room`` is `nil`.
    public let requestPath: String?

    /// Starts connecting with `token` to the first server it names (then the next, as
    /// netcode.io does).
    ///
    /// - Parameters:
    ///   - token: The connect token, from the matchmaker or the game's token endpoint.
    ///   - requestPath: The room's path (`/main`), or `nil`.
    ///   - limits: The connection's limits; the packet limits must match the server's.
    ///   - loop: The event loop to run on (shared among many connections, as a load tool's), or
    ///     `nil` for a loop of its own, stopped when the connection ends.
    /// - Throws: ``UDPTransportError``: the token names no server, the socket cannot be bound,
    ///   or the limits are out of range.
    public init(
        token: ConnectToken, requestPath: String? = nil, limits: UDPTransportLimits = UDPTransportLimits(), loop: EventLoop? = nil
    ) throws(UDPTransportError) {
        guard let first = token.serverAddresses.first else { throw .address("the connect token names no server") }
        let endpoint: PacketEndpoint
        do throws(PacketError) {
            endpoint = try PacketEndpoint(limits: limits.packet)
        } catch {
            throw .packet(error)
        }
        let bind = first.isIPv4 ? SocketAddress(numericHost: "0.0.0.0", port: 0) : SocketAddress(numericHost: "::", port: 0)
        guard let bind else { throw .address("no wildcard address for \(first)") }
        let ownership: (loop: EventLoop, isOwned: Bool)
        do throws(SystemError) {
            ownership = try EventLoop.sharedOrOwn(loop)
        } catch {
            throw .system(error)
        }
        let (loop, ownsLoop) = ownership
        let core = UDPConnectionCore(limits: limits)
        let driver = UDPClientDriver(loop: loop, ownsLoop: ownsLoop, core: core, family: bind.family, endpoint: endpoint)
        let started = loop.runAndWait { () -> SystemError? in
            do throws(SystemError) {
                let channel = try UDPChannel(address: bind, loop: loop) { _, _ in }
                driver.start(channel: channel, token: token)
                return nil
            } catch {
                return error
            }
        }
        switch started {
        case .some(.some(let error)):
            if ownsLoop { loop.stop() }
            throw .system(error)
        case .none:
            throw .address("the event loop has stopped")
        case .some(.none):
            break
        }
        self.driver = driver
        self.requestPath = requestPath
        connectionID = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    private var requestFlush: @Sendable () -> Void {
        let driver = self.driver
        return { driver.loop.execute { driver.flush() } }
    }

    /// Queues `frame` for the server on the channel its type byte chooses.
    ///
    /// A frame over `PacketLimits.maximumMessageBytes` cannot travel over UDP at all: it is
    /// taken, and the event loop then closes the connection with 1009 (message too big).
    ///
    /// - Parameter frame: The frame's bytes, at most `PacketLimits.maximumMessageBytes`.
    /// - Returns: ``TransportSendResult/backedUp`` at the bounds of the frames waiting for the
    ///   loop or of the reliable send queue; ``TransportSendResult/closed`` once either side closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult { driver.core.send(frame, requestFlush: requestFlush) }

    /// Bytes waiting for the event loop (or for netcode.io to connect), plus reliable bytes the
    /// server has not acknowledged.
    public var bufferedBytes: Int { driver.core.bufferedBytes }

    /// Whether a frame sent now would be taken: `backedUp` over `budgetBytes` or at any bound
    /// ``send(_:)`` keeps.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now.
    public func readiness(budgetBytes: Int) -> TransportSendResult { driver.core.readiness(budgetBytes: budgetBytes) }

    /// Takes the events received since the last call.
    ///
    /// - Returns: The frames, and `.closed` once the connection ended.
    public func drain() -> [TransportEvent] { driver.core.inbox.drain() }

    /// Takes the events received since the last call, each with how long it waited since the
    /// socket loop took it off the socket.
    ///
    /// - Returns: The frames and their waits, and `.closed` once the connection ended.
    public func drainArrivals() -> [TransportArrival] { driver.core.inbox.drainArrivals() }

    /// Closes the connection: what was sent goes first, then a close message with `code` and
    /// `reason` on the reliable channel, then netcode.io's disconnect once the server has
    /// acknowledged it (at most ``UDPTransportLimits/closeLinger`` later).
    ///
    /// A connection on a loop of its own waits for that (at most the linger and a little more),
    /// so that a session's last frames reach the server even when the process exits right after;
    /// one on a shared loop returns at once.
    ///
    /// - Parameters:
    ///   - code: The close code (1000 for a normal end, 1001 when the app exits).
    ///   - reason: The reason text, cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    public func close(code: CloseCode, reason: String) {
        guard !driver.core.isClosed else { return }
        driver.core.close(code: code, reason: reason, requestFlush: requestFlush)
        guard driver.ownsLoop, !driver.loop.isInLoopThread else { return }
        let wait = driver.core.limits.closeLinger + 4 * driver.core.limits.updateInterval + 0.05
        if driver.finished.wait(timeout: .now() + .nanoseconds(Int(wait * 1e9))) == .timedOut {
            driver.loop.stop()
        }
    }

    /// Whether the connection is closed (either side).
    public var isClosed: Bool { driver.core.isClosed }

    /// `false`: frames on the unreliable channel may be lost or overtake each other.
    public var deliversFramesInOrder: Bool { false }

    /// The round-trip time, jitter, loss and packet counts the event loop last measured.
    public var statistics: UDPConnectionStatistics { driver.core.statistics }

    /// netcode.io's state, as the event loop last saw it: connecting, `NetcodeClientState.connected`,
    /// or why it is not (`NetcodeClientState.connectionDenied`, `NetcodeClientState.connectTokenExpired`, …).
    public var netcodeState: NetcodeClientState { driver.core.state.withLock { $0.netcodeState } }

    /// The connect token the server handed over with its last redirect or move (PROTOCOL.md
    /// 1A.11): for the process whose `udp://HOST:PORT` the reject or disconnect carries. `nil`
    /// when none came.
    public var handedOverToken: ConnectToken? { driver.core.state.withLock { $0.handedOverToken } }

    /// A connection to where the server's redirect or move sent this client, with the token it
    /// handed over (``handedOverToken``), for the same room path: what a ``ReconnectingSession``'s
    /// opener does with a `udp://` URL it did not enter through.
    ///
    /// ```swift
    /// let next = try previous.followingHandover(to: "udp://10.0.0.2:7778")
    /// ```
    ///
    /// - Parameters:
    ///   - url: The redirect's or the move's URL, `udp://HOST:PORT`.
    ///   - limits: The new connection's limits.
    ///   - loop: The event loop for the new connection, or `nil` for a loop of its own.
    /// - Returns: The new connection, connecting.
    /// - Throws: ``UDPTransportError``: no token was handed over, it names another address than
    ///   the URL's, or the new connection cannot be made.
    public func followingHandover(
        to url: String, limits: UDPTransportLimits = UDPTransportLimits(), loop: EventLoop? = nil
    ) throws(UDPTransportError) -> UDPClientTransportConnection {
        guard let address = UDPHandoverMessage.address(ofURL: url) else {
            throw .address("\(url) is not a udp://HOST:PORT URL with a numeric host")
        }
        guard let token = handedOverToken else {
            throw .address("the server sent this client to \(url) without handing over a connect token for it")
        }
        guard token.serverAddresses.contains(address) else {
            throw .address("the handed-over connect token names \(token.serverAddresses), not \(url)")
        }
        return try UDPClientTransportConnection(token: token, requestPath: requestPath, limits: limits, loop: loop)
    }

    deinit {
        let driver = self.driver
        if driver.ownsLoop {
            driver.loop.runAndWait { driver.finish() }
            driver.loop.stop()
        } else {
            driver.loop.execute { driver.finish() }
        }
    }
}

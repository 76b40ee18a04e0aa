import Synchronization
import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// A ``TransportListener`` over UDP: a netcode.io 1.02 server on a `UDPChannel`, with
/// Tickwire's packet layer (PROTOCOL.md 1A) over each client's payloads.
///
/// A client connects with a connect token sealed with ``UDPTransportServerConfiguration/privateKey``
/// (``UDPClientTransportConnection``); once netcode.io has connected it, the host finds it in
/// ``acceptPending()``. The event loop thread receives, runs netcode.io and the packet layer,
/// and fills each connection's inbox; the host's tick threads drain the inboxes and hand frames
/// to the connections, which the loop sends.
///
/// ```swift
/// let udp = try UDPTransportServer(configuration: UDPTransportServerConfiguration(
///     address: SocketAddress(numericHost: "127.0.0.1", port: 0)!, protocolID: 0x5449_434B, privateKey: key))
/// let host = Host(game: game, listener: CombinedTransportListener([webSocket, udp]), clock: clock)
/// ```
public final class UDPTransportServer: TransportListener, Sendable {
    let driver: UDPServerDriver
    private let ownsLoop: Bool
    /// The address the socket is bound to (with the port the kernel chose for port 0).
    public let address: SocketAddress
    /// The addresses connect tokens must name for this server.
    public let publicAddresses: [NetcodeAddress]
    /// The most clients netcode.io holds connected at once
    /// (``UDPTransportServerConfiguration/maxClients``); the next is denied.
    public let maxClients: Int

    /// What the server has done, readable from any thread.
    public struct Statistics: Hashable, Sendable {
        /// Clients netcode.io holds connected now.
        public var connectedClients = 0
        /// Clients connected since the server started.
        public var connectionsAccepted = 0
        /// Datagrams netcode.io ignored (bad tokens, unknown senders, replays, …).
        public var packetsIgnored = 0
        /// Datagrams the socket's send queue refused, or to an address it cannot reach.
        public var datagramsDropped = 0
        /// Datagrams from an address netcode.io cannot name.
        public var datagramsFromUnreadableAddresses = 0
        /// Packets for a client whose slot had just been freed.
        public var packetsToFreedSlots = 0
        /// Datagrams dropped unread for being shorter than any netcode.io packet
        /// (`Netcode.minEncryptedPacketBytes`).
        public var datagramsTooShort = 0
        /// Datagrams dropped unread for being longer than any netcode.io packet
        /// (`Netcode.maxDatagramBytes`), here or by the socket (past its 1500-byte datagrams).
        public var datagramsTooLarge = 0
        /// Connection requests dropped unread past their host's budget
        /// (``UDPTransportLimits/connectionRequestsPerAddressPerSecond``).
        public var connectionRequestsOverBudget = 0
        /// Packets netcode.io ignored as replays (a sequence already received or older than its
        /// window); also in ``packetsIgnored``.
        public var packetsReplayed = 0
        /// Datagrams the socket received, from any sender.
        public var datagramsReceived = 0
        /// The bytes of those datagrams (UDP payloads).
        public var bytesReceived = 0
        /// Datagrams handed to the socket.
        public var datagramsSent = 0
        /// The bytes of those datagrams (UDP payloads).
        public var bytesSent = 0
        /// Datagrams netcode.io ignored, by ``IgnoreReason``; the counts add up to ``packetsIgnored``.
        public var packetsIgnoredByReason: [IgnoreReason: Int] = [:]

        /// Figures of nothing yet, every count zero: the start of a sum over several servers
        /// (``add(_:)``).
        public init() {}
    }

    /// Binds the socket and starts serving.
    ///
    /// - Parameters:
    ///   - configuration: The address, the netcode.io identity and the limits.
    ///   - loop: The event loop to run on (shared with a WebSocket server, say), or `nil` for a
    ///     loop of its own, stopped by ``shutdown()``.
    /// - Throws: ``UDPTransportError``: the socket cannot be bound, the limits are out of range,
    ///   netcode.io refuses the configuration, or no public address can be named.
    public init(configuration: UDPTransportServerConfiguration, loop: EventLoop? = nil) throws(UDPTransportError) {
        let freshEndpoint: PacketEndpoint
        do throws(PacketError) {
            freshEndpoint = try PacketEndpoint(limits: configuration.limits.packet)
        } catch {
            throw .packet(error)
        }
        let ownership: (loop: EventLoop, isOwned: Bool)
        do throws(SystemError) {
            ownership = try EventLoop.sharedOrOwn(loop)
        } catch {
            throw .system(error)
        }
        let (loop, ownsLoop) = ownership
        let started = loop.runAndWait { () -> Result<UDPServerDriver, UDPTransportError> in
            Self.start(configuration, freshEndpoint: freshEndpoint, on: loop)
        }
        switch started {
        case .success(let driver):
            self.driver = driver
        case .failure(let error):
            if ownsLoop { loop.stop() }
            throw error
        case nil:
            throw .address("the event loop has stopped")
        }
        self.ownsLoop = ownsLoop
        address = driver.channel?.localAddress ?? configuration.address
        publicAddresses = driver.netcode.configuration.publicAddresses
        maxClients = configuration.maxClients
    }

    private static func start(
        _ configuration: UDPTransportServerConfiguration, freshEndpoint: PacketEndpoint, on loop: EventLoop
    ) -> Result<UDPServerDriver, UDPTransportError> {
        let channel: UDPChannel
        do throws(SystemError) {
            channel = try UDPChannel(address: configuration.address, loop: loop) { _, _ in }
        } catch {
            return .failure(.system(error))
        }
        let publicAddresses: [NetcodeAddress]
        if let given = configuration.publicAddresses {
            publicAddresses = given
        } else if let bound = NetcodeAddress(channel.localAddress) {
            // A wildcard is no address a client can send to: name this machine's loopback.
            let port = bound.port
            publicAddresses =
                channel.localAddress.host == "0.0.0.0"
                ? [NetcodeAddress(ipv4: 127, 0, 0, 1, port: port)]
                : channel.localAddress.host == "::" ? [NetcodeAddress(ipv6: [0, 0, 0, 0, 0, 0, 0, 1], port: port)] : [bound]
        } else {
            channel.close()
            return .failure(.address("bound to \(channel.localAddress), which netcode.io cannot name"))
        }
        let netcode: NetcodeServer
        do throws(NetcodeError) {
            netcode = try NetcodeServer(
                configuration: NetcodeServerConfiguration(
                    protocolID: configuration.protocolID, privateKey: configuration.privateKey, publicAddresses: publicAddresses,
                    maxClients: configuration.maxClients))
        } catch {
            channel.close()
            return .failure(.netcode(error))
        }
        let minter = UDPHandoverMinter(
            protocolID: configuration.protocolID, privateKey: configuration.privateKey, lifetime: configuration.handoverTokenLifetime,
            timeoutSeconds: configuration.handoverTokenTimeoutSeconds)
        let driver = UDPServerDriver(
            loop: loop, limits: configuration.limits, family: channel.localAddress.family, netcode: netcode, freshEndpoint: freshEndpoint,
            minter: minter)
        driver.start(channel: channel)
        return .success(driver)
    }

    /// Takes the clients netcode.io connected since the last call.
    ///
    /// - Returns: The new connections (``UDPServerTransportConnection``), in the order they connected.
    public func acceptPending() -> [any TransportConnection] {
        driver.pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Runs `body` with the loop's wake-ups held: the frames `body` sends reach the loop in one turn.
    ///
    /// - Parameter body: The sending.
    public func batchingSends(_ body: () -> Void) {
        driver.loop.withHeldWakeups(body)
    }

    /// The server's figures so far.
    public var statistics: UDPTransportServer.Statistics { driver.counts.withLock { $0 } }

    /// Sends every client netcode.io's disconnect, closes the socket, and stops the loop when it
    /// is the server's own. Close the connections first (the host does, with 1001) for their
    /// close codes to arrive.
    public func shutdown() {
        let driver = self.driver
        driver.loop.runAndWait { driver.shutdown() }
        if ownsLoop { driver.loop.stop() }
    }

    deinit {
        shutdown()
    }
}

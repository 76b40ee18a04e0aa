import Synchronization
import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// The event-loop side of a ``UDPTransportServer``: the socket, the netcode.io server, one
/// ``UDPPeer`` per connected client, and a timer for keep-alives, acks and resends.
///
/// `@unchecked Sendable` by thread confinement: every `var` is touched only on `loop`'s thread
/// (the socket's handler, the timer, and work handed over with `execute`); `loop`, `limits`
/// and `family` are immutable, and `pending` and `counts` are in `Mutex`es.
final class UDPServerDriver: @unchecked Sendable {
    let loop: EventLoop
    let limits: UDPTransportLimits
    let family: SocketAddress.Family
    var netcode: NetcodeServer
    var channel: UDPChannel?
    var peers: [Int: UDPPeer] = [:]
    var timer: TimerHandle?
    var isShutDown = false
    /// The connection requests each host may still send.
    var requestBudget: ConnectionRequestBudget
    /// When ``requestBudget`` last forgot the hosts that went quiet (monotonic seconds).
    var requestBudgetPruned = 0.0
    /// The socket's count of datagrams too large to read, as last added to ``counts``.
    var socketTooLarge = 0
    /// A fresh endpoint, copied for each client (its limits checked once, when the server started).
    let freshEndpoint: PacketEndpoint
    /// Connections netcode.io accepted and the host has not taken yet.
    let pending = Mutex<[UDPServerTransportConnection]>([])
    /// Server-wide counts, readable from any thread.
    let counts = Mutex(UDPTransportServer.Statistics())
    /// Mints the tokens of handovers to other processes of the fleet.
    let minter: UDPHandoverMinter
    /// Traffic counted on the loop thread and published with the timer (not a lock per datagram).
    private var traffic = Traffic()
    /// The netcode.io addresses of recent senders and the socket addresses of recent
    /// destinations: converting through text (`host:port` parsed, a dotted quad formatted and
    /// `inet_pton`) on every datagram was a hot spot. Each map is emptied when it reaches
    /// ``maximumCachedAddresses``, so spoofed senders cannot grow it.
    private var netcodeAddresses: [SocketAddress: NetcodeAddress] = [:]
    private var socketAddresses: [NetcodeAddress: SocketAddress] = [:]
    /// The most addresses each conversion map holds.
    static let maximumCachedAddresses = 4096

    /// Datagrams and bytes each way.
    private struct Traffic {
        var datagramsReceived = 0
        var bytesReceived = 0
        var datagramsSent = 0
        var bytesSent = 0
    }

    init(
        loop: EventLoop, limits: UDPTransportLimits, family: SocketAddress.Family, netcode: NetcodeServer, freshEndpoint: PacketEndpoint,
        minter: UDPHandoverMinter
    ) {
        self.minter = minter
        self.loop = loop
        self.limits = limits
        self.family = family
        self.netcode = netcode
        self.freshEndpoint = freshEndpoint
        requestBudget = ConnectionRequestBudget(perSecond: limits.connectionRequestsPerAddressPerSecond)
    }

    /// Starts the timer. Loop thread only.
    func start(channel: UDPChannel) {
        self.channel = channel
        channel.onDatagram = { [weak self] bytes, source in self?.receive(Array(bytes), from: source) }
        scheduleUpdate()
    }

    private func scheduleUpdate() {
        timer = loop.schedule(after: .nanoseconds(Int64(limits.updateInterval * 1e9))) { [weak self] in
            guard let self, !self.isShutDown else { return }
            self.update()
            self.scheduleUpdate()
        }
    }

    private func receive(_ datagram: [UInt8], from source: SocketAddress) {
        guard !isShutDown else { return }
        traffic.datagramsReceived += 1
        traffic.bytesReceived += datagram.count
        guard let address = netcodeAddress(of: source) else {
            counts.withLock { $0.datagramsFromUnreadableAddresses += 1 }
            return
        }
        guard admit(datagram, from: address) else { return }
        netcode.receive(datagram, from: address, now: UDPClock.unixSeconds())
        handleEvents()
        transmit()
    }

    /// Drops, unread and counted, a datagram no netcode.io packet can be (too short, too long)
    /// and a connection request past its host's budget: the cheap checks before any decryption.
    private func admit(_ datagram: [UInt8], from address: NetcodeAddress) -> Bool {
        if datagram.count < Netcode.minEncryptedPacketBytes {
            counts.withLock { $0.datagramsTooShort += 1 }
            return false
        }
        if datagram.count > Netcode.maxDatagramBytes {
            counts.withLock { $0.datagramsTooLarge += 1 }
            return false
        }
        if datagram[0] == NetcodePacketType.connectionRequest.rawValue
            && !requestBudget.admit(address, now: UDPClock.monotonicSeconds())
        {
            counts.withLock { $0.connectionRequestsOverBudget += 1 }
            return false
        }
        return true
    }

    /// The timer: netcode.io's keep-alives and timeouts, each peer's acks, resends and closes.
    private func update() {
        let unix = UDPClock.unixSeconds()
        let now = UDPClock.monotonicSeconds()
        netcode.update(now: unix)
        handleEvents()
        // Peers are mutated in place (`peers[index]?.…`): a copy out and back would copy the
        // endpoint's histories on every call.
        for index in Array(peers.keys) {
            guard let packets = peers[index]?.update(now: now) else { continue }
            send(packets, to: index, unix: unix)
            if peers[index]?.isDoneClosing(now: now) == true {
                netcode.disconnect(client: index, now: unix)
            }
        }
        handleEvents()
        transmit()
        publish()
    }

    /// Runs a flush the sending side asked for: the connection's frames go out now.
    func flush(_ core: UDPConnectionCore, index: Int) {
        guard !isShutDown, peers[index]?.core === core, let packets = peers[index]?.flush(now: UDPClock.monotonicSeconds()) else {
            return
        }
        send(packets, to: index, unix: UDPClock.unixSeconds())
        transmit()
        peers[index]?.publish(datagramsDropped: 0)
    }

    private func handleEvents() {
        let now = UDPClock.monotonicSeconds()
        let unix = UDPClock.unixSeconds()
        for event in netcode.takeEvents() {
            switch event {
            case .connected(let index, let clientID, let address, let userData):
                let core = UDPConnectionCore(limits: limits)
                let connection = UDPServerTransportConnection(
                    core: core, clientID: clientID, userData: userData, address: address, minter: minter,
                    requestFlush: { [weak self, weak core] in
                        guard let self, let core else { return }
                        self.loop.execute { self.flush(core, index: index) }
                    })
                peers[index] = UDPPeer(core: core, endpoint: freshEndpoint, dropsFramesBeforeWelcome: false)
                pending.withLock { $0.append(connection) }
                counts.withLock { $0.connectionsAccepted += 1 }
            case .payload(let index, let bytes, _):
                guard let packets = peers[index]?.receive(bytes, now: now) else { continue }
                send(packets, to: index, unix: unix)
            case .disconnected(let index, _, let reason):
                guard let peer = peers.removeValue(forKey: index) else { continue }
                switch reason {
                case .timedOut: peer.core.end(TransportCloseReason(TransportCloseReason.connectionLost.name, text: "netcode.io timed out"))
                case .clientDisconnected: peer.core.end(.closedByPeer(code: nil))
                default: peer.core.end(.closedLocally)
                }
                peer.publish(datagramsDropped: 0)
            }
        }
    }

    private func send(_ packets: [[UInt8]], to index: Int, unix: Double) {
        for packet in packets {
            do throws(NetcodeError) {
                try netcode.send(packet, toClient: index, now: unix)
            } catch {
                // The slot was freed while the peer still had packets (a disconnect in the same
                // turn): nothing can reach that client any more.
                counts.withLock { $0.packetsToFreedSlots += 1 }
            }
        }
    }

    /// Hands netcode.io's datagrams to the socket.
    private func transmit() {
        guard let channel else { return }
        for datagram in netcode.takeOutgoing() {
            guard let destination = socketAddress(of: datagram.address) else {
                counts.withLock { $0.datagramsDropped += 1 }
                continue
            }
            if channel.send(datagram.bytes, to: destination) {
                traffic.datagramsSent += 1
                traffic.bytesSent += datagram.bytes.count
            } else {
                counts.withLock { $0.datagramsDropped += 1 }
            }
        }
    }

    /// `source` as netcode.io names it, converted once per address.
    private func netcodeAddress(of source: SocketAddress) -> NetcodeAddress? {
        if let known = netcodeAddresses[source] { return known }
        guard let address = NetcodeAddress(source) else { return nil }
        if netcodeAddresses.count >= Self.maximumCachedAddresses { netcodeAddresses.removeAll(keepingCapacity: true) }
        netcodeAddresses[source] = address
        return address
    }

    /// The socket address to send to for `address`, converted once per address.
    private func socketAddress(of address: NetcodeAddress) -> SocketAddress? {
        if let known = socketAddresses[address] { return known }
        guard let destination = address.socketAddress(for: family) else { return nil }
        if socketAddresses.count >= Self.maximumCachedAddresses { socketAddresses.removeAll(keepingCapacity: true) }
        socketAddresses[address] = destination
        return destination
    }

    private func publish() {
        for peer in peers.values { peer.publish(datagramsDropped: 0) }
        let connected = netcode.connectedClientCount
        let ignored = netcode.ignoredPackets.values.reduce(0, +)
        let replayed = netcode.ignoredPackets[.replayed, default: 0]
        let truncatedBySocket = channel?.statistics.receivedTooLarge ?? 0
        // Short and oversized datagrams never reach netcode.io (``admit(_:from:)``), so its own
        // `wrongSize` count holds only sizes wrong for their packet type: garbage.
        let byReason = UDPTransportServer.IgnoreReason.classify(netcode.ignoredPackets)
        let traffic = self.traffic
        counts.withLock { counts in
            counts.connectedClients = connected
            counts.packetsIgnored = ignored
            counts.packetsReplayed = replayed
            counts.datagramsTooLarge += truncatedBySocket - socketTooLarge
            counts.packetsIgnoredByReason = byReason
            counts.datagramsReceived = traffic.datagramsReceived
            counts.bytesReceived = traffic.bytesReceived
            counts.datagramsSent = traffic.datagramsSent
            counts.bytesSent = traffic.bytesSent
        }
        socketTooLarge = truncatedBySocket
        let now = UDPClock.monotonicSeconds()
        if now - requestBudgetPruned >= 1 {
            requestBudget.prune(now: now)
            requestBudgetPruned = now
        }
    }

    /// Disconnects every client (netcode.io's disconnect packets), closes the socket and stops
    /// the timer. Loop thread only.
    func shutdown() {
        guard !isShutDown else { return }
        netcode.disconnectAll(now: UDPClock.unixSeconds())
        handleEvents()
        transmit()
        publish()
        isShutDown = true
        if let timer { loop.cancel(timer) }
        channel?.close()
        channel = nil
    }
}

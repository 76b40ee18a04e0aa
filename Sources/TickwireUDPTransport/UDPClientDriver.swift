import Dispatch
import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// The event-loop side of a ``UDPClientTransportConnection``: the socket, the netcode.io
/// client, the packet layer's endpoint and a timer.
///
/// `@unchecked Sendable` by thread confinement: every `var` is touched only on `loop`'s thread;
/// `loop`, `ownsLoop`, `core`, `family` and `finished` (a semaphore) are immutable and thread-safe.
final class UDPClientDriver: @unchecked Sendable {
    let loop: EventLoop
    let ownsLoop: Bool
    let core: UDPConnectionCore
    let family: SocketAddress.Family
    var netcode = NetcodeClient()
    var peer: UDPPeer
    var channel: UDPChannel?
    var timer: TimerHandle?
    var hasConnected = false
    var isFinished = false
    var datagramsDropped = 0
    /// Signalled once, when the driver has finished (the socket is closed).
    let finished = DispatchSemaphore(value: 0)

    init(loop: EventLoop, ownsLoop: Bool, core: UDPConnectionCore, family: SocketAddress.Family, endpoint: PacketEndpoint) {
        self.loop = loop
        self.ownsLoop = ownsLoop
        self.core = core
        self.family = family
        peer = UDPPeer(core: core, endpoint: endpoint, dropsFramesBeforeWelcome: true)
    }

    /// Starts connecting with `token`. Loop thread only.
    func start(channel: UDPChannel, token: ConnectToken) {
        self.channel = channel
        channel.onDatagram = { [weak self] bytes, source in self?.receive(Array(bytes), from: source) }
        netcode.connect(token: token, now: UDPClock.unixSeconds())
        update()
    }

    private func scheduleUpdate() {
        timer = loop.schedule(after: .nanoseconds(Int64(core.limits.updateInterval * 1e9))) { [weak self] in
            guard let self, !self.isFinished else { return }
            self.update()
        }
    }

    private func receive(_ datagram: [UInt8], from source: SocketAddress) {
        guard !isFinished, let address = NetcodeAddress(source) else { return }
        let unix = UDPClock.unixSeconds()
        netcode.receive(datagram, from: address, now: unix)
        let now = UDPClock.monotonicSeconds()
        var packets: [[UInt8]] = []
        for payload in netcode.takeReceived() { packets += peer.receive(payload, now: now) }
        if netcode.state == .connected && !hasConnected {
            hasConnected = true
            packets += peer.flush(now: now)
        }
        send(packets, unix: unix)
        checkState(now: now, unix: unix)
        transmit()
    }

    /// The timer: netcode.io's requests and keep-alives, the packet layer's acks, resends and close.
    private func update() {
        let unix = UDPClock.unixSeconds()
        let now = UDPClock.monotonicSeconds()
        netcode.update(now: unix)
        if netcode.state == .connected {
            hasConnected = true
            send(peer.update(now: now), unix: unix)
        } else if !hasConnected, core.state.withLock({ $0.closeRequest != nil }) {
            // Closed before netcode.io connected: there is nobody to tell.
            finish()
            return
        }
        checkState(now: now, unix: unix)
        transmit()
        publish()
        if !isFinished { scheduleUpdate() }
    }

    /// Runs a flush the sending side asked for: once connected, the frames go out now.
    func flush() {
        guard !isFinished, hasConnected else { return }
        let unix = UDPClock.unixSeconds()
        let now = UDPClock.monotonicSeconds()
        send(peer.flush(now: now), unix: unix)
        checkState(now: now, unix: unix)
        transmit()
        publish()
    }

    /// Ends the connection when netcode.io has (refused, timed out, disconnected by the server)
    /// or when the close handshake is over.
    private func checkState(now: Double, unix: Double) {
        let state = netcode.state
        if state == .connected {
            guard peer.isDoneClosing(now: now) else { return }
            netcode.disconnect(now: unix)
            transmit()
            finish()
            return
        }
        guard state.isError || (state == .disconnected && !isFinished) else { return }
        if !hasConnected {
            core.end(TransportCloseReason("could not connect", text: "netcode.io: \(state)"))
        } else if state == .connectionTimedOut {
            core.end(TransportCloseReason(TransportCloseReason.connectionLost.name, text: "netcode.io: \(state)"))
        } else {
            core.end(.closedByPeer(code: nil))
        }
        finish()
    }

    private func send(_ packets: [[UInt8]], unix: Double) {
        for packet in packets {
            do throws(NetcodeError) {
                try netcode.send(packet, now: unix)
            } catch {
                // netcode.io left the connected state in this turn: the packet has nowhere to go.
                datagramsDropped += 1
            }
        }
    }

    private func transmit() {
        guard let channel else { return }
        for datagram in netcode.takeOutgoing() {
            guard let destination = datagram.address.socketAddress(for: family), channel.send(datagram.bytes, to: destination) else {
                datagramsDropped += 1
                continue
            }
        }
    }

    private func publish() {
        let state = netcode.state
        peer.publish(datagramsDropped: datagramsDropped)
        core.state.withLock { $0.netcodeState = state }
    }

    /// Closes the socket, stops the timer (and the loop when it is the connection's own) and
    /// tells whoever waits. Loop thread only.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        core.end(.closedLocally)
        publish()
        if let timer { loop.cancel(timer) }
        channel?.close()
        channel = nil
        finished.signal()
        if ownsLoop { loop.stop() }
    }
}

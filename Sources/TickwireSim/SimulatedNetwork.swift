import Synchronization
import TickwireCodec

/// An in-memory network on a ``TickClock`` (normally a ``VirtualClock``), with per-direction
/// latency, jitter, bandwidth caps, stalls and disconnects, and in unreliable mode loss,
/// duplication and reordering, all drawn from one seed so that every run is the same.
///
/// One network has one listening side (the host) and any number of client connections.
/// Connections are established at once; frames arrive when the clock reaches their arrival
/// time and the receiver drains its inbox. Every delivered frame is folded into
/// ``wireDigest``, so tests can check that two runs put the same bytes on the wire at the
/// same times.
///
/// Thread-safe: all mutable state lives in `Mutex`es (the network's counters here,
/// each connection's links in its pipe).
public final class SimulatedNetwork: TransportListener, Sendable {
    struct State {
        var random: SplitMix64
        var nextConnectionID: UInt64 = 1
        var pendingAccepts: [SimulatedConnection] = []
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325
        var deliveredFrames = 0
        var deliveredBytes = 0
        var isAcceptingConnections = true
    }

    /// The clock every arrival time is measured on.
    public let clock: any TickClock
    private let state: Mutex<State>

    /// Creates a network.
    ///
    /// - Parameters:
    ///   - clock: The clock that frames travel on.
    ///   - seed: Fixes every random draw (jitter, loss, duplication, reordering).
    public init(clock: any TickClock, seed: UInt64) {
        self.clock = clock
        self.state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    /// Opens a connection from a new client to the listening side.
    ///
    /// The server's end appears in the next ``acceptPending()``.
    ///
    /// - Parameters:
    ///   - upstream: Conditions from client to server.
    ///   - downstream: Conditions from server to client.
    /// - Returns: The client's end.
    public func connect(upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect) -> SimulatedConnection {
        let (client, isAccepted) = state.withLock { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            let pipe = SimulatedPipe(
                network: self, id: id,
                upstream: SimulatedLink(conditions: upstream, seed: state.random.next()),
                downstream: SimulatedLink(conditions: downstream, seed: state.random.next())
            )
            if state.isAcceptingConnections { state.pendingAccepts.append(SimulatedConnection(pipe: pipe, isClient: false)) }
            return (SimulatedConnection(pipe: pipe, isClient: true), state.isAcceptingConnections)
        }
        if !isAccepted { client.disconnect() }
        return client
    }

    /// Whether new connections reach the listening side; `true` until set otherwise.
    ///
    /// While `false` (the server process is down), ``connect(upstream:downstream:)`` fails the
    /// way a refused TCP connect does: the client's end reports `.closed(.connectionLost)` on
    /// its first drain, and ``acceptPending()`` never sees it. Connections already open are
    /// not touched (cut them with ``SimulatedConnection/disconnect()``).
    public var isAcceptingConnections: Bool {
        get { state.withLock { $0.isAcceptingConnections } }
        set { state.withLock { $0.isAcceptingConnections = newValue } }
    }

    /// Takes the server ends of the connections opened since the last call.
    ///
    /// - Returns: The new connections, in the order they were opened.
    public func acceptPending() -> [any TransportConnection] {
        state.withLock { state in
            let accepted = state.pendingAccepts
            state.pendingAccepts.removeAll()
            return accepted
        }
    }

    /// A 64-bit FNV-1a digest of every frame delivered so far: its arrival time, its
    /// connection, its direction and its bytes. Equal digests mean equal traffic.
    public var wireDigest: UInt64 { state.withLock { $0.digest } }

    /// How many frames have been delivered so far.
    public var deliveredFrames: Int { state.withLock { $0.deliveredFrames } }

    /// How many frame bytes have been delivered so far.
    public var deliveredBytes: Int { state.withLock { $0.deliveredBytes } }

    func record(connection: UInt64, toClient: Bool, time: Int64, bytes: [UInt8]) {
        state.withLock { state in
            var hash = state.digest
            func mix(_ byte: UInt8) {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3  // FNV prime; wrapping is the algorithm
            }
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: UInt64(bitPattern: time) >> UInt64(shift))) }
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: connection >> UInt64(shift))) }
            mix(toClient ? 1 : 0)
            for byte in bytes { mix(byte) }
            state.digest = hash
            state.deliveredFrames += 1
            state.deliveredBytes += bytes.count
        }
    }
}

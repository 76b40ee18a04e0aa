import Synchronization
import TickwireCodec
import TickwireFoundation

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
/// Thread-safe: all mutable state lives in `Mutex`es (the network's connections here, each
/// connection's links and delivered traffic in its pipe, so that threads draining different
/// connections never wait for each other).
public final class SimulatedNetwork: TransportListener, Sendable {
    struct State {
        var random: SplitMix64
        var nextConnectionID: UInt64 = 1
        var pendingAccepts: [SimulatedConnection] = []
        /// Every connection ever opened, in id order, for ``wireDigest`` and the counts.
        var pipes: [SimulatedPipe] = []
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
                clock: clock, id: id,
                upstream: SimulatedLink(conditions: upstream, seed: state.random.next()),
                downstream: SimulatedLink(conditions: downstream, seed: state.random.next())
            )
            state.pipes.append(pipe)
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

    /// A 64-bit FNV-1a digest of every frame delivered so far: for each connection, in the
    /// order they were opened, and each direction, a digest of its frames' arrival times and
    /// bytes in delivery order. Equal digests mean equal traffic.
    public var wireDigest: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for (id, traffic) in deliveredTraffic() {
            for word in [id, traffic.digest, UInt64(traffic.frames)] {
                for shift in stride(from: 0, to: 64, by: 8) {
                    hash = (hash ^ (word >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01B3  // FNV prime; wrapping is the algorithm
                }
            }
        }
        return hash
    }

    /// How many frames have been delivered so far.
    public var deliveredFrames: Int { deliveredTraffic().reduce(0) { $0 + $1.traffic.frames } }

    /// How many frame bytes have been delivered so far.
    public var deliveredBytes: Int { deliveredTraffic().reduce(0) { $0 + $1.traffic.bytes } }

    /// Each connection's delivered traffic, upstream then downstream, keyed by a word that
    /// names the connection and the direction.
    private func deliveredTraffic() -> [(id: UInt64, traffic: SimulatedPipe.DeliveredTraffic)] {
        let pipes = state.withLock { $0.pipes }
        return pipes.flatMap { pipe in
            pipe.links.withLock { links in
                [(pipe.id << 1, links.deliveredUpstream), (pipe.id << 1 | 1, links.deliveredDownstream)]
            }
        }
    }
}

import Synchronization
import TickwireCodec
import TickwireSim
import TickwireWebSocket

/// A bad network on purpose: wraps a real ``TransportConnection`` and delays every frame by
/// a latency plus random jitter in each direction, and drops a share of incoming snapshot
/// frames before they are decoded, so a player can watch interpolation and prediction work.
///
/// Delays keep the order of frames, as TCP would (jitter shows up as head-of-line delay);
/// dropped snapshots are what an unreliable transport would lose. Time comes from the
/// ``TickClock`` given, and delayed frames move on every ``drain()``, which the client
/// session calls each tick.
///
/// Thread-safe: every mutable field lives in the `Mutex`.
public final class ImpairedConnection: TransportConnection, Sendable {
    /// How bad the network is.
    public struct Impairment: Hashable, Sendable {
        /// Added one-way delay in seconds, each direction.
        public var latency: Double
        /// Extra random one-way delay in seconds, uniformly 0...jitter, each direction.
        public var jitter: Double
        /// Share of incoming snapshot frames dropped, 0...1.
        public var snapshotLoss: Double

        /// Creates an impairment.
        public init(latency: Double = 0, jitter: Double = 0, snapshotLoss: Double = 0) {
            self.latency = max(latency, 0)
            self.jitter = max(jitter, 0)
            self.snapshotLoss = min(max(snapshotLoss, 0), 1)
        }

        /// Whether it changes anything.
        public var isNone: Bool { latency == 0 && jitter == 0 && snapshotLoss == 0 }
    }

    private struct Delayed {
        var due: Timestamp
        var event: TransportEvent
    }

    private struct State {
        var incoming: [Delayed] = []
        var outgoing: [Delayed] = []
        var lastIncomingDue = Timestamp.zero
        var lastOutgoingDue = Timestamp.zero
        var random: SplitMix64
        var droppedSnapshots = 0
    }

    private let inner: any TransportConnection
    private let clock: any TickClock
    private let impairment: Impairment
    private let state: Mutex<State>

    /// Wraps a connection.
    ///
    /// - Parameters:
    ///   - inner: The real connection.
    ///   - impairment: Latency, jitter and loss to add.
    ///   - clock: The clock that times the delays.
    ///   - seed: Fixes which frames are dropped and how much jitter each gets.
    public init(wrapping inner: any TransportConnection, impairment: Impairment, clock: any TickClock, seed: UInt64 = 1) {
        self.inner = inner
        self.clock = clock
        self.impairment = impairment
        self.state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    /// The wrapped connection's id.
    public var connectionID: UInt64 { inner.connectionID }

    /// Incoming snapshot frames dropped so far.
    public var droppedSnapshots: Int { state.withLock { $0.droppedSnapshots } }

    /// Queues `frame` to go out after the one-way delay.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: ``TransportSendResult/closed`` once the real connection is closed, else
    ///   ``TransportSendResult/taken`` (what the real connection answers when the delay ends is
    ///   not known yet).
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        if inner.isClosed { return .closed }
        let now = clock.now
        state.withLock { state in
            let due = max(now + delay(&state.random), state.lastOutgoingDue)
            state.lastOutgoingDue = due
            state.outgoing.append(Delayed(due: due, event: .frame(frame)))
        }
        flushOutgoing(now: now)
        return .taken
    }

    /// Bytes waiting here plus in the real connection.
    public var bufferedBytes: Int {
        state.withLock { state in
            state.outgoing.reduce(0) { total, item in
                if case .frame(let bytes) = item.event { return total + bytes.count }
                return total
            }
        } + inner.bufferedBytes
    }

    /// Sends what is due, takes in what arrived (dropping lost snapshots), and returns the
    /// incoming events whose delay has passed.
    public func drain() -> [TransportEvent] {
        let now = clock.now
        flushOutgoing(now: now)
        let arrived = inner.drain()
        return state.withLock { state in
            for event in arrived {
                if case .frame(let bytes) = event, impairment.snapshotLoss > 0,
                   let type = bytes.first, type & 0x7F == MessageType.snapshot.rawValue,
                   Double(state.random.next() % 1_000_000) / 1_000_000 < impairment.snapshotLoss {
                    state.droppedSnapshots += 1
                    continue
                }
                let due = max(now + delay(&state.random), state.lastIncomingDue)
                state.lastIncomingDue = due
                state.incoming.append(Delayed(due: due, event: event))
            }
            let ready = state.incoming.prefix { $0.due <= now }
            state.incoming.removeFirst(ready.count)
            return ready.map(\.event)
        }
    }

    /// Closes the real connection with a code and a reason.
    ///
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: The reason text.
    public func close(code: WebSocketCloseCode, reason: String) {
        inner.close(code: code, reason: reason)
    }

    /// Whether the real connection is closed and nothing delayed is left to deliver.
    public var isClosed: Bool { inner.isClosed && state.withLock { $0.incoming.isEmpty } }

    private func delay(_ random: inout SplitMix64) -> Duration {
        let jitter = impairment.jitter > 0 ? Double(random.next() % 1_000_000) / 1_000_000 * impairment.jitter : 0
        return .secondsValue(impairment.latency + jitter)
    }

    private func flushOutgoing(now: Timestamp) {
        let due: [[UInt8]] = state.withLock { state in
            let ready = state.outgoing.prefix { $0.due <= now }
            state.outgoing.removeFirst(ready.count)
            return ready.compactMap { item in
                if case .frame(let bytes) = item.event { return bytes }
                return nil
            }
        }
        for frame in due { inner.send(frame) }
    }
}

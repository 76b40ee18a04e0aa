import Synchronization
import TickwireCodec
import TickwireFoundation

/// A bad network on purpose, over a real transport: wraps a ``TransportConnection`` and
/// delays (and, where allowed, loses) its frames exactly as a ``SimulatedNetwork`` link with
/// the same ``LinkConditions`` would, because the same link model computes it.
///
/// Each direction is one simulated link: a frame sent is handed to the real connection when the
/// link says it arrives (latency + jitter + bandwidth), a frame received is handed to the caller
/// when the link says it arrives. Time comes from the ``TickClock`` given, and frames move on at
/// every ``send(_:)`` and ``drain()`` (a ``ClientSession`` drains once per tick). A frame received
/// enters its link at the time it arrived on the real connection, not at the drain that found it,
/// so its delayed arrival keeps the real one's phase; a frame sent leaves at the first
/// ``send(_:)`` or ``drain()`` after its link delivers it (up to a client tick late).
///
/// **Which transport it wraps.** Each link's ``LinkConditions/delivery-swift.property`` says what
/// kind of transport is underneath, and loss does what it does there
/// (``LinkConditions/Delivery-swift.struct/init(urlScheme:)`` picks it from a URL):
/// - ``LinkConditions/Delivery-swift.struct/reliable``, a WebSocket over TCP: nothing is ever
///   lost. ``LinkConditions/lossRate`` loses TCP segments (of up to 1448 bytes), which the sender
///   retransmits as Linux does: once a later segment's acknowledgement comes back a round trip
///   and a quarter of one after the loss (RFC 8985), or at the third later acknowledgement (fast
///   retransmit, RFC 5681), else when the timer fires (RTO = SRTT + max(4·RTTVAR, 200 ms),
///   RFC 6298, doubled on each repeated loss). The frame holding the segment waits for it, and so
///   does every frame behind it: on a 30 Hz stream at 100 ms round trip, about 130 ms more. Jitter
///   shows up as head-of-line delay too. ``incomingSegmentsRetransmitted`` counts the losses.
/// - ``LinkConditions/Delivery-swift.struct/unreliable``, datagrams (UDP): only the frames
///   `droppable` marks travel as unreliable frames (lost at ``LinkConditions/lossRate``,
///   duplicated, overtaken); every other frame still arrives, in order, as on a reliable channel.
///   The default marks snapshot frames; ``isUnreliableOverUDP(_:)`` marks every message the UDP
///   transport sends unreliably. A lost frame breaks a streaming deflate context, so a client
///   playing through datagram loss should offer only ``CompressionMode/perFrame`` compression.
///
/// Closing forwards every delayed outgoing frame at once, then closes the real connection, so
/// that a session's last words (its disconnect) are not lost; a close from the peer is reported
/// after the frames still delayed here.
public final class ImpairedTransportConnection: TransportConnection {
    private struct State {
        var upstream: SimulatedLink
        var downstream: SimulatedLink
        /// The real connection's close, held until the delayed frames before it are delivered.
        var pendingClose: TransportCloseReason?
        var isClosed = false
    }

    /// The conditions from this side to the peer.
    public let upstream: LinkConditions
    /// The conditions from the peer to this side.
    public let downstream: LinkConditions
    private let inner: any TransportConnection
    private let clock: any TickClock
    private let isDroppable: @Sendable ([UInt8]) -> Bool
    private let state: Mutex<State>

    /// Wraps a connection.
    ///
    /// - Parameters:
    ///   - inner: The real connection.
    ///   - upstream: Conditions for frames sent through this wrapper.
    ///   - downstream: Conditions for frames received through it.
    ///   - clock: The clock that times the delays.
    ///   - seed: Fixes every random draw (jitter, loss, retransmissions), as a simulated network's seed does.
    ///   - droppable: Which frames an unreliable link may lose, duplicate or reorder; snapshots by default.
    ///     A reliable link loses none, whatever it says.
    public init(
        wrapping inner: any TransportConnection, upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect,
        clock: any TickClock, seed: UInt64 = 1,
        droppable: @escaping @Sendable ([UInt8]) -> Bool = ImpairedTransportConnection.isSnapshotFrame
    ) {
        self.inner = inner
        self.upstream = upstream
        self.downstream = downstream
        self.clock = clock
        self.isDroppable = droppable
        var seeds = SplitMix64(seed: seed)
        self.state = Mutex(
            State(
                upstream: SimulatedLink(conditions: upstream, seed: seeds.next()),
                downstream: SimulatedLink(conditions: downstream, seed: seeds.next())))
    }

    /// Whether `frame` is a snapshot frame (its type byte, without the compressed flag, is a snapshot's).
    ///
    /// - Parameter frame: A frame's bytes.
    /// - Returns: `true` for a snapshot.
    public static func isSnapshotFrame(_ frame: [UInt8]) -> Bool {
        guard let first = frame.first else { return false }
        return MessageType(rawValue: first & ~Frame.compressedFlag) == .snapshot
    }

    /// Whether `frame` is one the UDP transport sends on its unreliable channel (PROTOCOL.md 1A):
    /// a snapshot, an input, a ping, a pong or stats.
    ///
    /// - Parameter frame: A frame's bytes.
    /// - Returns: `true` for a frame a datagram path may lose.
    public static func isUnreliableOverUDP(_ frame: [UInt8]) -> Bool {
        guard let first = frame.first else { return false }
        let type = MessageType(rawValue: first & ~Frame.compressedFlag)
        return type == .snapshot || type == .input || type == .ping || type == .pong || type == .stats
    }

    /// The wrapped connection's id.
    public var connectionID: UInt64 { inner.connectionID }

    /// The wrapped connection's request path (the room a client joins by URL).
    public var requestPath: String? { inner.requestPath }
    /// The wrapped connection's.
    public var deliversFramesInOrder: Bool { inner.deliversFramesInOrder }

    /// Frames received that the downstream link lost (unreliable mode only).
    public var incomingFramesLost: Int { state.withLock { $0.downstream.framesLost } }

    /// Frames sent that the upstream link lost (unreliable mode only).
    public var outgoingFramesLost: Int { state.withLock { $0.upstream.framesLost } }

    /// TCP segments received that the downstream link lost and retransmitted (reliable mode with
    /// loss), repeated losses of one segment included: nothing was lost, but these came late.
    public var incomingSegmentsRetransmitted: Int { state.withLock { $0.downstream.segmentsRetransmitted } }

    /// TCP segments sent that the upstream link lost and retransmitted (reliable mode with loss).
    public var outgoingSegmentsRetransmitted: Int { state.withLock { $0.upstream.segmentsRetransmitted } }

    /// Puts `frame` on the upstream link; the real connection gets it when the link delivers it.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: ``TransportSendResult/taken`` when the link took it (delayed here, or lost on
    ///   an unreliable link as the conditions say), ``TransportSendResult/closed`` once closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        let now = clock.now.nanoseconds
        let droppable = isDroppable(frame)
        let isTaken = state.withLock { state in
            guard !state.isClosed else { return false }
            return state.upstream.send(frame, now: now, droppable: droppable)
        }
        forwardOutgoing(now: now)
        return isTaken ? .taken : .closed
    }

    /// Whether a frame sent now would be taken: closed, backed up (the real connection's own
    /// answer, or everything queued here and there over `budgetBytes`), or taken.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What ``send(_:)`` would do with a frame now.
    public func readiness(budgetBytes: Int) -> TransportSendResult {
        if isClosed { return .closed }
        let inner = inner.readiness(budgetBytes: budgetBytes)
        guard inner == .taken else { return inner }
        return bufferedBytes > budgetBytes ? .backedUp : .taken
    }

    /// Bytes still delayed here plus those queued in the real connection.
    public var bufferedBytes: Int {
        state.withLock { state in state.upstream.inFlight.reduce(0) { $0 + $1.bytes.count } } + inner.bufferedBytes
    }

    /// Hands the real connection what the upstream link delivered, puts what the real connection
    /// received on the downstream link, and returns what that link delivered by now.
    ///
    /// - Returns: The frames, and `.closed` once the real connection closed and nothing delayed is left.
    public func drain() -> [TransportEvent] { drainArrivals().map(\.event) }

    /// What ``drain()`` returns, each frame with how long ago (on the wrapper's clock) the
    /// downstream link delivered it.
    ///
    /// A frame enters the simulated link when it arrived on the real connection (its own
    /// ``TransportArrival/waited`` before this drain), not at the drain: so the delayed frame's
    /// arrival keeps the real one's phase, and a client that times its frames from arrivals
    /// (``FramePhaseLock``) does not chase its own drains.
    ///
    /// - Returns: The events and their waits, oldest first.
    public func drainArrivals() -> [TransportArrival] {
        let now = clock.now.nanoseconds
        forwardOutgoing(now: now)
        let received = inner.drainArrivals()
        let droppable = received.map { arrival in
            if case .frame(let bytes) = arrival.event { return isDroppable(bytes) }
            return false
        }
        return state.withLock { state in
            guard !state.isClosed else { return [] }
            for (arrival, isDroppable) in zip(received, droppable) {
                switch arrival.event {
                case .frame(let bytes):
                    state.downstream.send(bytes, now: now - arrival.waited.wholeNanoseconds, droppable: isDroppable)
                case .closed(let reason): state.pendingClose = state.pendingClose ?? reason
                }
            }
            var events = state.downstream.takeArrived(now: now).map {
                TransportArrival(.frame($0.bytes), waited: .nanoseconds(now - $0.arrivesAt))
            }
            if let reason = state.pendingClose, state.downstream.inFlight.isEmpty {
                events.append(TransportArrival(.closed(reason)))
                state.isClosed = true
            }
            return events
        }
    }

    /// Sends every delayed outgoing frame at once, then closes the real connection with `code`.
    ///
    /// - Parameters:
    ///   - code: The close code the peer receives.
    ///   - reason: The reason text the peer receives.
    public func close(code: CloseCode, reason: String) {
        let delayed: [[UInt8]] = state.withLock { state in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            let frames = state.upstream.inFlight.map(\.bytes)
            state.upstream.inFlight.removeAll()
            state.downstream.inFlight.removeAll()
            return frames
        }
        for frame in delayed where inner.send(frame) != .taken { break }
        inner.close(code: code, reason: reason)
    }

    /// Whether this side closed, or has delivered the real connection's close.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Hands the real connection the frames the upstream link delivered by `now`. A frame the
    /// real connection refuses cannot be taken back from the sender (it may have joined a
    /// streaming deflate history), so the refusal closes this connection rather than lose it silently.
    private func forwardOutgoing(now: Int64) {
        let arrived = state.withLock { $0.upstream.takeArrived(now: now) }
        for packet in arrived where inner.send(packet.bytes) != .taken {
            close(code: .policyViolation, reason: "a delayed frame was refused; the frames after it cannot go without it")
            return
        }
    }
}

extension ImpairedTransportConnection: LinkStatisticsReporting {
    /// The wrapped connection's link figures, when it reports any: the real link under the
    /// simulated one (the frames this layer drops are not in its loss; ``incomingFramesLost``
    /// counts them).
    public var linkStatistics: TransportLinkStatistics? { (inner as? any LinkStatisticsReporting)?.linkStatistics }
}

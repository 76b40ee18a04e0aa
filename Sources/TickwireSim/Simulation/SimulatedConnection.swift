import Synchronization

/// One end of a connection on a ``SimulatedNetwork``.
///
/// Besides the ``TransportConnection`` contract it lets tests change the weather: new
/// ``LinkConditions`` (for example lifting a bandwidth cap), stalls, and abrupt disconnects.
///
/// Thread-safe: the shared links live in the pipe's `Mutex`; this end's own
/// closed flag lives in a `Mutex` too.
public final class SimulatedConnection: TransportConnection, Sendable {
    let pipe: SimulatedPipe
    /// Whether this is the client's end (it sends upstream and receives downstream).
    public let isClient: Bool
    private let closed = Mutex(false)

    init(pipe: SimulatedPipe, isClient: Bool) {
        self.pipe = pipe
        self.isClient = isClient
    }

    /// The connection's number on its network (both ends share it).
    public var connectionID: UInt64 { pipe.id }

    /// Whether this end has seen the connection close (or closed it).
    public var isClosed: Bool { closed.withLock { $0 } }

    /// Queues `frame` on this end's outgoing link.
    ///
    /// The link has no send buffer limit (frames wait behind its bandwidth cap as long as it
    /// takes), so it never answers ``TransportSendResult/backedUp``: a host finds a backed-up
    /// simulated client through ``readiness(budgetBytes:)``, from ``bufferedBytes``.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: ``TransportSendResult/taken`` (a lossy link may still lose it on the way), or
    ///   ``TransportSendResult/closed`` once this end or the link is closed.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        guard !isClosed else { return .closed }
        let now = pipe.now
        let isTaken = pipe.links.withLock { $0[toClient: !isClient].send(frame, now: now) }
        return isTaken ? .taken : .closed
    }

    /// Bytes sent from this end that have not left it yet (queued behind the bandwidth cap or a stall).
    public var bufferedBytes: Int {
        let now = pipe.now
        return pipe.links.withLock { $0[toClient: !isClient].bufferedBytes(now: now) }
    }

    /// Takes the frames that have arrived by now, and `.closed` once the connection is closed.
    ///
    /// - Returns: The events, oldest first.
    public func drain() -> [TransportEvent] { drainArrivals().map(\.event) }

    /// Takes the frames that have arrived by now, each with how long ago (on the network's
    /// clock) its link delivered it, and `.closed` once the connection is closed.
    ///
    /// - Returns: The events and their waits, oldest first.
    public func drainArrivals() -> [TransportArrival] {
        guard !isClosed else { return [] }
        let now = pipe.now
        let toClient = isClient
        let (arrived, closeReason): ([SimulatedLink.Packet], TransportCloseReason?) = pipe.links.withLock { links in
            let arrived = links[toClient: toClient].takeArrived(now: now)
            for packet in arrived {
                if toClient {
                    links.deliveredDownstream.fold(time: packet.arrivesAt, bytes: packet.bytes)
                } else {
                    links.deliveredUpstream.fold(time: packet.arrivesAt, bytes: packet.bytes)
                }
            }
            let link = links[toClient: toClient]
            if let closesAt = link.closesAt, closesAt <= now, link.inFlight.isEmpty {
                return (arrived, link.closeReason)
            }
            return (arrived, nil)
        }
        var events: [TransportArrival] = []
        events.reserveCapacity(arrived.count + 1)
        for packet in arrived { events.append(TransportArrival(.frame(packet.bytes), waited: .nanoseconds(now - packet.arrivesAt))) }
        if let closeReason {
            closed.withLock { $0 = true }
            events.append(TransportArrival(.closed(closeReason)))
        }
        return events
    }

    /// Closes this end: the peer receives the frames already sent, then
    /// `.closed(.closedByPeer(code: code, text: reason))`, one latency later.
    ///
    /// - Parameters:
    ///   - code: The close code the peer's `.closed` event carries.
    ///   - reason: The reason text it carries (cut to ``transportCloseReasonMaximumBytes``).
    public func close(code: CloseCode, reason: String) {
        let wasClosed = closed.withLock { flag in
            defer { flag = true }
            return flag
        }
        guard !wasClosed else { return }
        let now = pipe.now
        let toClient = isClient
        let peerReason = TransportCloseReason.closedByPeer(code: code, text: reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes))
        pipe.links.withLock { links in
            var outgoing = links[toClient: !toClient]
            if outgoing.closesAt == nil {
                outgoing.closesAt = max(outgoing.latestScheduledArrival, now + outgoing.conditions.latency.wholeNanoseconds)
                outgoing.closeReason = peerReason
            }
            links[toClient: !toClient] = outgoing
            var incoming = links[toClient: toClient]
            incoming.inFlight.removeAll()
            if incoming.closesAt == nil { incoming.closesAt = now }
            links[toClient: toClient] = incoming
        }
    }

    /// Cuts the connection at once, as a network failure would: frames in flight either way
    /// are lost, and both ends see `.closed(.connectionLost)` on their next drain.
    public func disconnect() {
        let now = pipe.now
        pipe.links.withLock { links in
            for toClient in [false, true] where links[toClient: toClient].closesAt == nil {
                links[toClient: toClient].inFlight.removeAll()
                links[toClient: toClient].closesAt = now
                links[toClient: toClient].closeReason = .connectionLost
            }
        }
    }

    /// Freezes the connection (both directions unless told otherwise) for `duration`: nothing arrives and nothing leaves until it
    /// ends, then everything held arrives in order (what a stalled TCP connection does).
    ///
    /// - Parameters:
    ///   - duration: How long the stall lasts from now.
    ///   - upstream: Whether the client-to-server direction stalls.
    ///   - downstream: Whether the server-to-client direction stalls.
    public func stall(for duration: Duration, upstream: Bool = true, downstream: Bool = true) {
        let now = pipe.now
        let until = now + duration.wholeNanoseconds
        pipe.links.withLock { links in
            if upstream { links.upstream.stall(now: now, until: until) }
            if downstream { links.downstream.stall(now: now, until: until) }
        }
    }

    /// Replaces the conditions of either or both directions, from now on.
    ///
    /// - Parameters:
    ///   - upstream: New client-to-server conditions, or `nil` to keep them.
    ///   - downstream: New server-to-client conditions, or `nil` to keep them.
    public func setConditions(upstream: LinkConditions? = nil, downstream: LinkConditions? = nil) {
        pipe.links.withLock { links in
            if let upstream { links.upstream.conditions = upstream }
            if let downstream { links.downstream.conditions = downstream }
        }
    }

    /// Frames sent by this end that the link dropped (unreliable mode only).
    public var framesLost: Int { pipe.links.withLock { $0[toClient: !isClient].framesLost } }

    /// Segments sent by this end that the link lost and retransmitted (reliable mode with a
    /// ``LinkConditions/lossRate``), repeated losses of one segment included.
    public var segmentsRetransmitted: Int { pipe.links.withLock { $0[toClient: !isClient].segmentsRetransmitted } }
}

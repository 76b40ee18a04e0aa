import TickwireCodec
import TickwireFoundation

/// One direction of a simulated connection: the frames in flight and the rules that
/// decide when each arrives. Pure state, driven by the owning pipe under its lock.
struct SimulatedLink {
    struct Packet {
        var leavesAt: Int64
        /// When it is delivered; ``SimulatedLink/waiting`` while a segment of it, or of a reliable
        /// frame before it, waits for a retransmission whose time is not known yet.
        var arrivesAt: Int64
        var order: UInt64
        var bytes: [UInt8]
        /// Reliable mode: when its own segments have all arrived, whatever waits before it.
        var ownArrival: Int64 = 0
        /// Reliable mode: its lost segments whose retransmission time is not known yet.
        var segmentsAwaitingRetransmission = 0
    }

    /// The arrival time of a frame held behind a retransmission not yet scheduled.
    static let waiting = Int64.max

    var conditions: LinkConditions
    var random: SplitMix64
    /// Frames sent and not yet delivered, sorted by (arrivesAt, order).
    var inFlight: [Packet] = []
    var busyUntil: Int64 = 0
    var lastArrival: Int64 = 0
    var nextOrder: UInt64 = 0
    var stalledUntil: Int64 = 0
    /// When the receiver learns the connection closed, if it has.
    var closesAt: Int64?
    var closeReason: TransportCloseReason = .connectionLost
    var framesLost = 0
    /// Reliable mode with loss: the lost segments and when each is retransmitted.
    var retransmissions = RetransmissionModel()
    /// When the last frame taken off the link arrived.
    var lastTaken: Int64 = 0

    init(conditions: LinkConditions, seed: UInt64) {
        self.conditions = conditions
        self.random = SplitMix64(seed: seed)
    }

    mutating func unitRandom() -> Double {
        Double(random.next() >> 11) / Double(UInt64(1) << 53)
    }

    mutating func jitterSample() -> Int64 {
        let jitter = conditions.jitter.wholeNanoseconds
        guard jitter > 0 else { return 0 }
        return Int64(random.next() % UInt64(jitter + 1))
    }

    /// Puts a frame on the link at `now`; a lossy link may lose it on the way.
    ///
    /// In unreliable mode a frame that is not `droppable` still travels as a reliable one: never
    /// lost, duplicated or reordered, and never ahead of the reliable frames sent before it
    /// (``ImpairedTransportConnection`` marks which frames an app may lose).
    ///
    /// - Returns: `false` when the link is closing and refused the frame.
    @discardableResult
    mutating func send(_ bytes: [UInt8], now: Int64, droppable: Bool = true) -> Bool {
        guard closesAt == nil else { return false }
        var leaves = max(now, busyUntil, stalledUntil)
        if let bandwidth = conditions.bandwidth, bandwidth > 0 {
            leaves += Int64(bytes.count) * 1_000_000_000 / Int64(bandwidth)
        }
        busyUntil = leaves
        let latency = conditions.latency.wholeNanoseconds
        if conditions.delivery.isReliable || !droppable {
            var packet = Packet(leavesAt: leaves, arrivesAt: 0, order: nextOrder, bytes: bytes)
            packet.ownArrival = leaves + latency + jitterSample()
            // Loss on a reliable link is TCP's: lost segments are retransmitted, and wait.
            if conditions.delivery.isReliable, conditions.lossRate > 0 || !retransmissions.pending.isEmpty {
                packet.segmentsAwaitingRetransmission = sendSegments(of: packet)
            }
            // Head-of-line: never arrive before the frame sent just before.
            packet.arrivesAt = packet.segmentsAwaitingRetransmission > 0 ? Self.waiting : max(packet.ownArrival, lastArrival)
            lastArrival = packet.arrivesAt
            // Among unreliable frames a reliable one may arrive before some already in flight.
            if conditions.delivery.isReliable { append(packet) } else { insert(packet) }
        } else {
            if unitRandom() < conditions.lossRate {
                framesLost += 1
                return true
            }
            var arrives = leaves + latency + jitterSample()
            if unitRandom() < conditions.reorderRate { arrives += latency + conditions.jitter.wholeNanoseconds }
            insert(Packet(leavesAt: leaves, arrivesAt: arrives, order: nextOrder, bytes: bytes))
            if unitRandom() < conditions.duplicationRate {
                nextOrder += 1
                insert(Packet(leavesAt: leaves, arrivesAt: arrives + jitterSample(), order: nextOrder, bytes: bytes))
            }
        }
        nextOrder += 1
        return true
    }

    private mutating func append(_ packet: Packet) {
        inFlight.append(packet)
    }

    private mutating func insert(_ packet: Packet) {
        var index = inFlight.count
        while index > 0, (inFlight[index - 1].arrivesAt, inFlight[index - 1].order) > (packet.arrivesAt, packet.order) {
            index -= 1
        }
        inFlight.insert(packet, at: index)
    }

    /// Holds every frame that would arrive during `now..<until` until `until`, and keeps
    /// new frames from leaving before then (what a frozen TCP connection does).
    mutating func stall(now: Int64, until: Int64) {
        stalledUntil = max(stalledUntil, until)
        for index in inFlight.indices where inFlight[index].arrivesAt >= now {
            inFlight[index].arrivesAt = max(inFlight[index].arrivesAt, until)
            inFlight[index].ownArrival = max(inFlight[index].ownArrival, until)
            inFlight[index].leavesAt = max(inFlight[index].leavesAt, min(until, inFlight[index].arrivesAt))
        }
        lastArrival = max(lastArrival, until)
        inFlight.sort { ($0.arrivesAt, $0.order) < ($1.arrivesAt, $1.order) }
    }

    /// Bytes sent that have not left the sender by `now`.
    func bufferedBytes(now: Int64) -> Int {
        var total = 0
        for packet in inFlight where packet.leavesAt > now { total += packet.bytes.count }
        return total
    }

    /// Removes and returns, in order, the frames that have arrived by `now`.
    mutating func takeArrived(now: Int64) -> [Packet] {
        scheduleRetransmissions(now: now)
        var count = 0
        while count < inFlight.count, inFlight[count].arrivesAt <= now { count += 1 }
        guard count > 0 else { return [] }
        let arrived = Array(inFlight[..<count])
        inFlight.removeFirst(count)
        lastTaken = max(lastTaken, arrived[count - 1].arrivesAt)
        return arrived
    }
}

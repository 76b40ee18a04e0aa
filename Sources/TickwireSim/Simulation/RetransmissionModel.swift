/// What TCP does with a lost segment, as a ``SimulatedLink`` in reliable mode models it: nothing
/// is lost, but a lost segment arrives one retransmission later, and every frame behind it waits.
///
/// A frame travels as segments of ``segmentBytes``, each lost with the link's
/// ``LinkConditions/lossRate``. The sender retransmits a lost segment at the first of:
/// - a later segment acknowledged (selectively) and a quarter of the minimum round trip settled
///   past one round trip since the lost one left: the time-based loss detection Linux uses by
///   default (RFC 8985);
/// - the ``duplicateAckThreshold``-th later segment acknowledged: fast retransmit (RFC 5681);
/// - the retransmission timer: RTO = SRTT + max(4·RTTVAR, 200 ms) (RFC 6298, with Linux's 200 ms
///   floor, which Linux applies to the variance term), counted from the lost segment's departure.
///
/// A retransmission lost again waits for the timer, doubled each time (RFC 6298, 5.5). A sender
/// with nothing more to send gets no acknowledgements, so only the timer saves it; a 30 Hz
/// snapshot stream at 100 ms round trip retransmits about 130 ms after the loss.
///
/// Simplifications, each small next to a round trip: acknowledgements come back over the same
/// latency (and half the jitter) as the data goes; the round-trip estimate is the link's latency
/// both ways plus its mean jitter both ways, RTTVAR a quarter of its jitter; a later segment that
/// is itself lost acknowledges nothing; a retransmission uses no bandwidth; congestion control is
/// not modelled. Every draw (loss, repeated loss, the retransmission's jitter) is made when the
/// segment is sent, from the link's seeded generator, so a run does not depend on when it is polled.
struct RetransmissionModel {
    /// Frame bytes per segment: the MSS of a 1500-byte path with TCP timestamps.
    static let segmentBytes = 1448
    /// Later segments acknowledged that trigger fast retransmit (RFC 5681).
    static let duplicateAckThreshold = 3
    /// Linux's floor under the timer's variance term (`TCP_RTO_MIN`), nanoseconds.
    static let minimumTimeoutVariance: Int64 = 200_000_000
    /// Linux's ceiling on the timer (`TCP_RTO_MAX`), nanoseconds.
    static let maximumTimeout: Int64 = 120_000_000_000
    /// Repeated losses of one segment drawn at most (Linux's `tcp_retries2`); a connection that
    /// lossy would have been given up long before.
    static let maximumRetransmissions = 15

    /// The timing a link's conditions give the sender.
    struct Timing {
        /// Round trip: the latency both ways plus the mean jitter both ways.
        let roundTrip: Int64
        /// From a segment's arrival to its acknowledgement's arrival at the sender.
        let acknowledgementDelay: Int64
        /// How long past a round trip a segment may be late before a later one's acknowledgement
        /// marks it lost (a quarter of the minimum round trip).
        let reorderWindow: Int64
        /// The retransmission timeout.
        let timeout: Int64

        init(_ conditions: LinkConditions) {
            let latency = conditions.latency.wholeNanoseconds
            let jitter = conditions.jitter.wholeNanoseconds
            roundTrip = 2 * latency + jitter
            acknowledgementDelay = latency + jitter / 2
            reorderWindow = 2 * latency / 4
            // RTTVAR is a quarter of the jitter, so 4·RTTVAR is the jitter.
            timeout = min(roundTrip + max(jitter, RetransmissionModel.minimumTimeoutVariance), RetransmissionModel.maximumTimeout)
        }
    }

    /// A lost segment whose retransmission time is not settled yet.
    struct Loss {
        /// The frame it belongs to (``SimulatedLink/Packet/order``).
        let order: UInt64
        /// When the retransmission timer fires.
        let timerFiresAt: Int64
        /// When a later segment's acknowledgement can first mark it lost.
        let reorderSettledAt: Int64
        /// The timer's length, which repeated losses double.
        let timeout: Int64
        /// How many of its retransmissions are lost too.
        let lostRetransmissions: Int
        /// The delivered retransmission's one-way delay.
        let oneWayDelay: Int64
        /// Later segments acknowledged so far.
        var laterAcknowledgements = 0
        /// The earliest time the sender is known to retransmit: the timer, until an
        /// acknowledgement says sooner.
        var retransmitsAt: Int64
    }

    /// Lost segments, oldest first, whose retransmission is not yet scheduled.
    private(set) var pending: [Loss] = []
    /// Segments lost so far, retransmissions lost again included.
    private(set) var segmentsLost = 0

    /// Notes a segment lost when sent at `sentAt`.
    mutating func lose(
        order: UInt64, sentAt: Int64, timing: Timing, lostRetransmissions: Int, oneWayDelay: Int64
    ) {
        segmentsLost += 1 + lostRetransmissions
        pending.append(
            Loss(
                order: order, timerFiresAt: sentAt + timing.timeout,
                reorderSettledAt: sentAt + timing.roundTrip + timing.reorderWindow, timeout: timing.timeout,
                lostRetransmissions: lostRetransmissions, oneWayDelay: oneWayDelay, retransmitsAt: sentAt + timing.timeout))
    }

    /// Notes a later segment's acknowledgement reaching the sender at `time`: every loss still
    /// pending was sent before it.
    mutating func acknowledge(at time: Int64) {
        for index in pending.indices {
            pending[index].laterAcknowledgements += 1
            let loss = pending[index]
            var retransmitsAt = loss.retransmitsAt
            if loss.laterAcknowledgements == 1 { retransmitsAt = min(retransmitsAt, max(time, loss.reorderSettledAt)) }
            if loss.laterAcknowledgements == Self.duplicateAckThreshold { retransmitsAt = min(retransmitsAt, time) }
            pending[index].retransmitsAt = retransmitsAt
        }
    }

    /// Settles the losses whose first retransmission is due by `now` (no acknowledgement still to
    /// come can make it sooner: segments sent from now on are acknowledged after now).
    ///
    /// - Returns: For each, its frame and when the retransmission that gets through arrives.
    mutating func settle(now: Int64) -> [(order: UInt64, arrivesAt: Int64)] {
        var settled: [(order: UInt64, arrivesAt: Int64)] = []
        pending.removeAll { loss in
            guard loss.retransmitsAt <= now else { return false }
            var sendsAt = loss.retransmitsAt
            // After a timeout the timer is already doubled (RFC 6298, 5.5).
            var backoff: Int64 = loss.retransmitsAt >= loss.timerFiresAt ? 2 : 1
            for _ in 0..<loss.lostRetransmissions {
                sendsAt += min(loss.timeout * backoff, Self.maximumTimeout)
                backoff = min(backoff * 2, 1 << 20)
            }
            settled.append((loss.order, sendsAt + loss.oneWayDelay))
            return true
        }
        return settled
    }
}

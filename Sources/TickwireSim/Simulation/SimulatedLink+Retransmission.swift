// Loss on a reliable link: TCP's retransmissions and head-of-line blocking (``RetransmissionModel``).
extension SimulatedLink {
    /// Sends `packet`'s segments, each lost at the loss rate, and notes the later segments'
    /// acknowledgements for the losses pending before them.
    ///
    /// - Returns: How many of its segments were lost (and wait for a retransmission).
    mutating func sendSegments(of packet: Packet) -> Int {
        let timing = RetransmissionModel.Timing(conditions)
        let segments = max(1, (packet.bytes.count + RetransmissionModel.segmentBytes - 1) / RetransmissionModel.segmentBytes)
        var lost = 0
        for _ in 0..<segments {
            // No draw without loss, so that a lossless link's draws (its jitter) stay as they were.
            if conditions.lossRate > 0, unitRandom() < conditions.lossRate {
                var lostAgain = 0
                while lostAgain < RetransmissionModel.maximumRetransmissions, unitRandom() < conditions.lossRate { lostAgain += 1 }
                let oneWay = conditions.latency.wholeNanoseconds + jitterSample()
                retransmissions.lose(
                    order: packet.order, sentAt: packet.leavesAt, timing: timing, lostRetransmissions: lostAgain, oneWayDelay: oneWay)
                lost += 1
            } else {
                retransmissions.acknowledge(at: packet.ownArrival + timing.acknowledgementDelay)
            }
        }
        return lost
    }

    /// Schedules the retransmissions due by `now`, then gives the frames that no longer wait their
    /// arrival: each after its own segments and after the frame before it (in order, as TCP delivers).
    mutating func scheduleRetransmissions(now: Int64) {
        let settled = retransmissions.settle(now: now)
        guard !settled.isEmpty else { return }
        for (order, arrival) in settled {
            // A frame no longer in flight was cut off with its connection (a disconnect or a close
            // empties the link): there is nothing left to deliver.
            guard let index = inFlight.firstIndex(where: { $0.order == order }) else { continue }
            inFlight[index].ownArrival = max(inFlight[index].ownArrival, arrival)
            inFlight[index].segmentsAwaitingRetransmission -= 1
        }
        var previous = lastTaken
        for index in inFlight.indices {
            guard inFlight[index].segmentsAwaitingRetransmission == 0 else {
                lastArrival = Self.waiting
                return
            }
            previous = max(previous, inFlight[index].ownArrival)
            inFlight[index].arrivesAt = previous
        }
        lastArrival = previous
    }

    /// The latest arrival scheduled so far (a frame still waiting for a retransmission counts as
    /// the last one taken): when a close sent now may arrive at the earliest.
    var latestScheduledArrival: Int64 { lastArrival == Self.waiting ? lastTaken : lastArrival }

    /// Segments lost and retransmitted (reliable mode), repeated losses of one segment included.
    var segmentsRetransmitted: Int { retransmissions.segmentsLost }
}

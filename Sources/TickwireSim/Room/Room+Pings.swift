import TickwireCodec

// Answering pings: the pong says how long the room held the ping (PROTOCOL.md §5.9.1).
extension Room {
    /// A ping taken in and not answered yet.
    struct PendingPing {
        /// Who sent it.
        let clientID: UInt32
        /// The ping.
        let ping: Message.Ping
        /// When its frame arrived (came off the socket), on the room's clock.
        let arrivedAt: Timestamp
    }

    /// Answers the pings taken in since the last call, at the end of a tick (after its step and
    /// snapshots), each with a pong stamped with the clock now. A client that offered the hold
    /// (``Message/Hello/offersPongHold``) also learns how long its ping waited here, from its
    /// arrival to now, and leaves that out of its round trip; any other gets the original pong.
    /// A ping whose client has gone is dropped with it.
    ///
    /// - Parameter now: The tick's time, for the byte counters.
    func answerPendingPings(now: Timestamp) {
        guard !pendingPings.isEmpty else { return }
        defer { pendingPings.removeAll(keepingCapacity: true) }
        // The clock read now, not the tick's start: the whole tick is part of the hold.
        let answeredAt = clock.now
        for pending in pendingPings {
            guard let client = clients[pending.clientID], client.isConnected else { continue }
            answer(pending.ping, from: client, arrivedAt: pending.arrivedAt, answeredAt: max(answeredAt, pending.arrivedAt), now: now)
        }
    }

    /// Sends one pong.
    ///
    /// - Parameters:
    ///   - ping: The ping.
    ///   - client: Who sent it.
    ///   - arrivedAt: When the ping's frame arrived, on the room's clock.
    ///   - answeredAt: The pong's server time, on the room's clock.
    ///   - now: The tick's time, for the byte counters.
    private func answer(_ ping: Message.Ping, from client: RoomClient<G>, arrivedAt: Timestamp, answeredAt: Timestamp, now: Timestamp) {
        let serverTime = Self.microseconds(answeredAt)
        let hold = serverTime - min(serverTime, Self.microseconds(arrivedAt))
        let pong = Message.Pong(clientTime: ping.clientTime, serverTime: serverTime, hold: client.acceptsPongHold ? hold : nil)
        guard let count = client.send(.pong(pong), now: now).sentBytes else { return }
        bytesOut.add(count, at: now)
        totals.pongsSent += 1
        totals.pingHoldSecondsTotal += Double(hold) / 1e6
    }

    /// A timestamp in whole microseconds (the wire's unit), truncated; zero before the origin.
    static func microseconds(_ time: Timestamp) -> UInt64 {
        UInt64(max(0, time.nanoseconds / 1000))
    }
}

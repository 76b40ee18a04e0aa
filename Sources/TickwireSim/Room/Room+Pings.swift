import TickwireCodec

// Answering pings: the pong says how long the room held the ping (PROTOCOL.md §5.9.1).
extension Room {
    /// Answers `ping` at once with a pong stamped with the clock now. A client that offered the
    /// hold (``Message/Hello/offersPongHold``) also learns how long the ping waited here, from
    /// `arrivedAt` (when its frame came off the socket) to now, and subtracts it from its
    /// round trip; any other gets the original pong.
    ///
    /// - Parameters:
    ///   - ping: The ping.
    ///   - client: Who sent it.
    ///   - arrivedAt: When the ping's frame arrived, on the room's clock.
    ///   - now: The tick's time, for the byte counters.
    func answer(_ ping: Message.Ping, from client: RoomClient<G>, arrivedAt: Timestamp, now: Timestamp) {
        // The clock read now, not the tick's start: what ran before this in the tick is part of the hold.
        let answeredAt = max(clock.now, arrivedAt)
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

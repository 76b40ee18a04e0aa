extension Message {
    /// The server's answer to a ``Ping``.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.9): client time echoed (varint, µs), server
    /// time (varint, µs), then, only when the hello offered and the welcome accepted it
    /// (``Hello/offersPongHold``, ``Welcome/acceptsPongHold``), the hold (varint, µs): how
    /// long the server held the ping between its arrival and this answer.
    ///
    /// With a hold, the ping's arrival is `serverTime − hold` on the server's clock, and a
    /// client that sent the ping at *t1* and received the pong at *t4* computes, NTP-style,
    /// round trip `(t4 − t1) − hold` and clock offset
    /// `((serverTime − hold − t1) + (serverTime − t4)) / 2`. Without one the round trip is
    /// `t4 − t1` and server time on arrival about `serverTime + roundTrip / 2`, the hold
    /// counted in both.
    public struct Pong: Hashable, Sendable {
        /// The ping's client time, echoed unchanged.
        public var clientTime: UInt64
        /// The server's clock when it answered, in microseconds.
        public var serverTime: UInt64
        /// How long the server held the ping, in microseconds: from its arrival (when the frame
        /// came off the socket) to ``serverTime``; `nil` in a pong of the original form.
        public var hold: UInt64?

        /// Creates a pong.
        ///
        /// - Parameters:
        ///   - clientTime: The ping's client time.
        ///   - serverTime: The server's clock in microseconds when it answered.
        ///   - hold: How long the server held the ping in microseconds, or `nil` for the
        ///     original form (a client that did not offer ``Hello/offersPongHold``).
        public init(clientTime: UInt64, serverTime: UInt64, hold: UInt64? = nil) {
            self.clientTime = clientTime
            self.serverTime = serverTime
            self.hold = hold
        }

        /// The server's clock when the ping arrived, in microseconds (``serverTime`` − ``hold``,
        /// at least zero); `nil` without a hold.
        public var receiveTime: UInt64? {
            hold.map { serverTime - min($0, serverTime) }
        }

        func encode(into writer: inout ByteWriter) {
            writer.writeVarUInt(clientTime)
            writer.writeVarUInt(serverTime)
            if let hold { writer.writeVarUInt(hold) }
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            clientTime = try reader.readVarUInt()
            serverTime = try reader.readVarUInt()
            // The hold is the one field that may follow: its presence alone says which form this is.
            hold = reader.isAtEnd ? nil : try reader.readVarUInt()
        }
    }
}

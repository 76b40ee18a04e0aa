extension Message {
    /// The server's answer to a ``Ping``: the round trip gives the latency, the server time
    /// the clock offset (server time ≈ `serverTime + roundTrip / 2` on arrival).
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.9): client time echoed (varint, µs), server
    /// time (varint, µs).
    public struct Pong: Hashable, Sendable {
        /// The ping's client time, echoed unchanged.
        public var clientTime: UInt64
        /// The server's clock when it answered, in microseconds.
        public var serverTime: UInt64

        /// Creates a pong.
        ///
        /// - Parameters:
        ///   - clientTime: The ping's client time.
        ///   - serverTime: The server's clock in microseconds.
        public init(clientTime: UInt64, serverTime: UInt64) {
            self.clientTime = clientTime
            self.serverTime = serverTime
        }

        func encode(into writer: inout ByteWriter) {
            writer.writeVarUInt(clientTime)
            writer.writeVarUInt(serverTime)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            clientTime = try reader.readVarUInt()
            serverTime = try reader.readVarUInt()
        }
    }
}

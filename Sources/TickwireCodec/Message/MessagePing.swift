extension Message {
    /// A clock-sync probe from the client, answered by a ``Pong``.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.8): client time (varint, µs).
    public struct Ping: Hashable, Sendable {
        /// The client's clock when it sent the ping, in microseconds.
        public var clientTime: UInt64

        /// Creates a ping.
        ///
        /// - Parameter clientTime: The client's clock in microseconds.
        public init(clientTime: UInt64) {
            self.clientTime = clientTime
        }

        func encode(into writer: inout ByteWriter) {
            writer.writeVarUInt(clientTime)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            clientTime = try reader.readVarUInt()
        }
    }
}

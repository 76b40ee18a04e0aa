extension Message {
    /// One world snapshot for one client, its entity data delta-encoded against a baseline.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.6): tick (varint), baseline distance (varint:
    /// 0 for a full snapshot, else `tick − baselineTick` modulo 2^32, so ticks may wrap as in
    /// the codec), last processed input sequence (varint), server time (varint, µs), then the
    /// delta: every remaining byte, opaque here (sections 3 and 4 describe it).
    public struct Snapshot: Hashable, Sendable {
        /// The tick the snapshot was captured at.
        public var tick: UInt32
        /// The snapshot the delta is relative to, an earlier tick (modulo 2^32, never ``tick``
        /// itself); `nil` for a full snapshot.
        public var baselineTick: UInt32?
        /// The sequence number of the newest input of this client the server has applied; 0 for none.
        public var lastProcessedInput: UInt32
        /// The server's clock when it captured the snapshot, in microseconds.
        public var serverTime: UInt64
        /// The encoded entity delta (the codec's output), carried as is.
        public var delta: [UInt8]

        /// Creates a snapshot message.
        ///
        /// - Parameters:
        ///   - tick: The snapshot's tick.
        ///   - baselineTick: The baseline's tick, not `tick` itself, or `nil` for a full snapshot.
        ///   - lastProcessedInput: The newest applied input sequence number, or 0.
        ///   - serverTime: The server's clock in microseconds.
        ///   - delta: The encoded delta.
        public init(tick: UInt32, baselineTick: UInt32?, lastProcessedInput: UInt32, serverTime: UInt64, delta: [UInt8]) {
            self.tick = tick
            self.baselineTick = baselineTick
            self.lastProcessedInput = lastProcessedInput
            self.serverTime = serverTime
            self.delta = delta
        }

        func encode(into writer: inout ByteWriter) throws(FrameError) {
            writer.writeVarUInt(UInt64(tick))
            if let baselineTick {
                guard baselineTick != tick else { throw .invalidBaseline(tick: tick, baseline: baselineTick) }
                // Wrapping subtraction: ticks are counted modulo 2^32.
                writer.writeVarUInt(UInt64(tick &- baselineTick))
            } else {
                writer.writeVarUInt(0)
            }
            writer.writeVarUInt(UInt64(lastProcessedInput))
            writer.writeVarUInt(serverTime)
            writer.writeBytes(delta)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            tick = try reader.readVarUInt32(field: "snapshot tick")
            let distance = try reader.readVarUInt32(field: "baseline distance")
            // Wrapping subtraction: ticks are counted modulo 2^32.
            baselineTick = distance == 0 ? nil : tick &- distance
            lastProcessedInput = try reader.readVarUInt32(field: "last processed input")
            serverTime = try reader.readVarUInt()
            delta = reader.readRemainingBytes()
        }
    }
}

extension Message {
    /// Server statistics over a recent window, for dashboards and the load tool.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.11), every field a varint: tick, tick duration
    /// p50, p99 and maximum (µs), CPU share (per mille of one core), connected clients, bytes
    /// sent per second.
    public struct Stats: Hashable, Sendable {
        /// The server tick the statistics were taken at.
        public var tick: UInt32
        /// The median duration of a tick's work, in microseconds.
        public var tickDurationP50: UInt32
        /// The 99th-percentile duration of a tick's work, in microseconds.
        public var tickDurationP99: UInt32
        /// The longest tick in the window, in microseconds.
        public var tickDurationMax: UInt32
        /// The server process's CPU use in per mille of one core (over 1000 with several cores busy).
        public var cpuPerMille: UInt32
        /// The number of connected clients.
        public var connectedClients: UInt32
        /// The bytes the server sent per second, all clients together.
        public var bytesOutPerSecond: UInt64

        /// Creates a statistics message.
        ///
        /// - Parameters:
        ///   - tick: The tick the statistics were taken at.
        ///   - tickDurationP50: Median tick duration, µs.
        ///   - tickDurationP99: 99th-percentile tick duration, µs.
        ///   - tickDurationMax: Longest tick, µs.
        ///   - cpuPerMille: CPU use in per mille of one core.
        ///   - connectedClients: Connected clients.
        ///   - bytesOutPerSecond: Bytes sent per second.
        public init(
            tick: UInt32, tickDurationP50: UInt32, tickDurationP99: UInt32, tickDurationMax: UInt32,
            cpuPerMille: UInt32, connectedClients: UInt32, bytesOutPerSecond: UInt64
        ) {
            self.tick = tick
            self.tickDurationP50 = tickDurationP50
            self.tickDurationP99 = tickDurationP99
            self.tickDurationMax = tickDurationMax
            self.cpuPerMille = cpuPerMille
            self.connectedClients = connectedClients
            self.bytesOutPerSecond = bytesOutPerSecond
        }

        func encode(into writer: inout ByteWriter) {
            writer.writeVarUInt(UInt64(tick))
            writer.writeVarUInt(UInt64(tickDurationP50))
            writer.writeVarUInt(UInt64(tickDurationP99))
            writer.writeVarUInt(UInt64(tickDurationMax))
            writer.writeVarUInt(UInt64(cpuPerMille))
            writer.writeVarUInt(UInt64(connectedClients))
            writer.writeVarUInt(bytesOutPerSecond)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            tick = try reader.readVarUInt32(field: "stats tick")
            tickDurationP50 = try reader.readVarUInt32(field: "tick duration p50")
            tickDurationP99 = try reader.readVarUInt32(field: "tick duration p99")
            tickDurationMax = try reader.readVarUInt32(field: "tick duration max")
            cpuPerMille = try reader.readVarUInt32(field: "CPU per mille")
            connectedClients = try reader.readVarUInt32(field: "connected clients")
            bytesOutPerSecond = try reader.readVarUInt()
        }
    }
}

extension Message {
    /// What a client was showing when it sampled one input: its render time on the server's
    /// tick timeline, `tick + fraction / 256` ticks, which a server with lag compensation
    /// rewinds the world to when it resolves that input.
    ///
    /// On the wire (`Protocol/PROTOCOL.md` section 5.7.1): the tick as a varint (32-bit) and the
    /// fraction as a `u8`, after the inputs of an input message, once the welcome has accepted
    /// render times.
    public struct RenderTime: Hashable, Sendable, CustomStringConvertible {
        /// The last whole tick at or before the render time.
        public var tick: UInt32
        /// How far the render time is past ``tick``, in 1/256 of a tick.
        public var fraction: UInt8

        /// How many parts of a tick one unit of ``fraction`` is.
        public static let fractionScale = 256.0

        /// Creates a render time from its wire fields.
        ///
        /// - Parameters:
        ///   - tick: The whole tick.
        ///   - fraction: The part of a tick past it, in 1/256 of a tick.
        public init(tick: UInt32, fraction: UInt8 = 0) {
            self.tick = tick
            self.fraction = fraction
        }

        /// Creates the render time nearest to `ticks` (a tick count with a fraction), clamped to
        /// the 32-bit tick range.
        ///
        /// - Parameter ticks: The render time in ticks; not-a-number counts as 0.
        public init(ticks: Double) {
            let scaled = ticks.isNaN ? 0 : (ticks * Self.fractionScale).rounded()
            let clamped = min(max(scaled, 0), Double(UInt32.max) * Self.fractionScale + 255)
            let whole = (clamped / Self.fractionScale).rounded(.down)
            self.tick = UInt32(whole)
            self.fraction = UInt8(clamped - whole * Self.fractionScale)
        }

        /// The render time in ticks, with its fraction.
        public var ticks: Double { Double(tick) + Double(fraction) / Self.fractionScale }

        /// `tick+fraction/256`, for logs.
        public var description: String { "\(tick)+\(fraction)/256" }

        func encode(into writer: inout ByteWriter) {
            writer.writeVarUInt(UInt64(tick))
            writer.writeUInt8(fraction)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            tick = try reader.readVarUInt32(field: "render tick")
            fraction = try reader.readUInt8()
        }
    }
}

extension Message {
    /// The client's newest inputs, repeated over several messages so that a lost frame loses
    /// nothing, and its acknowledgement of the newest snapshot it holds.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.7): acknowledged tick (varint: 0 for none, else
    /// `tick + 1`), newest sequence number (varint), input count (varint), then each input as a
    /// byte string, newest first: input `i` (from 0) has sequence number `newestSequence − i`.
    /// Then, only from a client whose welcome accepted render times (section 5.7.1), one
    /// ``RenderTime`` per input in the same order; a body that ends after the inputs has none.
    public struct Input: Hashable, Sendable {
        /// The tick of the newest snapshot the client holds (its ack), or `nil` before the first.
        public var ackTick: UInt32?
        /// The sequence number of ``inputs```[0]`, the newest input. Sequence numbers start at 1.
        public var newestSequence: UInt32
        /// The last few inputs, newest first, each in the game's own encoding (at most
        /// ``FrameLimits/maximumInputsPerMessage`` of at most ``FrameLimits/maximumInputBytes``).
        public var inputs: [[UInt8]]
        /// What the client showed when it sampled each input, in the order of ``inputs``
        /// (section 5.7.1), or `nil` for the version 1 form without them. When set it holds one
        /// render time per input.
        public var renderTimes: [RenderTime]?

        /// Creates an input message.
        ///
        /// - Parameters:
        ///   - ackTick: The newest snapshot tick held, or `nil`.
        ///   - newestSequence: The sequence number of `inputs[0]`; at least `inputs.count`.
        ///   - inputs: The inputs, newest first.
        ///   - renderTimes: One render time per input, in the same order, or `nil` for none
        ///     (only a client whose welcome accepted render times sends them).
        public init(ackTick: UInt32?, newestSequence: UInt32, inputs: [[UInt8]], renderTimes: [RenderTime]? = nil) {
            self.ackTick = ackTick
            self.newestSequence = newestSequence
            self.inputs = inputs
            self.renderTimes = renderTimes
        }

        /// The render time of the input at `index` in ``inputs``, if the message carries render times.
        ///
        /// - Parameter index: An index into ``inputs``.
        /// - Returns: Its render time, or `nil`.
        public func renderTime(at index: Int) -> RenderTime? {
            guard let renderTimes, renderTimes.indices.contains(index) else { return nil }
            return renderTimes[index]
        }

        /// The sequence number of the input at `index` in ``inputs``.
        ///
        /// - Parameter index: An index into ``inputs``.
        /// - Returns: `newestSequence − index`.
        public func sequence(at index: Int) -> UInt32 {
            newestSequence - UInt32(index)
        }

        func encode(into writer: inout ByteWriter, limits: FrameLimits) throws(FrameError) {
            if inputs.count > limits.maximumInputsPerMessage {
                throw .tooManyInputs(count: UInt64(inputs.count), limit: limits.maximumInputsPerMessage)
            }
            if inputs.count > Int(newestSequence) {
                throw .inputSequenceUnderflow(newest: newestSequence, count: inputs.count)
            }
            if let renderTimes, renderTimes.count != inputs.count {
                throw .renderTimeCountMismatch(inputs: inputs.count, renderTimes: renderTimes.count)
            }
            writer.writeVarUInt(ackTick.map { UInt64($0) + 1 } ?? 0)
            writer.writeVarUInt(UInt64(newestSequence))
            writer.writeVarUInt(UInt64(inputs.count))
            for input in inputs {
                try writer.writeLengthPrefixedBytes(input, field: "input", limit: limits.maximumInputBytes)
            }
            for renderTime in renderTimes ?? [] { renderTime.encode(into: &writer) }
        }

        init(from reader: inout ByteReader, limits: FrameLimits) throws(FrameError) {
            let ack = try reader.readVarUInt(field: "acknowledged tick + 1", maximum: UInt64(UInt32.max) + 1)
            ackTick = ack == 0 ? nil : UInt32(ack - 1)
            newestSequence = try reader.readVarUInt32(field: "newest input sequence")
            let count = try reader.readVarUInt()
            if count > UInt64(limits.maximumInputsPerMessage) {
                throw .tooManyInputs(count: count, limit: limits.maximumInputsPerMessage)
            }
            if count > UInt64(newestSequence) {
                throw .inputSequenceUnderflow(newest: newestSequence, count: Int(count))
            }
            var inputs: [[UInt8]] = []
            inputs.reserveCapacity(Int(count))
            for _ in 0..<count {
                inputs.append(try reader.readLengthPrefixedBytes(field: "input", limit: limits.maximumInputBytes))
            }
            self.inputs = inputs
            // Section 5.7.1: bytes after the inputs are their render times, one per input.
            if reader.isAtEnd {
                renderTimes = nil
            } else {
                var renderTimes: [RenderTime] = []
                renderTimes.reserveCapacity(Int(count))
                for _ in 0..<count { renderTimes.append(try RenderTime(from: &reader)) }
                self.renderTimes = renderTimes
            }
        }
    }
}

extension Message {
    /// The server's acceptance of a hello: the client's identity, the clock, and the compression
    /// both directions use from the next frame on.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.4): client id (varint), tick rate (varint, Hz),
    /// current tick (varint), server time (varint, µs), compression mode (u8: bits 0–3 the
    /// mode, bit 7 set when snapshots use entropy-coded deltas, bit 5 with it when those are
    /// motion-predicted, bit 6 when the server takes render times with inputs, bit 4 when its
    /// pongs carry their hold), resume token
    /// (byte string, empty when the server does not offer resumption).
    public struct Welcome: Hashable, Sendable {
        /// The id the server gave this client; snapshots refer to the client's entity by it.
        public var clientID: UInt32
        /// The server's simulation rate in ticks per second.
        public var tickRate: UInt16
        /// The server's tick when it sent the welcome.
        public var currentTick: UInt32
        /// The server's clock when it sent the welcome, in microseconds.
        public var serverTime: UInt64
        /// The compression both directions use for every frame after the welcome.
        public var compression: CompressionMode
        /// How the server codes the snapshot deltas it sends: ``DeltaCoding/entropy`` only when
        /// the hello offered it (bit 7 of the compression byte), ``DeltaCoding/predictedEntropy``
        /// only when it offered that too (bits 7 and 5).
        public var deltaCoding: DeltaCoding
        /// Whether the client's input messages carry render times from now on (``Message/RenderTime``,
        /// `Protocol/PROTOCOL.md` §5.7.1): set only when the hello offered them (bit 6 of the
        /// compression byte) and the server compensates lag.
        public var acceptsRenderTimes: Bool
        /// Whether the server's pongs carry how long it held each ping (``Message/Pong/hold``,
        /// `Protocol/PROTOCOL.md` §5.9.1): set only when the hello offered it (bit 4 of the
        /// compression byte).
        public var acceptsPongHold: Bool
        /// A token the client may send in a later hello to resume this session; empty for none.
        public var resumeToken: [UInt8]

        /// Creates a welcome.
        ///
        /// - Parameters:
        ///   - clientID: The client's id.
        ///   - tickRate: Ticks per second.
        ///   - currentTick: The server's current tick.
        ///   - serverTime: The server's clock in microseconds.
        ///   - compression: The chosen compression mode.
        ///   - resumeToken: The session's resume token, or empty.
        ///   - deltaCoding: How snapshot deltas are coded.
        ///   - acceptsRenderTimes: Whether the client's inputs carry render times from now on.
        ///   - acceptsPongHold: Whether the server's pongs carry their hold.
        public init(
            clientID: UInt32, tickRate: UInt16, currentTick: UInt32, serverTime: UInt64,
            compression: CompressionMode = .none, resumeToken: [UInt8] = [], deltaCoding: DeltaCoding = .bitPacked,
            acceptsRenderTimes: Bool = false, acceptsPongHold: Bool = false
        ) {
            self.acceptsPongHold = acceptsPongHold
            self.deltaCoding = deltaCoding
            self.acceptsRenderTimes = acceptsRenderTimes
            self.clientID = clientID
            self.tickRate = tickRate
            self.currentTick = currentTick
            self.serverTime = serverTime
            self.compression = compression
            self.resumeToken = resumeToken
        }

        /// The bit of the compression byte that names entropy-coded deltas.
        static let entropyDeltasBit: UInt8 = 0x80
        /// The bit of the compression byte that accepts render times with inputs.
        static let renderTimesBit: UInt8 = 0x40
        /// The bit of the compression byte that names motion-predicted entropy deltas (set only with bit 7).
        static let motionPredictionBit: UInt8 = 0x20
        /// The bit of the compression byte that says pongs carry their hold.
        static let pongHoldBit: UInt8 = 0x10
        /// The bits of the compression byte that name extensions rather than the mode.
        static let extensionBits: UInt8 = entropyDeltasBit | renderTimesBit | motionPredictionBit | pongHoldBit

        func encode(into writer: inout ByteWriter, limits: FrameLimits) throws(FrameError) {
            writer.writeVarUInt(UInt64(clientID))
            writer.writeVarUInt(UInt64(tickRate))
            writer.writeVarUInt(UInt64(currentTick))
            writer.writeVarUInt(serverTime)
            writer.writeUInt8(
                compression.rawValue | (deltaCoding.isEntropy ? Self.entropyDeltasBit : 0)
                    | (deltaCoding.isEntropy && deltaCoding.predictsMotion ? Self.motionPredictionBit : 0)
                    | (acceptsRenderTimes ? Self.renderTimesBit : 0) | (acceptsPongHold ? Self.pongHoldBit : 0))
            try writer.writeLengthPrefixedBytes(resumeToken, field: "resume token", limit: limits.maximumResumeTokenBytes)
        }

        init(from reader: inout ByteReader, limits: FrameLimits) throws(FrameError) {
            clientID = try reader.readVarUInt32(field: "client id")
            tickRate = UInt16(truncatingIfNeeded: try reader.readVarUInt(field: "tick rate", maximum: UInt64(UInt16.max)))
            currentTick = try reader.readVarUInt32(field: "current tick")
            serverTime = try reader.readVarUInt()
            let mode = try reader.readUInt8()
            // Bit 5 (prediction) without bit 7 (entropy) names no coding: refused like an unknown mode.
            guard let compression = CompressionMode(rawValue: mode & ~Self.extensionBits),
                mode & Self.entropyDeltasBit != 0 || mode & Self.motionPredictionBit == 0
            else {
                throw .unknownCompressionMode(mode)
            }
            self.compression = compression
            deltaCoding =
                mode & Self.entropyDeltasBit == 0 ? .bitPacked : mode & Self.motionPredictionBit != 0 ? .predictedEntropy : .entropy
            acceptsRenderTimes = mode & Self.renderTimesBit != 0
            acceptsPongHold = mode & Self.pongHoldBit != 0
            resumeToken = try reader.readLengthPrefixedBytes(field: "resume token", limit: limits.maximumResumeTokenBytes)
        }
    }
}

extension Message {
    /// The client's first message: who it is, what it speaks, and where it wants to go.
    ///
    /// Body (`Protocol/PROTOCOL.md` section 5.3): protocol version (u16), schema fingerprint
    /// (u64), compression modes offered (u8 bit set; bit 7 offers entropy-coded deltas, bit 6
    /// render times with inputs, bit 5 motion-predicted entropy deltas, bit 4 pongs that carry
    /// the server's hold, bit 3 text fields), flags (u8: bit 0 = resume token present, bit 1 =
    /// connect token present), room name (text), resume token (byte string, only when flagged),
    /// connect token (``ConnectToken``, 1056 bytes, only when flagged, section 5.3.1), application payload
    /// (byte string).
    public struct Hello: Hashable, Sendable {
        /// The wire protocol version the client speaks (``tickwireProtocolVersion``).
        public var protocolVersion: UInt16
        /// A fingerprint of the client's game schema; the server rejects a mismatch.
        public var schemaFingerprint: UInt64
        /// The compression modes the client can use, for the server to choose from (bits 0–4
        /// of the hello's compression byte).
        public var compressionModes: CompressionModes
        /// Whether the client decodes entropy-coded snapshot deltas (``DeltaCoding/entropy``,
        /// `Protocol/PROTOCOL.md` §4.5): bit 7 of the compression byte, which servers without
        /// the extension ignore.
        public var offersEntropyDeltas: Bool
        /// Whether the client can send render times with its inputs (``Message/RenderTime``,
        /// `Protocol/PROTOCOL.md` §5.7.1) for lag compensation: bit 6 of the compression byte,
        /// which servers without the extension ignore.
        public var offersRenderTimes: Bool
        /// Whether the client also decodes motion-predicted entropy deltas
        /// (``DeltaCoding/predictedEntropy``, `Protocol/PROTOCOL.md` §4.5.6): bit 5 of the
        /// compression byte, meaningful only together with ``offersEntropyDeltas``; servers
        /// without the extension ignore it.
        public var offersMotionPrediction: Bool
        /// Whether the client reads pongs that carry how long the server held the ping
        /// (``Message/Pong/hold``, `Protocol/PROTOCOL.md` §5.9.1): bit 4 of the compression byte,
        /// which servers without the extension ignore (they answer with the original pong).
        public var offersPongHold: Bool
        /// Whether the client decodes text fields (``FieldKind/text(maxBytes:)``, protocol 1.2,
        /// `Protocol/PROTOCOL.md` §3.2): bit 3 of the compression byte. A server whose schema has
        /// a text field refuses a hello without it (reject reason 1, version mismatch).
        public var offersTextFields: Bool
        /// The room the client wants to join (UTF-8, at most ``FrameLimits/maximumRoomNameBytes``).
        public var room: String
        /// The token of an earlier session to resume, if any (at most ``FrameLimits/maximumResumeTokenBytes``).
        public var resumeToken: [UInt8]?
        /// The connect token that vouches for the player's identity, if any (`Protocol/PROTOCOL.md`
        /// §5.3.1): flag bit 1. A server without the extension refuses the bit (`reservedBits`), so a
        /// client sends it only to a server that asks for tokens.
        public var connectToken: ConnectToken?
        /// Opaque application data, for example a player name (at most ``FrameLimits/maximumHelloPayloadBytes``).
        public var payload: [UInt8]

        /// Creates a hello.
        ///
        /// - Parameters:
        ///   - protocolVersion: The wire protocol version; this build's by default.
        ///   - schemaFingerprint: The game schema's fingerprint.
        ///   - compressionModes: The compression modes offered.
        ///   - room: The room to join.
        ///   - resumeToken: The token of a session to resume, or `nil`.
        ///   - payload: Opaque application data.
        ///   - offersEntropyDeltas: Whether the client decodes entropy-coded deltas.
        ///   - offersRenderTimes: Whether the client can send render times with its inputs.
        ///   - offersMotionPrediction: Whether the client also decodes motion-predicted entropy deltas.
        ///   - offersPongHold: Whether the client reads pongs that carry the server's hold.
        ///   - offersTextFields: Whether the client decodes text fields.
        ///   - connectToken: The connect token vouching for the player, or `nil`.
        public init(
            protocolVersion: UInt16 = tickwireProtocolVersion, schemaFingerprint: UInt64,
            compressionModes: CompressionModes = .all, room: String = "", resumeToken: [UInt8]? = nil,
            payload: [UInt8] = [], offersEntropyDeltas: Bool = false, offersRenderTimes: Bool = false,
            offersMotionPrediction: Bool = false, offersPongHold: Bool = false, offersTextFields: Bool = false,
            connectToken: ConnectToken? = nil
        ) {
            self.protocolVersion = protocolVersion
            self.schemaFingerprint = schemaFingerprint
            self.compressionModes = CompressionModes(rawValue: compressionModes.rawValue & ~Self.extensionBits)
            self.offersEntropyDeltas = offersEntropyDeltas || compressionModes.rawValue & Self.entropyDeltasBit != 0
            self.offersRenderTimes = offersRenderTimes || compressionModes.rawValue & Self.renderTimesBit != 0
            self.offersMotionPrediction = offersMotionPrediction || compressionModes.rawValue & Self.motionPredictionBit != 0
            self.offersPongHold = offersPongHold || compressionModes.rawValue & Self.pongHoldBit != 0
            self.offersTextFields = offersTextFields || compressionModes.rawValue & Self.textFieldsBit != 0
            self.room = room
            self.resumeToken = resumeToken
            self.connectToken = connectToken
            self.payload = payload
        }

        static let resumeTokenFlag: UInt8 = 0x01
        /// The flag bit that says a connect token follows the resume token (section 5.3.1).
        static let connectTokenFlag: UInt8 = 0x02
        /// The bit of the compression byte that offers entropy-coded deltas.
        static let entropyDeltasBit: UInt8 = 0x80
        /// The bit of the compression byte that offers render times with inputs.
        static let renderTimesBit: UInt8 = 0x40
        /// The bit of the compression byte that offers motion-predicted entropy deltas.
        static let motionPredictionBit: UInt8 = 0x20
        /// The bit of the compression byte that offers pongs carrying the server's hold.
        static let pongHoldBit: UInt8 = 0x10
        /// The bit of the compression byte that says the client decodes text fields (protocol 1.2).
        static let textFieldsBit: UInt8 = 0x08
        /// The bits of the compression byte that offer extensions rather than modes.
        static let extensionBits: UInt8 = entropyDeltasBit | renderTimesBit | motionPredictionBit | pongHoldBit | textFieldsBit

        /// Reads the protocol version of a hello frame without decoding the rest, which a
        /// client of another protocol version may lay out differently: the version is the first
        /// field of a hello in every version, so a server can answer a mismatch with a reject.
        ///
        /// - Parameter frame: A whole frame as received.
        /// - Returns: The version, or `nil` when the frame is not an uncompressed hello of at
        ///   least three bytes.
        public static func protocolVersion(ofFrame frame: [UInt8]) -> UInt16? {
            guard frame.count >= 3, frame[0] == MessageType.hello.rawValue else { return nil }
            return UInt16(frame[1]) << 8 | UInt16(frame[2])
        }

        func encode(into writer: inout ByteWriter, limits: FrameLimits) throws(FrameError) {
            writer.writeUInt16(protocolVersion)
            writer.writeUInt64(schemaFingerprint)
            writer.writeUInt8(
                compressionModes.rawValue & ~Self.extensionBits | (offersEntropyDeltas ? Self.entropyDeltasBit : 0)
                    | (offersRenderTimes ? Self.renderTimesBit : 0) | (offersMotionPrediction ? Self.motionPredictionBit : 0)
                    | (offersPongHold ? Self.pongHoldBit : 0) | (offersTextFields ? Self.textFieldsBit : 0))
            writer.writeUInt8((resumeToken == nil ? 0 : Self.resumeTokenFlag) | (connectToken == nil ? 0 : Self.connectTokenFlag))
            try writer.writeString(room, field: "room name", limit: limits.maximumRoomNameBytes)
            if let resumeToken {
                try writer.writeLengthPrefixedBytes(resumeToken, field: "resume token", limit: limits.maximumResumeTokenBytes)
            }
            connectToken?.encode(into: &writer)
            try writer.writeLengthPrefixedBytes(payload, field: "hello payload", limit: limits.maximumHelloPayloadBytes)
        }

        init(from reader: inout ByteReader, limits: FrameLimits) throws(FrameError) {
            protocolVersion = try reader.readUInt16()
            schemaFingerprint = try reader.readUInt64()
            let modes = try reader.readUInt8()
            compressionModes = CompressionModes(rawValue: modes & ~Self.extensionBits)
            offersEntropyDeltas = modes & Self.entropyDeltasBit != 0
            offersRenderTimes = modes & Self.renderTimesBit != 0
            offersMotionPrediction = modes & Self.motionPredictionBit != 0
            offersPongHold = modes & Self.pongHoldBit != 0
            offersTextFields = modes & Self.textFieldsBit != 0
            let flags = try reader.readUInt8()
            if flags & ~(Self.resumeTokenFlag | Self.connectTokenFlag) != 0 { throw .reservedBits(field: "hello flags", value: flags) }
            room = try reader.readString(field: "room name", limit: limits.maximumRoomNameBytes)
            resumeToken =
                flags & Self.resumeTokenFlag != 0
                ? try reader.readLengthPrefixedBytes(field: "resume token", limit: limits.maximumResumeTokenBytes)
                : nil
            connectToken = flags & Self.connectTokenFlag != 0 ? try ConnectToken(from: &reader) : nil
            payload = try reader.readLengthPrefixedBytes(field: "hello payload", limit: limits.maximumHelloPayloadBytes)
        }
    }
}

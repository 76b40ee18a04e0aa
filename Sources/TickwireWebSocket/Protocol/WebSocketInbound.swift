/// The receive side of one connection: the frame decoder and the message being reassembled.
///
/// A value type so that ``WebSocketProtocolMachine/receive(_:output:onEvent:)`` can move
/// it into a local variable for the whole call: the hot loop then touches no class
/// properties, which would each cost a dynamic exclusivity check.
struct WebSocketInbound {
    /// What a finished frame produced.
    enum Completion {
        /// A whole data message.
        case message(WebSocketEvent)
        /// A ping with its payload; the machine answers it.
        case ping([UInt8])
        /// A pong with its payload.
        case pong([UInt8])
        /// A close frame's raw payload; the machine validates and answers it.
        case close([UInt8])
    }

    var decoder: WebSocketFrameDecoder
    let maximumMessageBytes: Int
    /// The most compressed bytes one message may take: the data limit plus deflate's expansion.
    let maximumCompressedMessageBytes: Int

    // The frame being received.
    var frameHeader = WebSocketFrameHeader(opcode: .continuation, payloadLength: 0)
    var controlPayload: [UInt8] = []

    // The data message being received.
    var messageOpcode: WebSocketOpcode?
    var messageIsCompressed = false
    /// The message so far: payload bytes, or for a compressed message the bytes inflated so far.
    var messagePayload: [UInt8] = []
    /// The payload length of the frame that starts the message being received.
    var expectedPayloadBytes = 0
    /// Compressed bytes received for the current compressed message (for the message limit).
    var compressedByteCount = 0
    /// Unmasking space for compressed pieces, which are inflated rather than stored.
    var compressedScratch: [UInt8] = []
    /// Output bytes this connection may still inflate before inflation stops and waits
    /// (``isInflationSuspended``); the I/O layer refills it every loop turn. `Int.max`: never stop.
    var inflationBudget = Int.max
    /// Set when inflation stopped at ``inflationBudget`` with more to do: the compressed bytes not
    /// inflated yet wait, unmasked, in ``pendingCompressed``, and the machine reads no input until
    /// ``resumeInflation(codec:)`` has finished them.
    var isInflationSuspended = false
    var pendingCompressed: [UInt8] = []
    var utf8 = UTF8Validator()
    /// Empty storage for the next message (see ``recycle(_:)``).
    var spareMessage: [UInt8] = []
    /// The largest storage kept in ``spareMessage``. Small by default, since a machine keeps it
    /// between reads; the I/O layer raises it because it lends one spare per loop to each read.
    var spareCapacityLimit = 4096

    init(role: WebSocketRole, limits: WebSocketLimits, allowsCompressedMessages: Bool) {
        // A deflated frame of incompressible data is a little larger than the data itself.
        let frameLimit =
            limits.maximumFramePayloadBytes
            + (allowsCompressedMessages ? WebSocketLimits.deflateExpansion(of: limits.maximumFramePayloadBytes) : 0)
        decoder = WebSocketFrameDecoder(
            role: role, maximumFramePayloadBytes: frameLimit, allowsCompressedMessages: allowsCompressedMessages
        )
        maximumMessageBytes = limits.maximumMessageBytes
        maximumCompressedMessageBytes = limits.maximumMessageBytes + WebSocketLimits.deflateExpansion(of: limits.maximumMessageBytes)
    }

    /// An empty stand-in left in the machine while the real state is borrowed.
    static let placeholder = WebSocketInbound(role: .client, limits: .default, allowsCompressedMessages: false)

    /// The payload bytes still to come of the frame being received when it is a final one (it
    /// ends a message, or is a control frame); 0 between frames, within a header, and within a
    /// frame that more frames of its message follow.
    var bytesLeftInFinalFrame: Int { frameHeader.fin ? decoder.payloadBytesRemaining : 0 }

    mutating func beginFrame(_ header: WebSocketFrameHeader) throws(WebSocketError) {
        frameHeader = header
        let opcode = header.opcode
        if opcode.isControl {
            controlPayload.removeAll(keepingCapacity: true)
            return
        }
        if opcode == .continuation {
            guard messageOpcode != nil else { throw .unexpectedContinuation }
        } else {
            if messageOpcode != nil { throw .expectedContinuation(opcode) }
            messageOpcode = opcode
            messageIsCompressed = header.rsv1
            compressedByteCount = 0
            utf8.reset()
        }
        if messageIsCompressed {
            // The inflated size is checked while inflating; here the compressed size is bounded too.
            compressedByteCount += header.payloadLength
            if compressedByteCount > maximumCompressedMessageBytes {
                throw .messageTooLarge(length: compressedByteCount, limit: maximumCompressedMessageBytes)
            }
            return
        }
        let total = messagePayload.count + header.payloadLength
        if total > maximumMessageBytes { throw .messageTooLarge(length: total, limit: maximumMessageBytes) }
        // Size the buffer once per message, for its first frame; later frames grow it geometrically.
        expectedPayloadBytes = header.payloadLength
        if messagePayload.isEmpty && messagePayload.capacity < header.payloadLength {
            // The last message's storage if it fits, else a fresh buffer.
            messagePayload = takeSpare(for: header.payloadLength)
            messagePayload.reserveCapacity(header.payloadLength)
        }
    }

    mutating func appendPayload(
        _ chunk: UnsafeRawBufferPointer, payloadOffset: Int, codec: PerMessageDeflateCodec?
    ) throws(WebSocketError) {
        if frameHeader.opcode.isControl {
            Self.append(chunk, to: &controlPayload, unmaskingWith: frameHeader.maskingKey, phase: payloadOffset)
            return
        }
        let start = messagePayload.count
        if messageIsCompressed, let codec {
            try inflate(chunk, payloadOffset: payloadOffset, codec: codec)
        } else {
            Self.append(
                chunk, to: &messagePayload, unmaskingWith: frameHeader.maskingKey, phase: payloadOffset,
                capacity: expectedPayloadBytes)
        }
        if messageOpcode == .text { try validateUTF8(from: start) }
    }

    /// Inflates a compressed piece into the message within ``inflationBudget``, unmasking it first if needed.
    mutating func inflate(_ chunk: UnsafeRawBufferPointer, payloadOffset: Int, codec: PerMessageDeflateCodec) throws(WebSocketError) {
        guard let key = frameHeader.maskingKey else {
            try inflateWithinBudget(chunk, codec: codec)
            return
        }
        compressedScratch.removeAll(keepingCapacity: compressedScratch.capacity <= 256 * 1024)
        Self.append(chunk, to: &compressedScratch, unmaskingWith: key, phase: payloadOffset)
        var scratch: [UInt8] = []
        swap(&scratch, &compressedScratch)
        defer { swap(&scratch, &compressedScratch) }
        let result = scratch.withUnsafeBytes { piece in
            Result { () throws(WebSocketError) in try inflateWithinBudget(piece, codec: codec) }
        }
        try result.get()
    }

    /// Goes on with the inflation that stopped at the budget (``isInflationSuspended``), within
    /// the refilled budget; it may stop again.
    mutating func resumeInflation(codec: PerMessageDeflateCodec?) throws(WebSocketError) {
        isInflationSuspended = false
        var pending: [UInt8] = []
        swap(&pending, &pendingCompressed)
        guard let codec else { return }
        let start = messagePayload.count
        let result = pending.withUnsafeBytes { piece in
            Result { () throws(WebSocketError) in try inflateWithinBudget(piece, codec: codec) }
        }
        try result.get()
        if messageOpcode == .text { try validateUTF8(from: start) }
    }

    /// Inflates `piece` (unmasked) into the message, at most ``inflationBudget`` bytes of it;
    /// what is left when the budget runs out waits in ``pendingCompressed``.
    private mutating func inflateWithinBudget(_ piece: UnsafeRawBufferPointer, codec: PerMessageDeflateCodec) throws(WebSocketError) {
        guard inflationBudget > 0 else {
            isInflationSuspended = true
            pendingCompressed.append(contentsOf: piece.assumingMemoryBound(to: UInt8.self))
            return
        }
        let before = messagePayload.count
        let step = try codec.inflate(piece, into: &messagePayload, maximumBytes: maximumMessageBytes, stepBytes: inflationBudget)
        inflationBudget -= messagePayload.count - before
        if step.isStopped {
            isInflationSuspended = true
            pendingCompressed.append(
                contentsOf: UnsafeRawBufferPointer(rebasing: piece[step.consumedBytes...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Fail fast: rejects invalid UTF-8 in the piece that carries it, not at the message's end.
    mutating func validateUTF8(from start: Int) throws(WebSocketError) {
        var validator = utf8
        let valid = messagePayload.withUnsafeBytes { validator.validate(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        utf8 = validator
        if !valid { throw .invalidUTF8 }
    }

    mutating func endFrame(codec: PerMessageDeflateCodec?) throws(WebSocketError) -> Completion? {
        switch frameHeader.opcode {
        case .ping: return .ping(controlPayload)
        case .pong: return .pong(controlPayload)
        case .close: return .close(controlPayload)
        default: return frameHeader.fin ? try finishMessage(codec: codec) : nil
        }
    }

    mutating func finishMessage(codec: PerMessageDeflateCodec?) throws(WebSocketError) -> Completion? {
        guard let opcode = messageOpcode else { return nil }
        if messageIsCompressed, let codec {
            let start = messagePayload.count
            try codec.finishMessage(into: &messagePayload, maximumBytes: maximumMessageBytes)
            if opcode == .text { try validateUTF8(from: start) }
        }
        var payload = messagePayload
        messagePayload = []
        messageOpcode = nil
        messageIsCompressed = false
        if opcode == .text {
            guard utf8.isComplete else { throw .invalidUTF8 }
            let text = String(decoding: payload, as: UTF8.self)
            keepSpare(&payload)  // the text is a copy: the bytes are free again at once
            return .message(.text(text))
        }
        return .message(.binary(payload))
    }

    /// Drops any partial message (after the connection failed).
    mutating func discardMessage() {
        messageOpcode = nil
        messagePayload = []
        isInflationSuspended = false
        pendingCompressed = []
    }

    /// Appends `chunk` to `buffer`, unmasking it when the frame has a key, in one pass either way.
    ///
    /// An empty buffer without room first gets `capacity` bytes of room (the frame's length),
    /// so that a frame that arrives in pieces fills one allocation.
    static func append(
        _ chunk: UnsafeRawBufferPointer, to buffer: inout [UInt8], unmaskingWith key: WebSocketMaskingKey?, phase: Int,
        capacity: Int = 0
    ) {
        if buffer.isEmpty && buffer.capacity < chunk.count { buffer.reserveCapacity(max(capacity, chunk.count)) }
        if let key {
            buffer.append(contentsOf: key.applied(to: chunk, phase: phase))
        } else {
            buffer.append(contentsOf: chunk.assumingMemoryBound(to: UInt8.self))
        }
    }
}

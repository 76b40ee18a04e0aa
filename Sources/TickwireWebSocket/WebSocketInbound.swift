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

    // The frame being received.
    var frameHeader = WebSocketFrameHeader(opcode: .continuation, payloadLength: 0)
    var controlPayload: [UInt8] = []

    // The data message being received.
    var messageOpcode: WebSocketOpcode?
    var messageIsCompressed = false
    var messagePayload: [UInt8] = []
    var utf8 = UTF8Validator()

    init(role: WebSocketRole, limits: WebSocketLimits, allowsCompressedMessages: Bool) {
        decoder = WebSocketFrameDecoder(
            role: role, maximumFramePayloadBytes: limits.maximumFramePayloadBytes,
            allowsCompressedMessages: allowsCompressedMessages
        )
        maximumMessageBytes = limits.maximumMessageBytes
    }

    /// An empty stand-in left in the machine while the real state is borrowed.
    static let placeholder = WebSocketInbound(role: .client, limits: .default, allowsCompressedMessages: false)

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
            utf8.reset()
        }
        let total = messagePayload.count + header.payloadLength
        if total > maximumMessageBytes { throw .messageTooLarge(length: total, limit: maximumMessageBytes) }
        // Reserve once per message, for its first frame; later frames grow the buffer geometrically.
        if messagePayload.isEmpty && messagePayload.capacity < header.payloadLength {
            messagePayload.reserveCapacity(header.payloadLength)
        }
    }

    mutating func appendPayload(_ chunk: UnsafeRawBufferPointer, payloadOffset: Int) throws(WebSocketError) {
        if frameHeader.opcode.isControl {
            Self.append(chunk, to: &controlPayload, unmaskingWith: frameHeader.maskingKey, phase: payloadOffset)
            return
        }
        let start = messagePayload.count
        Self.append(chunk, to: &messagePayload, unmaskingWith: frameHeader.maskingKey, phase: payloadOffset)
        if messageOpcode == .text && !messageIsCompressed {
            // Fail fast: reject invalid UTF-8 in the chunk that carries it, not at the message's end.
            var validator = utf8
            let valid = messagePayload.withUnsafeBytes { validator.validate(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            utf8 = validator
            if !valid { throw .invalidUTF8 }
        }
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
        var payload: [UInt8]
        if messageIsCompressed, let codec {
            payload = try codec.decompress(&messagePayload, maximumBytes: maximumMessageBytes)
            messagePayload.removeAll(keepingCapacity: messagePayload.capacity <= 64 * 1024)
            if opcode == .text {
                utf8.reset()
                let valid = payload.withUnsafeBytes { utf8.validate($0) }
                if !valid { throw .invalidUTF8 }
            }
        } else {
            payload = messagePayload
            messagePayload = []
        }
        messageOpcode = nil
        messageIsCompressed = false
        if opcode == .text {
            guard utf8.isComplete else { throw .invalidUTF8 }
            return .message(.text(String(decoding: payload, as: UTF8.self)))
        }
        return .message(.binary(payload))
    }

    /// Drops any partial message (after the connection failed).
    mutating func discardMessage() {
        messageOpcode = nil
        messagePayload = []
    }

    /// Appends `chunk` to `buffer`, unmasking the appended bytes in place when `key` is set.
    @inline(__always)
    static func append(
        _ chunk: UnsafeRawBufferPointer, to buffer: inout [UInt8], unmaskingWith key: WebSocketMaskingKey?, phase: Int
    ) {
        let start = buffer.count
        buffer.append(contentsOf: chunk.assumingMemoryBound(to: UInt8.self))
        if let key {
            buffer.withUnsafeMutableBytes { key.apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[start...]), phase: phase) }
        }
    }
}

/// An incremental WebSocket frame parser: an explicit state machine fed arbitrary chunks.
///
/// The states follow the wire: first byte → second byte → extended length → masking key →
/// payload. Every rule that can be checked is checked at the step that reveals it, before
/// any payload is accepted: reserved opcodes and bits after byte 0; the mask rule and
/// control-frame length after byte 1; the 64-bit length's top bit and the frame size limit
/// after the extended length. The payload is never copied: the decoder hands back ranges of
/// the caller's buffer, still masked, with their offset in the payload so that the caller
/// can unmask them where it copies them (``WebSocketMaskingKey/apply(from:to:phase:)``).
///
/// ```swift
/// var index = 0
/// while let element = try decoder.next(in: bytes, at: &index) {
///     switch element {
///     case .header(let header): ...          // a frame starts
///     case .payload(let range, let offset): ... // bytes[range] is payload[offset ..< offset + range.count]
///     case .end: ...                          // the frame is complete
///     }
/// }
/// ```
/// `next` returns `nil` once it needs more input; keep the decoder and call it again with
/// the next chunk. After it throws, the decoder keeps throwing the same error.
package struct WebSocketFrameDecoder: Sendable {
    /// One step of decoding.
    package enum Element: Hashable, Sendable {
        /// A frame's header is complete and valid.
        case header(WebSocketFrameHeader)
        /// `range` of the input holds payload bytes starting at `payloadOffset` in the
        /// frame's payload, still masked when the header has a key.
        case payload(Range<Int>, payloadOffset: Int)
        /// The current frame's payload is complete (also sent for empty payloads).
        case end
    }

    enum State: Hashable, Sendable {
        case firstByte
        case secondByte
        case extendedLength(remaining: Int)
        case maskingKey(remaining: Int)
        case payload
        case failed(WebSocketError)
    }

    /// The largest payload accepted in one frame; a longer declared length fails with
    /// ``WebSocketError/frameTooLarge(length:limit:)`` before any payload is read.
    package let maximumFramePayloadBytes: Int
    /// The role of the endpoint decoding: a server requires masked frames, a client refuses them.
    package let role: WebSocketRole
    /// Whether RSV1 may be set on the first frame of a data message (permessage-deflate negotiated).
    package let allowsCompressedMessages: Bool

    var state: State = .firstByte
    var header = WebSocketFrameHeader(opcode: .continuation, payloadLength: 0)
    var length: UInt64 = 0
    var key: UInt32 = 0
    var keyShift: UInt32 = 0
    var remaining = 0
    var payloadOffset = 0

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - role: Who is decoding: `.server` decodes client frames (masked), `.client` server frames (unmasked).
    ///   - maximumFramePayloadBytes: The frame size limit.
    ///   - allowsCompressedMessages: Whether permessage-deflate was negotiated (RSV1 allowed on data frames).
    package init(
        role: WebSocketRole, maximumFramePayloadBytes: Int = WebSocketLimits.default.maximumFramePayloadBytes,
        allowsCompressedMessages: Bool = false
    ) {
        self.role = role
        self.maximumFramePayloadBytes = maximumFramePayloadBytes
        self.allowsCompressedMessages = allowsCompressedMessages
    }

    /// Whether the decoder sits between frames (no partial header or payload pending).
    package var isAtFrameBoundary: Bool { state == .firstByte }

    /// Payload bytes of the current frame still to come: 0 between frames and within a header.
    ///
    /// A reader may use it to size its next read so that it ends where the frame does.
    package var payloadBytesRemaining: Int { state == .payload ? remaining : 0 }

    /// Decodes the next element from `bytes`, starting at `index` and advancing it past what it consumed.
    ///
    /// - Parameters:
    ///   - bytes: The received bytes.
    ///   - index: Where to continue in `bytes`; advanced past the consumed bytes.
    /// - Returns: The next element, or `nil` when `bytes` is used up mid-frame or between frames.
    /// - Throws: ``WebSocketError`` for a frame that breaks RFC 6455 or the size limit.
    @inlinable
    package mutating func next(in bytes: UnsafeRawBufferPointer, at index: inout Int) throws(WebSocketError) -> Element? {
        try nextElement(in: bytes, at: &index)
    }

    @usableFromInline
    mutating func nextElement(in bytes: UnsafeRawBufferPointer, at index: inout Int) throws(WebSocketError) -> Element? {
        let count = bytes.count
        while true {
            switch state {
            case .payload:
                if remaining == 0 {
                    state = .firstByte
                    return .end
                }
                guard index < count else { return nil }
                let taken = min(remaining, count - index)
                let range = index..<index + taken
                let offset = payloadOffset
                index += taken
                remaining -= taken
                payloadOffset += taken
                return .payload(range, payloadOffset: offset)

            case .firstByte:
                guard index < count else { return nil }
                let byte = bytes[index]
                index += 1
                try fail(ifError: readFirstByte(byte))
                state = .secondByte

            case .secondByte:
                guard index < count else { return nil }
                let byte = bytes[index]
                index += 1
                if let element = try fail(ifError: readSecondByte(byte)) { return element }

            case .extendedLength(let left):
                guard index < count else { return nil }
                length = length << 8 | UInt64(bytes[index])
                index += 1
                if left > 1 {
                    state = .extendedLength(remaining: left - 1)
                } else {
                    try fail(ifError: checkLength(length))
                    if let element = afterLength() { return element }
                }

            case .maskingKey(let left):
                guard index < count else { return nil }
                key |= UInt32(bytes[index]) << keyShift
                keyShift += 8
                index += 1
                if left > 1 {
                    state = .maskingKey(remaining: left - 1)
                } else {
                    header.maskingKey = WebSocketMaskingKey(word: key)
                    return startPayload()
                }

            case .failed(let error):
                throw error
            }
        }
    }

    /// Records `error` as the decoder's final state and throws it, or passes `value` through.
    @usableFromInline
    mutating func fail<T>(ifError result: Result<T, WebSocketError>) throws(WebSocketError) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            state = .failed(error)
            throw error
        }
    }

    @usableFromInline
    mutating func readFirstByte(_ byte: UInt8) -> Result<Void, WebSocketError> {
        let opcode = WebSocketOpcode(uncheckedValue: byte & 0x0F)
        header = WebSocketFrameHeader(
            fin: byte & 0x80 != 0, rsv1: byte & 0x40 != 0, rsv2: byte & 0x20 != 0, rsv3: byte & 0x10 != 0,
            opcode: opcode, payloadLength: 0, maskingKey: nil
        )
        if opcode.isReserved { return .failure(.reservedOpcode(opcode.rawValue)) }
        // RSV1 means "compressed message": only with permessage-deflate, and only on a message's first frame.
        let rsv1Allowed = allowsCompressedMessages && (opcode == .text || opcode == .binary)
        let reserved = byte & (rsv1Allowed ? 0x30 : 0x70)
        if reserved != 0 { return .failure(.reservedBits(reserved)) }
        if opcode.isControl && !header.fin { return .failure(.fragmentedControlFrame(opcode)) }
        return .success(())
    }

    @usableFromInline
    mutating func readSecondByte(_ byte: UInt8) -> Result<Element?, WebSocketError> {
        let masked = byte & 0x80 != 0
        switch role {
        case .server where !masked: return .failure(.unmaskedClientFrame)
        case .client where masked: return .failure(.maskedServerFrame)
        default: break
        }
        let short = byte & 0x7F
        key = 0
        keyShift = 0
        length = 0
        switch short {
        case 126:
            if header.opcode.isControl { return .failure(.controlFrameTooLong(opcode: header.opcode, length: 126)) }
            state = .extendedLength(remaining: 2)
            return .success(nil)
        case 127:
            if header.opcode.isControl { return .failure(.controlFrameTooLong(opcode: header.opcode, length: 127)) }
            state = .extendedLength(remaining: 8)
            return .success(nil)
        default:
            length = UInt64(short)
            if case .failure(let error) = checkLength(length) { return .failure(error) }
            return .success(afterLength())
        }
    }

    @usableFromInline
    func checkLength(_ length: UInt64) -> Result<Void, WebSocketError> {
        if length & (1 << 63) != 0 { return .failure(.invalidPayloadLength(length)) }
        if length > UInt64(maximumFramePayloadBytes) {
            return .failure(.frameTooLarge(length: length, limit: maximumFramePayloadBytes))
        }
        return .success(())
    }

    /// Moves on once the length is known: to the masking key, or straight to the payload.
    @usableFromInline
    mutating func afterLength() -> Element? {
        header.payloadLength = Int(length)
        if role == .server {
            state = .maskingKey(remaining: 4)
            return nil
        }
        return startPayload()
    }

    @usableFromInline
    mutating func startPayload() -> Element {
        remaining = header.payloadLength
        payloadOffset = 0
        state = .payload
        return .header(header)
    }
}

/// Which end of a WebSocket connection an endpoint is; it decides the masking rules.
public enum WebSocketRole: Hashable, Sendable {
    /// The endpoint that opened the connection; it masks what it sends.
    case client
    /// The endpoint that accepted the connection; it requires masked frames.
    case server
}

import TickwireZlib

/// An error on an open WebSocket connection: a peer that broke RFC 6455 or a configured
/// limit, or a local call that the connection's state does not allow.
///
/// Every error names the close code RFC 6455 prescribes (``closeCode``); when the
/// ``WebSocketProtocolMachine`` throws one from `receive`, it has already written a close
/// frame with that code to the output.
public struct WebSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case reservedOpcode(UInt8)
        case reservedBits(UInt8)
        case fragmentedControlFrame(WebSocketOpcode)
        case controlFrameTooLong(opcode: WebSocketOpcode, length: Int)
        case unmaskedClientFrame
        case maskedServerFrame
        case unexpectedContinuation
        case expectedContinuation(WebSocketOpcode)
        case invalidPayloadLength(UInt64)
        case frameTooLarge(length: UInt64, limit: Int)
        case messageTooLarge(length: Int, limit: Int)
        case invalidUTF8
        case invalidCloseFrameLength
        case invalidCloseCode(UInt16)
        case corruptCompressedData(String)
        case inflatedMessageTooLarge(String)
        case compressionSetupFailed(String)
        case connectionNotOpen
        case controlPayloadTooLong(Int)
        case invalidCloseCodeToSend(UInt16)
        case closeReasonTooLong(Int)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// A frame used a reserved opcode (`0x3...0x7` or `0xB...0xF`).
    public static func reservedOpcode(_ value: UInt8) -> WebSocketError { WebSocketError(.reservedOpcode(value)) }
    /// A frame set reserved bits no negotiated extension defines (`bits` is the RSV nibble `0x70` of byte 0).
    public static func reservedBits(_ bits: UInt8) -> WebSocketError { WebSocketError(.reservedBits(bits)) }
    /// A control frame had FIN clear.
    public static func fragmentedControlFrame(_ opcode: WebSocketOpcode) -> WebSocketError {
        WebSocketError(.fragmentedControlFrame(opcode))
    }
    /// A control frame's payload was over 125 bytes.
    public static func controlFrameTooLong(opcode: WebSocketOpcode, length: Int) -> WebSocketError {
        WebSocketError(.controlFrameTooLong(opcode: opcode, length: length))
    }
    /// A server received a frame without a mask.
    public static let unmaskedClientFrame = WebSocketError(.unmaskedClientFrame)
    /// A client received a masked frame.
    public static let maskedServerFrame = WebSocketError(.maskedServerFrame)
    /// A continuation frame arrived with no fragmented message in progress.
    public static let unexpectedContinuation = WebSocketError(.unexpectedContinuation)
    /// A new data frame (`opcode`) arrived while a fragmented message was unfinished.
    public static func expectedContinuation(_ opcode: WebSocketOpcode) -> WebSocketError {
        WebSocketError(.expectedContinuation(opcode))
    }
    /// A 64-bit payload length had its most significant bit set.
    public static func invalidPayloadLength(_ length: UInt64) -> WebSocketError {
        WebSocketError(.invalidPayloadLength(length))
    }
    /// A frame's payload length was over the configured ``WebSocketLimits/maximumFramePayloadBytes``.
    public static func frameTooLarge(length: UInt64, limit: Int) -> WebSocketError {
        WebSocketError(.frameTooLarge(length: length, limit: limit))
    }
    /// A message grew over the configured ``WebSocketLimits/maximumMessageBytes``.
    public static func messageTooLarge(length: Int, limit: Int) -> WebSocketError {
        WebSocketError(.messageTooLarge(length: length, limit: limit))
    }
    /// A text message or close reason was not valid UTF-8.
    public static let invalidUTF8 = WebSocketError(.invalidUTF8)
    /// A close frame had a one-byte payload.
    public static let invalidCloseFrameLength = WebSocketError(.invalidCloseFrameLength)
    /// A received close frame carried a code not allowed on the wire.
    public static func invalidCloseCode(_ code: UInt16) -> WebSocketError { WebSocketError(.invalidCloseCode(code)) }
    /// A compressed message did not inflate.
    public static func corruptCompressedData(_ detail: String) -> WebSocketError {
        WebSocketError(.corruptCompressedData(detail))
    }
    /// A compressed message inflated past the message limit (or the deflate-bomb ratio).
    public static func inflatedMessageTooLarge(_ detail: String) -> WebSocketError {
        WebSocketError(.inflatedMessageTooLarge(detail))
    }
    /// zlib could not set up the negotiated permessage-deflate streams.
    public static func compressionSetupFailed(_ detail: String) -> WebSocketError {
        WebSocketError(.compressionSetupFailed(detail))
    }
    /// A message or ping was sent after the close handshake started.
    public static let connectionNotOpen = WebSocketError(.connectionNotOpen)
    /// A ping, pong or close payload to send was over 125 bytes.
    public static func controlPayloadTooLong(_ length: Int) -> WebSocketError {
        WebSocketError(.controlPayloadTooLong(length))
    }
    /// A close code that may not be sent (1005, 1006, 1015, reserved or out of range) was asked for.
    public static func invalidCloseCodeToSend(_ code: UInt16) -> WebSocketError {
        WebSocketError(.invalidCloseCodeToSend(code))
    }
    /// A close reason to send was over 123 UTF-8 bytes.
    public static func closeReasonTooLong(_ length: Int) -> WebSocketError {
        WebSocketError(.closeReasonTooLong(length))
    }

    /// The close code RFC 6455 names for this error, sent in the close frame that fails the connection.
    public var closeCode: WebSocketCloseCode {
        switch kind {
        case .invalidUTF8: .invalidFramePayloadData
        case .frameTooLarge, .messageTooLarge, .inflatedMessageTooLarge: .messageTooBig
        case .compressionSetupFailed: .internalServerError
        default: .protocolError
        }
    }

    /// Whether the error comes from a local call (sending in the wrong state or with bad
    /// arguments) rather than from the peer; such errors do not fail the connection.
    public var isLocalMisuse: Bool {
        switch kind {
        case .connectionNotOpen, .controlPayloadTooLong, .invalidCloseCodeToSend, .closeReasonTooLong: true
        default: false
        }
    }

    /// A plain-words description for logs and error messages.
    public var description: String {
        switch kind {
        case .reservedOpcode(let value): "frame uses reserved opcode 0x\(String(value, radix: 16))"
        case .reservedBits(let bits):
            "frame sets reserved bits 0x\(String(bits, radix: 16)) that no negotiated extension defines"
        case .fragmentedControlFrame(let opcode): "\(opcode) frame is fragmented (FIN clear); control frames cannot be"
        case .controlFrameTooLong(let opcode, let length): "\(opcode) frame payload is \(length) bytes, over 125"
        case .unmaskedClientFrame: "client frame is not masked"
        case .maskedServerFrame: "server frame is masked"
        case .unexpectedContinuation: "continuation frame without a message in progress"
        case .expectedContinuation(let opcode): "\(opcode) frame arrived while a fragmented message was unfinished"
        case .invalidPayloadLength(let length): "64-bit payload length \(length) has its top bit set"
        case .frameTooLarge(let length, let limit): "frame payload of \(length) bytes is over the limit of \(limit)"
        case .messageTooLarge(let length, let limit): "message of \(length) bytes is over the limit of \(limit)"
        case .invalidUTF8: "text is not valid UTF-8"
        case .invalidCloseFrameLength: "close frame payload is 1 byte; it must be 0 or at least 2"
        case .invalidCloseCode(let code): "close code \(code) is not allowed on the wire"
        case .corruptCompressedData(let detail): "compressed message does not inflate: \(detail)"
        case .inflatedMessageTooLarge(let detail): "compressed message inflates too far: \(detail)"
        case .compressionSetupFailed(let detail): "permessage-deflate streams failed to start: \(detail)"
        case .connectionNotOpen: "the connection is not open for sending (close handshake started)"
        case .controlPayloadTooLong(let length): "control frame payload of \(length) bytes is over 125"
        case .invalidCloseCodeToSend(let code): "close code \(code) may not be sent"
        case .closeReasonTooLong(let length): "close reason of \(length) UTF-8 bytes is over 123"
        }
    }
}

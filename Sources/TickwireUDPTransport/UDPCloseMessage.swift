import TickwireSim

/// The UDP transport's close message (PROTOCOL.md 1A.10): what a WebSocket close frame carries,
/// as one message on the reliable-ordered channel. Type byte 0x00, which no Tickwire frame has
/// (a frame's type 0 is reserved and refused), so the transport tells the two apart by the first
/// byte; then the close code (`u16`, big-endian) and the reason, UTF-8, at most
/// ``transportCloseReasonMaximumBytes`` bytes.
///
/// A peer sends it after everything else it sends, then its netcode.io disconnect once the
/// message is acknowledged (or ``UDPTransportLimits/closeLinger`` has passed).
///
/// `package`, not public: `tickwire conformance-decoder` reads `Protocol/vectors/udp` with it.
package struct UDPCloseMessage: Hashable, Sendable {
    /// The first byte of a close message.
    package static let typeByte: UInt8 = 0x00

    /// The close code.
    package var code: CloseCode
    /// The reason text.
    package var reason: String

    /// Whether `message` is a close message rather than a frame.
    static func isCloseMessage(_ message: [UInt8]) -> Bool { message.first == typeByte }

    /// The message's bytes, the reason cut to ``transportCloseReasonMaximumBytes`` UTF-8 bytes.
    var encoded: [UInt8] {
        [Self.typeByte, UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            + Array(reason.prefix(utf8Bytes: transportCloseReasonMaximumBytes).utf8)
    }

    /// Reads a close message.
    ///
    /// - Parameter bytes: A message whose first byte is ``typeByte``.
    /// - Returns: The close, or `nil` when the message is too short, the code is outside
    ///   1000...4999, the reason is longer than ``transportCloseReasonMaximumBytes`` or not UTF-8.
    package init?(decoding bytes: [UInt8]) {
        guard bytes.count >= 3, bytes[0] == Self.typeByte,
            bytes.count - 3 <= transportCloseReasonMaximumBytes,
            let code = CloseCode(rawValue: UInt16(bytes[1]) << 8 | UInt16(bytes[2])),
            let reason = String(validating: bytes[3...], as: UTF8.self)
        else { return nil }
        self.code = code
        self.reason = reason
    }

    /// A close message.
    init(code: CloseCode, reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// The envelope of one message: a type byte, whose high bit is the compressed flag, then the body.
///
/// One frame travels as one WebSocket binary message (or one datagram of another transport),
/// which delimits it: the envelope has no length field. `Protocol/PROTOCOL.md` section 5.1.
///
/// ```
/// byte 0      bit 7: compressed flag   bits 0-6: message type (1...127)
/// bytes 1...  body: the message's fields, deflated when the flag is set
/// ```
public struct Frame: Hashable, Sendable {
    /// The type byte's compressed flag.
    package static let compressedFlag: UInt8 = 0x80

    /// The message type.
    public var type: MessageType
    /// Whether ``body`` is deflated (the connection's ``CompressionMode`` says how).
    public var isCompressed: Bool
    /// The body as it travels: deflated when ``isCompressed``.
    public var body: [UInt8]

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - type: The message type.
    ///   - isCompressed: Whether `body` is deflated.
    ///   - body: The body as it travels.
    public init(type: MessageType, isCompressed: Bool = false, body: [UInt8]) {
        self.type = type
        self.isCompressed = isCompressed
        self.body = body
    }

    /// Splits a frame's bytes into type, flag and body, checking the envelope's limits.
    ///
    /// - Parameters:
    ///   - bytes: One whole frame.
    ///   - limits: The limits to enforce; only ``FrameLimits/maximumFrameBytes`` applies here.
    /// - Throws: ``FrameError/emptyFrame``, ``FrameError/frameTooLarge(size:limit:)``, or
    ///   ``FrameError/reservedMessageType(_:)`` for type 0.
    public init(parsing bytes: [UInt8], limits: FrameLimits = .standard) throws(FrameError) {
        let (type, isCompressed) = try Frame.parseEnvelope(bytes, limits: limits)
        self.init(type: type, isCompressed: isCompressed, body: Array(bytes[1...]))
    }

    /// Checks a frame's size and type byte, returning its type and compressed flag.
    static func parseEnvelope(_ bytes: [UInt8], limits: FrameLimits) throws(FrameError) -> (MessageType, Bool) {
        guard let first = bytes.first else { throw .emptyFrame }
        if bytes.count > limits.maximumFrameBytes {
            throw .frameTooLarge(size: bytes.count, limit: limits.maximumFrameBytes)
        }
        let raw = first & ~compressedFlag
        guard raw != 0, let type = MessageType(rawValue: raw) else { throw .reservedMessageType(raw) }
        return (type, first & compressedFlag != 0)
    }

    /// The frame's bytes on the wire: the type byte, then the body.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + 1)
        bytes.append(type.rawValue | (isCompressed ? Frame.compressedFlag : 0))
        bytes.append(contentsOf: body)
        return bytes
    }
}

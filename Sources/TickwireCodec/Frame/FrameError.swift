import TickwireZlib

/// An error from encoding or decoding a frame: a malformed envelope or message body, a broken
/// ``FrameLimits`` limit, or compressed data that could not be inflated within its bounds.
///
/// A `struct` wrapping an internal enum, so that new cases are not breaking changes. Every case
/// carries the offending values; ``description`` says in plain words what was wrong.
/// `Protocol/PROTOCOL.md` section 7.2 lists which error a decoder reports for each violation.
public struct FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case emptyFrame
        case frameTooLarge(size: Int, limit: Int)
        case bodyTooLarge(size: Int, limit: Int)
        case reservedMessageType(UInt8)
        case unknownMessageType(UInt8)
        case unexpectedCompression(type: UInt8, mode: UInt8)
        case inflation(ZlibError)
        case zlibSetup(ZlibError)
        case compressionContextBroken
        case compressionStreamEnded
        case truncated(offset: Int, needed: Int)
        case varintOverflow(offset: Int)
        case nonCanonicalVarint(offset: Int)
        case valueOutOfRange(field: String, value: UInt64, maximum: UInt64)
        case lengthExceeded(field: String, length: UInt64, limit: Int)
        case tooManyInputs(count: UInt64, limit: Int)
        case invalidUTF8(field: String)
        case reservedBits(field: String, value: UInt8)
        case unknownCompressionMode(UInt8)
        case invalidBaseline(tick: UInt32, baseline: UInt32)
        case inputSequenceUnderflow(newest: UInt32, count: Int)
        case trailingBytes(type: UInt8, count: Int)
        case notApplicationType(UInt8)
        case renderTimeCountMismatch(inputs: Int, renderTimes: Int)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// A frame of zero bytes: there is not even a type byte.
    public static let emptyFrame = FrameError(.emptyFrame)

    /// A frame of `size` bytes on the wire is over the ``FrameLimits/maximumFrameBytes`` `limit`.
    public static func frameTooLarge(size: Int, limit: Int) -> FrameError {
        FrameError(.frameTooLarge(size: size, limit: limit))
    }

    /// A message body of `size` bytes (after inflation) is over the ``FrameLimits/maximumBodyBytes`` `limit`.
    public static func bodyTooLarge(size: Int, limit: Int) -> FrameError {
        FrameError(.bodyTooLarge(size: size, limit: limit))
    }

    /// The type byte names type 0, which is reserved and never sent.
    public static func reservedMessageType(_ rawValue: UInt8) -> FrameError {
        FrameError(.reservedMessageType(rawValue))
    }

    /// The type byte names a Tickwire message type (1...63) this build does not know.
    public static func unknownMessageType(_ rawValue: UInt8) -> FrameError {
        FrameError(.unknownMessageType(rawValue))
    }

    /// A frame of message type `type` has the compressed flag set where compression is not
    /// allowed: the connection's ``CompressionMode`` (`mode`) is ``CompressionMode/none``, or the
    /// message is a handshake message (hello, welcome, reject), which is never compressed.
    public static func unexpectedCompression(type: UInt8, mode: UInt8) -> FrameError {
        FrameError(.unexpectedCompression(type: type, mode: mode))
    }

    /// Inflating the body failed: corrupt or truncated deflate data, or output over the size or
    /// ratio limit (a deflate bomb). ``ZlibError/isLimitExceeded`` tells the two apart.
    public static func inflation(_ error: ZlibError) -> FrameError { FrameError(.inflation(error)) }

    /// zlib refused to set up a compressor's or decompressor's stream: a level or window size
    /// outside its range, or no memory.
    public static func zlibSetup(_ error: ZlibError) -> FrameError { FrameError(.zlibSetup(error)) }

    /// An earlier error left the connection's streaming deflate context out of step with the
    /// peer's; no later frame can be decoded. Close the connection.
    public static let compressionContextBroken = FrameError(.compressionContextBroken)

    /// The peer's deflate stream ended (a final block) inside a streaming context, where every
    /// frame must leave the stream open: a compressed frame inflated to nothing, or an
    /// uncompressed frame could not be added to the shared history.
    public static let compressionStreamEnded = FrameError(.compressionStreamEnded)

    /// The body ended at byte `offset` while `needed` more bytes were needed.
    public static func truncated(offset: Int, needed: Int) -> FrameError {
        FrameError(.truncated(offset: offset, needed: needed))
    }

    /// The varint starting at byte `offset` does not fit in 64 bits (its shift passed 63).
    public static func varintOverflow(offset: Int) -> FrameError { FrameError(.varintOverflow(offset: offset)) }

    /// The varint starting at byte `offset` is longer than needed (it ends in a zero group).
    public static func nonCanonicalVarint(offset: Int) -> FrameError {
        FrameError(.nonCanonicalVarint(offset: offset))
    }

    /// The field `field` holds `value`, over its `maximum`.
    public static func valueOutOfRange(field: String, value: UInt64, maximum: UInt64) -> FrameError {
        FrameError(.valueOutOfRange(field: field, value: value, maximum: maximum))
    }

    /// The byte string `field` declares `length` bytes, over its `limit`.
    public static func lengthExceeded(field: String, length: UInt64, limit: Int) -> FrameError {
        FrameError(.lengthExceeded(field: field, length: length, limit: limit))
    }

    /// An input message declares `count` inputs, over the ``FrameLimits/maximumInputsPerMessage`` `limit`.
    public static func tooManyInputs(count: UInt64, limit: Int) -> FrameError {
        FrameError(.tooManyInputs(count: count, limit: limit))
    }

    /// The text field `field` is not valid UTF-8.
    public static func invalidUTF8(field: String) -> FrameError { FrameError(.invalidUTF8(field: field)) }

    /// The flags byte `field` has reserved bits set (`value` is the whole byte).
    public static func reservedBits(field: String, value: UInt8) -> FrameError {
        FrameError(.reservedBits(field: field, value: value))
    }

    /// A welcome names compression mode `rawValue`, which this build does not know.
    public static func unknownCompressionMode(_ rawValue: UInt8) -> FrameError {
        FrameError(.unknownCompressionMode(rawValue))
    }

    /// A snapshot of tick `tick` was given its own tick as baseline `baseline`: a delta is
    /// against an earlier snapshot, or against none (a full snapshot).
    public static func invalidBaseline(tick: UInt32, baseline: UInt32) -> FrameError {
        FrameError(.invalidBaseline(tick: tick, baseline: baseline))
    }

    /// An input message carries `count` inputs but its newest sequence number `newest` is
    /// smaller than `count`: the oldest input would have a sequence number below 1.
    public static func inputSequenceUnderflow(newest: UInt32, count: Int) -> FrameError {
        FrameError(.inputSequenceUnderflow(newest: newest, count: count))
    }

    /// A message of type `type` was followed by `count` bytes that belong to no field.
    public static func trailingBytes(type: UInt8, count: Int) -> FrameError {
        FrameError(.trailingBytes(type: type, count: count))
    }

    /// An application message was given type `rawValue`, outside the application range 64...127.
    public static func notApplicationType(_ rawValue: UInt8) -> FrameError {
        FrameError(.notApplicationType(rawValue))
    }

    /// An input message was given `renderTimes` render times for `inputs` inputs; it carries
    /// one per input or none (an encoding error only: on the wire the count is implied).
    public static func renderTimeCountMismatch(inputs: Int, renderTimes: Int) -> FrameError {
        FrameError(.renderTimeCountMismatch(inputs: inputs, renderTimes: renderTimes))
    }

    /// Whether the error came from an ``InflationLimit`` (size or ratio) rather than bad data.
    public var isInflationLimitExceeded: Bool {
        if case .inflation(let error) = kind { return error.isLimitExceeded }
        return false
    }

    /// What went wrong, in plain words, with the offending values.
    public var description: String {
        switch kind {
        case .emptyFrame: "empty frame: there is no type byte"
        case .frameTooLarge(let size, let limit): "frame of \(size) bytes exceeds the limit of \(limit) bytes"
        case .bodyTooLarge(let size, let limit): "message body of \(size) bytes exceeds the limit of \(limit) bytes"
        case .reservedMessageType(let raw): "message type \(raw) is reserved and never sent"
        case .unknownMessageType(let raw): "unknown message type \(raw)"
        case .unexpectedCompression(let type, let mode):
            "message type \(type) has the compressed flag set, which compression mode \(mode) or a handshake message does not allow"
        case .inflation(let error): "cannot inflate the frame body: \(error)"
        case .zlibSetup(let error): "cannot set up the zlib stream: \(error)"
        case .compressionContextBroken:
            "the streaming compression context is broken by an earlier error; the connection must be closed"
        case .compressionStreamEnded:
            "the peer's deflate stream ended inside a streaming compression context"
        case .truncated(let offset, let needed): "body ends at byte \(offset) with \(needed) more bytes needed"
        case .varintOverflow(let offset): "varint at byte \(offset) does not fit in 64 bits"
        case .nonCanonicalVarint(let offset): "varint at byte \(offset) is longer than needed"
        case .valueOutOfRange(let field, let value, let maximum): "\(field) is \(value), over its maximum \(maximum)"
        case .lengthExceeded(let field, let length, let limit): "\(field) of \(length) bytes exceeds the limit of \(limit) bytes"
        case .tooManyInputs(let count, let limit): "input message carries \(count) inputs, over the limit of \(limit)"
        case .invalidUTF8(let field): "\(field) is not valid UTF-8"
        case .reservedBits(let field, let value): "\(field) 0x\(String(value, radix: 16)) has reserved bits set"
        case .unknownCompressionMode(let raw): "unknown compression mode \(raw)"
        case .invalidBaseline(let tick, let baseline):
            "snapshot of tick \(tick) names baseline tick \(baseline): a snapshot cannot be its own baseline"
        case .inputSequenceUnderflow(let newest, let count):
            "input message carries \(count) inputs but its newest sequence number is only \(newest)"
        case .trailingBytes(let type, let count): "message type \(type) is followed by \(count) unexpected bytes"
        case .notApplicationType(let raw): "message type \(raw) is not in the application range 64...127"
        case .renderTimeCountMismatch(let inputs, let renderTimes):
            "input message has \(renderTimes) render times for \(inputs) inputs: it carries one per input or none"
        }
    }
}

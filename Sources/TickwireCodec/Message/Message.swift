/// One Tickwire message: what a frame carries once its envelope is opened and its body inflated.
///
/// Each case wraps a struct that holds the message's fields (`Protocol/PROTOCOL.md` section 5
/// gives every byte). ``encodeBody(limits:)`` and ``init(type:body:limits:)`` convert to and from
/// the uncompressed body; ``FrameCompressor`` and ``FrameDecompressor`` add the envelope and the
/// compression. Messages of the application range (64...127) pass through as opaque bodies.
public enum Message: Hashable, Sendable {
    /// Client → server, first frame.
    case hello(Hello)
    /// Server → client, accepting a hello.
    case welcome(Welcome)
    /// Server → client, refusing a hello.
    case reject(Reject)
    /// Server → client, one delta-encoded world snapshot.
    case snapshot(Snapshot)
    /// Client → server, inputs and the snapshot acknowledgement.
    case input(Input)
    /// Client → server, clock-sync probe.
    case ping(Ping)
    /// Server → client, clock-sync answer.
    case pong(Pong)
    /// Either direction, the sender is leaving.
    case disconnect(Disconnect)
    /// Server → client or tool, server statistics.
    case stats(Stats)
    /// An application-defined message: a type in 64...127 and an opaque body.
    case application(type: MessageType, body: [UInt8])

    /// The message's type, as its frame's type byte carries it.
    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .reject: .reject
        case .snapshot: .snapshot
        case .input: .input
        case .ping: .ping
        case .pong: .pong
        case .disconnect: .disconnect
        case .stats: .stats
        case .application(let type, _): type
        }
    }

    /// Encodes the message's body, without envelope or compression.
    ///
    /// - Parameter limits: The limits the body must respect, so that a peer accepts it.
    /// - Returns: The uncompressed body.
    /// - Throws: ``FrameError`` when a field is over its limit (a text, token, input or input
    ///   count too long), the body is over ``FrameLimits/maximumBodyBytes``, or an application
    ///   message's type is outside 64...127.
    public func encodeBody(limits: FrameLimits = .standard) throws(FrameError) -> [UInt8] {
        var writer = ByteWriter(capacity: 32)
        switch self {
        case .hello(let message): try message.encode(into: &writer, limits: limits)
        case .welcome(let message): try message.encode(into: &writer, limits: limits)
        case .reject(let message): try message.encode(into: &writer, limits: limits)
        case .snapshot(let message): try message.encode(into: &writer)
        case .input(let message): try message.encode(into: &writer, limits: limits)
        case .ping(let message): message.encode(into: &writer)
        case .pong(let message): message.encode(into: &writer)
        case .disconnect(let message): try message.encode(into: &writer, limits: limits)
        case .stats(let message): message.encode(into: &writer)
        case .application(let type, let body):
            guard type.isApplication else { throw .notApplicationType(type.rawValue) }
            writer.writeBytes(body)
        }
        if writer.count > limits.maximumBodyBytes {
            throw .bodyTooLarge(size: writer.count, limit: limits.maximumBodyBytes)
        }
        return writer.bytes
    }

    /// Decodes a message from its type and uncompressed body.
    ///
    /// - Parameters:
    ///   - type: The frame's message type.
    ///   - body: The uncompressed body.
    ///   - limits: The limits the body must respect.
    /// - Throws: ``FrameError`` for a reserved or unknown type, a malformed or truncated body,
    ///   a field over its limit, or bytes left over after the last field.
    public init(type: MessageType, body: [UInt8], limits: FrameLimits = .standard) throws(FrameError) {
        try self.init(type: type, reader: ByteReader(body), limits: limits)
    }

    /// Decodes a message from its type and a reader positioned on its body.
    init(type: MessageType, reader: ByteReader, limits: FrameLimits) throws(FrameError) {
        var reader = reader
        if reader.remainingCount > limits.maximumBodyBytes {
            throw .bodyTooLarge(size: reader.remainingCount, limit: limits.maximumBodyBytes)
        }
        switch type {
        case .hello: self = .hello(try Hello(from: &reader, limits: limits))
        case .welcome: self = .welcome(try Welcome(from: &reader, limits: limits))
        case .reject: self = .reject(try Reject(from: &reader, limits: limits))
        case .snapshot: self = .snapshot(try Snapshot(from: &reader))
        case .input: self = .input(try Input(from: &reader, limits: limits))
        case .ping: self = .ping(try Ping(from: &reader))
        case .pong: self = .pong(try Pong(from: &reader))
        case .disconnect: self = .disconnect(try Disconnect(from: &reader, limits: limits))
        case .stats: self = .stats(try Stats(from: &reader))
        default:
            if type.isApplication {
                self = .application(type: type, body: reader.readRemainingBytes())
            } else if type.rawValue == 0 {
                throw .reservedMessageType(type.rawValue)
            } else {
                throw .unknownMessageType(type.rawValue)
            }
        }
        if !reader.isAtEnd { throw .trailingBytes(type: type.rawValue, count: reader.remainingCount) }
    }
}

extension ByteWriter {
    /// Appends a byte string after checking it against `limit`, so a peer will accept it.
    mutating func writeLengthPrefixedBytes(_ value: [UInt8], field: String, limit: Int) throws(FrameError) {
        if value.count > limit { throw .lengthExceeded(field: field, length: UInt64(value.count), limit: limit) }
        writeLengthPrefixedBytes(value)
    }

    /// Appends a text after checking its UTF-8 length against `limit`, so a peer will accept it.
    mutating func writeString(_ value: String, field: String, limit: Int) throws(FrameError) {
        let count = value.utf8.count
        if count > limit { throw .lengthExceeded(field: field, length: UInt64(count), limit: limit) }
        writeString(value)
    }
}

/// Which way a recorded frame travelled.
///
/// An extensible value: the byte before each record of a recording (`Protocol/PROTOCOL.md` §9).
public struct RecordingDirection: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The direction's byte in a recording.
    public let rawValue: UInt8

    /// Creates a direction from its byte.
    ///
    /// - Parameter rawValue: The byte; `nil` unless it names a known direction.
    public init?(rawValue: UInt8) {
        guard rawValue == 1 || rawValue == 2 else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Server → client.
    public static let toClient = RecordingDirection(1)
    /// Client → server.
    public static let toServer = RecordingDirection(2)

    /// `to client` or `to server`.
    public var description: String { self == .toClient ? "to client" : "to server" }
}

/// One frame of a recording: its direction, when it was sent or received, and its bytes as on the wire.
public struct RecordedFrame: Hashable, Sendable {
    /// Which way the frame travelled.
    public var direction: RecordingDirection
    /// When the recorder saw it, in microseconds on the recorder's clock (any origin).
    public var time: UInt64
    /// The whole frame (envelope and, possibly compressed, body).
    public var bytes: [UInt8]

    /// Creates a recorded frame.
    ///
    /// - Parameters:
    ///   - direction: Which way it travelled.
    ///   - time: When it was seen, in microseconds.
    ///   - bytes: The frame as on the wire.
    public init(direction: RecordingDirection, time: UInt64, bytes: [UInt8]) {
        self.direction = direction
        self.time = time
        self.bytes = bytes
    }
}

/// The recording file format (`Protocol/PROTOCOL.md` §9): a self-describing log of the frames
/// of one Tickwire connection, with the schema they follow.
///
/// Layout: the 8 bytes `TWRECORD`, a version byte (1), the schema's canonical encoding as a
/// byte string (varint length, then bytes), then records to the end of the file, each a
/// direction byte, a time (varint, µs) and the frame as a byte string. Write one with
/// ``Recording/header(schema:)`` and ``Recording/record(_:)`` (or `RecordingWriter` in
/// TickwireSim); read one with ``RecordingReader``.
public enum Recording {
    /// The first eight bytes of every recording: `TWRECORD` in ASCII.
    public static let magic: [UInt8] = Array("TWRECORD".utf8)
    /// The format version this build writes and reads.
    public static let version: UInt8 = 1

    /// The bytes a recording starts with: magic, version and schema.
    ///
    /// - Parameter schema: The schema of the recorded connection.
    /// - Returns: The header.
    public static func header(schema: Schema) -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.writeBytes(magic)
        writer.writeUInt8(version)
        writer.writeLengthPrefixedBytes(schema.canonicalEncoding())
        return writer.bytes
    }

    /// The bytes of one record, to append after the header and the earlier records.
    ///
    /// - Parameter frame: The frame to record.
    /// - Returns: The record.
    public static func record(_ frame: RecordedFrame) -> [UInt8] {
        var writer = ByteWriter(capacity: frame.bytes.count + 12)
        writer.writeUInt8(frame.direction.rawValue)
        writer.writeVarUInt(frame.time)
        writer.writeLengthPrefixedBytes(frame.bytes)
        return writer.bytes
    }
}

/// Reads a recording (`Protocol/PROTOCOL.md` §9) from its bytes: the schema first, then the
/// frames one at a time.
///
/// ```swift
/// var reader = try RecordingReader(bytes: fileBytes)
/// let inspector = FrameInspector(schema: reader.schema)
/// while let frame = try reader.next() { print(inspector.inspect(frame).joined(separator: "\n")) }
/// ```
public struct RecordingReader: Sendable {
    /// The largest recording the reader accepts, in bytes (256 MiB).
    public static let maximumRecordingBytes = 256 << 20

    /// The schema of the recorded connection, rebuilt from its canonical encoding.
    public let schema: Schema
    /// The largest frame a record may hold; a longer one is refused before it is copied.
    public let maximumFrameBytes: Int
    private var reader: ByteReader

    /// Opens a recording.
    ///
    /// - Parameters:
    ///   - bytes: The whole recording, at most ``maximumRecordingBytes``.
    ///   - maximumFrameBytes: The largest frame a record may hold; the protocol's frame limit by default.
    /// - Throws: ``RecordingError`` when the input is too large, does not start with the magic,
    ///   has another version, or its schema cannot be read.
    public init(bytes: [UInt8], maximumFrameBytes: Int = FrameLimits.standard.maximumFrameBytes) throws(RecordingError) {
        guard bytes.count <= Self.maximumRecordingBytes else {
            throw RecordingError(.inputTooLarge(count: bytes.count, limit: Self.maximumRecordingBytes))
        }
        guard bytes.count > Recording.magic.count, Array(bytes.prefix(Recording.magic.count)) == Recording.magic else {
            throw RecordingError(.notARecording)
        }
        var reader = ByteReader(bytes, range: Recording.magic.count..<bytes.count)
        let version: UInt8, encoding: [UInt8]
        do throws(FrameError) {
            version = try reader.readUInt8()
            encoding = try reader.readLengthPrefixedBytes(field: "schema", limit: Schema.maxCanonicalEncodingBytes)
        } catch {
            throw RecordingError(.malformed(error, offset: Recording.magic.count))
        }
        guard version == Recording.version else { throw RecordingError(.unsupportedVersion(version)) }
        do throws(SchemaDecodingError) {
            schema = try Schema(canonicalEncoding: encoding)
        } catch {
            throw RecordingError(.schema(error))
        }
        self.reader = reader
        self.maximumFrameBytes = maximumFrameBytes
    }

    /// Reads the next record.
    ///
    /// - Returns: The frame, or `nil` at the end of the recording.
    /// - Throws: ``RecordingError`` for a truncated or malformed record, an unknown direction,
    ///   or a frame over ``maximumFrameBytes``.
    public mutating func next() throws(RecordingError) -> RecordedFrame? {
        guard !reader.isAtEnd else { return nil }
        let start = reader.offset
        var copy = reader
        let byte: UInt8, time: UInt64, length: UInt64
        do throws(FrameError) {
            byte = try copy.readUInt8()
            time = try copy.readVarUInt()
            length = try copy.readVarUInt()
        } catch {
            if case .truncated = error.kind { throw RecordingError(.truncated(offset: start)) }
            throw RecordingError(.malformed(error, offset: start))
        }
        guard let direction = RecordingDirection(rawValue: byte) else {
            throw RecordingError(.unknownDirection(byte, offset: start))
        }
        guard length <= UInt64(maximumFrameBytes) else {
            throw RecordingError(.frameTooLarge(length: length, limit: maximumFrameBytes, offset: start))
        }
        guard Int(length) <= copy.remainingCount, let frame = try? copy.readBytes(count: Int(length)) else {
            throw RecordingError(.truncated(offset: start))
        }
        reader = copy
        return RecordedFrame(direction: direction, time: time, bytes: frame)
    }

    /// Reads every remaining record.
    ///
    /// - Returns: The frames in recorded order.
    /// - Throws: ``RecordingError`` as ``next()``.
    public mutating func readAll() throws(RecordingError) -> [RecordedFrame] {
        var frames: [RecordedFrame] = []
        while let frame = try next() { frames.append(frame) }
        return frames
    }
}

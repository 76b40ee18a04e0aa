/// Why a recording (`Protocol/PROTOCOL.md` §9) could not be read.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case inputTooLarge(count: Int, limit: Int)
        case notARecording
        case unsupportedVersion(UInt8)
        case schema(SchemaDecodingError)
        case truncated(offset: Int)
        case malformed(FrameError, offset: Int)
        case unknownDirection(UInt8, offset: Int)
        case frameTooLarge(length: UInt64, limit: Int, offset: Int)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What is wrong, with the byte offset in the recording where it was found.
    public var description: String {
        switch reason {
        case let .inputTooLarge(count, limit):
            "a recording of \(count) bytes exceeds the limit of \(limit) bytes"
        case .notARecording:
            "not a Tickwire recording (it does not start with TWRECORD)"
        case let .unsupportedVersion(version):
            "recording format version \(version) is not supported (only version \(Recording.version))"
        case let .schema(error):
            "the recording's schema cannot be read: \(error)"
        case let .truncated(offset):
            "the recording ends inside the record that starts at byte \(offset)"
        case let .malformed(error, offset):
            "the record at byte \(offset) is malformed: \(error)"
        case let .unknownDirection(byte, offset):
            "unknown direction byte \(byte) in the record at byte \(offset) (1 = to client, 2 = to server)"
        case let .frameTooLarge(length, limit, offset):
            "the record at byte \(offset) holds a frame of \(length) bytes, over the limit of \(limit)"
        }
    }
}

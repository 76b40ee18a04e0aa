import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a saved arena world or state file (``ArenaStateFile``) could not be read, loaded or
/// written. Every case carries what a person needs to see what is wrong.
public struct ArenaStateError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case tooLarge(what: String, bytes: Int, limit: Int)
        case tooMany(what: String, count: UInt64, limit: Int)
        case malformed(FrameError)
        case outOfRange(field: String, value: String, allowed: String)
        case notInOrder(what: String, id: UInt32)
        case trailingBytes(count: Int)
        case notAStateFile
        case unsupportedVersion(UInt16)
        case otherSchema(found: UInt64, expected: UInt64)
        case checksumMismatch
        case stale(ageSeconds: Double, limitSeconds: Double)
        case savedInTheFuture(seconds: Double)
        case otherMap(width: Int, height: Int)
        case system(path: String, operation: String, errno: Int32)
        case refusedByHost(String)
        case room(index: Int, RoomStateError)
        case file(HostStateFileError)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// Whether the error says the file is simply older than the grace period allows (the
    /// normal case after a long downtime, as opposed to a damaged or foreign file).
    public var isStale: Bool {
        if case .file(let error) = reason { return error.isStale }
        if case .stale = reason { return true }
        return false
    }

    /// What is wrong, in plain words.
    public var description: String {
        let hex = { (value: UInt64) in "0x" + String(value, radix: 16) }
        let seconds = { (value: Double) in String(Double(Int((value * 10).rounded())) / 10) }
        switch reason {
        case let .tooLarge(what, bytes, limit):
            return "\(what) of \(bytes) bytes exceeds the limit of \(limit) bytes"
        case let .tooMany(what, count, limit):
            return "\(count) \(what) exceed the limit of \(limit)"
        case let .malformed(error):
            return "malformed: \(error)"
        case let .outOfRange(field, value, allowed):
            return "\(field) is \(value), outside \(allowed)"
        case let .notInOrder(what, id):
            return "\(what) \(id) is out of ascending id order (or listed twice)"
        case let .trailingBytes(count):
            return "\(count) bytes follow the end of the encoding"
        case .notAStateFile:
            return "not an arena state file (it does not start with TWARENA)"
        case let .unsupportedVersion(version):
            return "state file format version \(version) is not supported (only version \(ArenaStateFile.version))"
        case let .otherSchema(found, expected):
            return "the file was saved by an arena with schema \(hex(found)), this one's is \(hex(expected))"
        case .checksumMismatch:
            return "the checksum does not match the contents: the file is damaged"
        case let .stale(age, limit):
            return "the file was saved \(seconds(age)) s ago, longer than the \(seconds(limit)) s grace period"
        case let .savedInTheFuture(amount):
            return "the file was saved \(seconds(amount)) s in the future (has the clock been set back?)"
        case let .otherMap(width, height):
            return "the saved world's map (\(width)×\(height)) is not this server's map"
        case let .system(path, operation, code):
            return "\(operation)(\(path)) failed: \(ArenaStateError.errorText(code))"
        case let .refusedByHost(text):
            return "the saved state is inconsistent: \(text)"
        case let .room(index, error):
            return "room \(index + 1): \(error)"
        case let .file(error):
            return error.description
        }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

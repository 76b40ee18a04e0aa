#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a host's state file (``HostStateFile``) could not be written, read or restored. Every
/// case carries what a person needs to see what is wrong: the limit, the version, the C call.
public struct HostStateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case tooLarge(what: String, bytes: Int, limit: Int)
        case tooMany(what: String, count: UInt64, limit: Int)
        case malformed(String)
        case trailingBytes(count: Int)
        case notAStateFile
        case unsupportedVersion(UInt16)
        case otherSchema(found: UInt64, expected: UInt64)
        case checksumMismatch
        case stale(ageSeconds: Double, limitSeconds: Double)
        case savedInTheFuture(seconds: Double)
        case system(path: String, operation: String, errno: Int32)
        case room(index: Int, RoomStateError)
        case refusedByHost(HostStateError)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// Whether the file is simply older than the grace period allows (the normal case after a
    /// long downtime, as opposed to a damaged or foreign file): start a fresh host instead.
    public var isStale: Bool {
        if case .stale = reason { return true }
        return false
    }

    /// The `errno` of the C call that failed (`open`, `write`, `fsync`, `rename`, …), if one did.
    public var systemErrorNumber: Int32? {
        if case let .system(_, _, code) = reason { return code }
        return nil
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
        case let .malformed(words):
            return "the state file is malformed: \(words)"
        case let .trailingBytes(count):
            return "\(count) bytes follow the end of the state file"
        case .notAStateFile:
            return "not a Tickwire host state file (it does not start with TWHOST)"
        case let .unsupportedVersion(version):
            return "state file format version \(version) is not supported (only version \(HostStateFile.version))"
        case let .otherSchema(found, expected):
            return "the file was saved by a game with schema \(hex(found)), this one's is \(hex(expected))"
        case .checksumMismatch:
            return "the checksum does not match the contents: the file is damaged"
        case let .stale(age, limit):
            return "the file was saved \(seconds(age)) s ago, longer than the \(seconds(limit)) s grace period"
        case let .savedInTheFuture(amount):
            return "the file was saved \(seconds(amount)) s in the future (has the clock been set back?)"
        case let .system(path, operation, code):
            return "\(operation)(\(path)) failed: \(String(cString: strerror(code)))"
        case let .room(index, error):
            return "room \(index + 1): \(error)"
        case let .refusedByHost(error):
            return "the saved state is inconsistent: \(error)"
        }
    }
}

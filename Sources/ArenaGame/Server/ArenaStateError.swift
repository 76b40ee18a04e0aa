import Tickwire

/// Why a saved arena world or state file (``ArenaStateFile``) could not be read, loaded or
/// written. Every case carries what a person needs to see what is wrong.
package struct ArenaStateError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case tooLarge(what: String, bytes: Int, limit: Int)
        case tooMany(what: String, count: UInt64, limit: Int)
        case malformed(FrameError)
        case outOfRange(field: String, value: String, allowed: String)
        case notInOrder(what: String, id: UInt32)
        case trailingBytes(count: Int)
        case otherMap(width: Int, height: Int)
        case refusedByHost(String)
        case file(HostStateFileError)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// Whether the error says the file is simply older than the grace period allows (the
    /// normal case after a long downtime, as opposed to a damaged or foreign file).
    package var isStale: Bool {
        if case .file(let error) = reason { return error.isStale }
        return false
    }

    /// What is wrong, in plain words.
    package var description: String {
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
        case let .otherMap(width, height):
            return "the saved world's map (\(width)×\(height)) is not this server's map"
        case let .refusedByHost(text):
            return "the saved state is inconsistent: \(text)"
        case let .file(error):
            return error.description
        }
    }
}

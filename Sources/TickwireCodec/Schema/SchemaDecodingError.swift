/// Why a schema's canonical encoding (`Protocol/PROTOCOL.md` §3.4) could not be read back
/// with ``Schema/init(canonicalEncoding:)``.
public struct SchemaDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case inputTooLarge(count: Int, limit: Int)
        case truncated(offset: Int)
        case unsupportedVersion(UInt8)
        case malformedVarint(offset: Int)
        case countOverLimit(what: String, count: UInt64, limit: Int)
        case invalidUTF8(offset: Int)
        case unknownKindTag(UInt8, offset: Int)
        case parameterOutOfRange(what: String, value: UInt64, offset: Int)
        case trailingBytes(count: Int)
        case invalidSchema(SchemaError)
        case notCanonical
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What is wrong with the encoding, with the offending values and offsets.
    public var description: String {
        switch reason {
        case let .inputTooLarge(count, limit):
            "a schema encoding of \(count) bytes exceeds the limit of \(limit) bytes"
        case let .truncated(offset):
            "the schema encoding ends early at byte \(offset)"
        case let .unsupportedVersion(version):
            "schema encoding version \(version) is not supported (only version 1)"
        case let .malformedVarint(offset):
            "malformed varint at byte \(offset) of the schema encoding (over 64 bits or not in shortest form)"
        case let .countOverLimit(what, count, limit):
            "\(what) is \(count), over the limit of \(limit)"
        case let .invalidUTF8(offset):
            "the name at byte \(offset) of the schema encoding is not valid UTF-8"
        case let .unknownKindTag(tag, offset):
            "unknown field kind tag \(tag) at byte \(offset) of the schema encoding"
        case let .parameterOutOfRange(what, value, offset):
            "\(what) \(value) at byte \(offset) of the schema encoding is out of range"
        case let .trailingBytes(count):
            "\(count) bytes follow the end of the schema encoding"
        case let .invalidSchema(error):
            "the encoded schema is invalid: \(error)"
        case .notCanonical:
            "the schema encoding is not in canonical form (it does not re-encode to the same bytes)"
        }
    }
}

/// Why a bit stream or an encoded snapshot could not be read.
///
/// Every decoding failure in the snapshot codec is one of these; none traps. Each case carries
/// the values a reader needs to understand what went wrong. Compare errors by case with
/// ``kind`` (a new kind is not a breaking change).
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, without the values; cases may be added in later versions.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A read needed more bits than the input holds.
        public static let truncated = Kind(name: "truncated")
        /// A varint ran past ten groups, overflowed 64 bits, or was not in its shortest form.
        public static let malformedVarint = Kind(name: "malformedVarint")
        /// A gamma code had too many leading zero bits.
        public static let malformedGammaCode = Kind(name: "malformedGammaCode")
        /// A bit count outside 0...64 was asked for.
        public static let invalidBitCount = Kind(name: "invalidBitCount")
        /// A decoded value lies outside the range its field or context allows.
        public static let valueOutOfRange = Kind(name: "valueOutOfRange")
        /// An entity id ran past 2^32 − 1.
        public static let entityIDOutOfRange = Kind(name: "entityIDOutOfRange")
        /// An entity type index names no type of the schema.
        public static let unknownEntityType = Kind(name: "unknownEntityType")
        /// A destroyed entity is not in the baseline.
        public static let unknownEntity = Kind(name: "unknownEntity")
        /// A created entity already exists.
        public static let duplicateEntity = Kind(name: "duplicateEntity")
        /// A changed-entity index is past the end of the surviving entities.
        public static let entityIndexOutOfRange = Kind(name: "entityIndexOutOfRange")
        /// More entities than the decoder's limit, or more destroyed than the baseline holds.
        public static let tooManyEntities = Kind(name: "tooManyEntities")
        /// The input is longer than the decoder's limit.
        public static let inputTooLarge = Kind(name: "inputTooLarge")
        /// The delta names a baseline but none was given.
        public static let baselineMissing = Kind(name: "baselineMissing")
        /// The delta was encoded against a different baseline tick than the one given.
        public static let baselineMismatch = Kind(name: "baselineMismatch")
        /// A snapshot or baseline belongs to a schema other than the codec's.
        public static let schemaMismatch = Kind(name: "schemaMismatch")
        /// Bytes or non-zero padding bits follow the end of the encoding.
        public static let trailingData = Kind(name: "trailingData")
        /// A range-coded payload (entropy-coded delta) reached a state no encoder produces.
        public static let malformedRangeCode = Kind(name: "malformedRangeCode")
        /// A text field's bytes are not valid UTF-8 (protocol 1.2).
        public static let invalidUTF8 = Kind(name: "invalidUTF8")

        /// The kind's name, as in the static member (`truncated`, …).
        public var description: String { name }
    }

    enum Reason: Hashable, Sendable {
        case truncated(neededBits: Int, availableBits: Int)
        case malformedVarint(atBit: Int)
        case malformedGammaCode(atBit: Int)
        case invalidBitCount(Int)
        case valueOutOfRange(what: String, value: String, allowed: String)
        case entityIDOutOfRange(previous: UInt64, gap: UInt64)
        case unknownEntityType(index: UInt64, typeCount: Int)
        case unknownEntity(UInt32)
        case duplicateEntity(UInt32)
        case entityIndexOutOfRange(index: UInt64, count: Int)
        case tooManyEntities(count: UInt64, limit: Int)
        case inputTooLarge(count: Int, limit: Int)
        case baselineMissing(tick: UInt32)
        case baselineMismatch(expected: UInt32, given: UInt32)
        case schemaMismatch(expected: UInt64, given: UInt64)
        case trailingData(bits: Int)
        case malformedRangeCode(atByte: Int)
        case invalidUTF8(what: String)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// The kind of failure.
    public var kind: Kind {
        switch reason {
        case .truncated: .truncated
        case .malformedVarint: .malformedVarint
        case .malformedGammaCode: .malformedGammaCode
        case .invalidBitCount: .invalidBitCount
        case .valueOutOfRange: .valueOutOfRange
        case .entityIDOutOfRange: .entityIDOutOfRange
        case .unknownEntityType: .unknownEntityType
        case .unknownEntity: .unknownEntity
        case .duplicateEntity: .duplicateEntity
        case .entityIndexOutOfRange: .entityIndexOutOfRange
        case .tooManyEntities: .tooManyEntities
        case .inputTooLarge: .inputTooLarge
        case .baselineMissing: .baselineMissing
        case .baselineMismatch: .baselineMismatch
        case .schemaMismatch: .schemaMismatch
        case .trailingData: .trailingData
        case .malformedRangeCode: .malformedRangeCode
        case .invalidUTF8: .invalidUTF8
        }
    }

    /// A plain-words explanation with the offending values.
    public var description: String {
        let hex = { (value: UInt64) in "0x" + String(value, radix: 16) }
        switch reason {
        case let .truncated(needed, available):
            return "input ends early: needed \(needed) more bits, only \(available) left"
        case let .malformedVarint(position):
            return "malformed varint at bit \(position): longer than 64 bits or not in shortest form"
        case let .malformedGammaCode(position):
            return "malformed gamma code at bit \(position): more than 63 leading zero bits"
        case let .invalidBitCount(bits):
            return "bit count \(bits) is outside 0...64"
        case let .valueOutOfRange(what, value, allowed):
            return "\(what) is \(value), outside the allowed \(allowed)"
        case let .entityIDOutOfRange(previous, gap):
            return "entity id gap \(gap) after id \(previous) passes the largest id 4294967295"
        case let .unknownEntityType(index, typeCount):
            return "entity type index \(index) but the schema has \(typeCount) types"
        case let .unknownEntity(id):
            return "destroyed entity \(id) is not in the baseline"
        case let .duplicateEntity(id):
            return "created entity \(id) already exists"
        case let .entityIndexOutOfRange(index, count):
            return "changed entity index \(index) but only \(count) entities survive from the baseline"
        case let .tooManyEntities(count, limit):
            return "\(count) entities exceed the limit of \(limit)"
        case let .inputTooLarge(count, limit):
            return "encoded snapshot of \(count) bytes exceeds the limit of \(limit) bytes"
        case let .baselineMissing(tick):
            return "the delta is against baseline tick \(tick) but no baseline was given"
        case let .baselineMismatch(expected, given):
            return "the delta is against baseline tick \(expected) but the given baseline is tick \(given)"
        case let .schemaMismatch(expected, given):
            return "schema fingerprint \(hex(given)) where the codec's is \(hex(expected))"
        case let .trailingData(bits):
            return "\(bits) bits follow the end of the encoding (only zero padding to a byte boundary is allowed)"
        case let .malformedRangeCode(position):
            return "range-coded data near byte \(position) is in a state no encoder produces"
        case let .invalidUTF8(what):
            return "\(what) is not valid UTF-8"
        }
    }
}

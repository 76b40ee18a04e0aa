import Tickwire

/// A ``ByteReader`` whose reads throw ``ArenaStateError``, with the range checks the saved
/// arena formats (``ArenaWorld/encoded()``, ``ArenaStateFile``) need before they allocate.
struct ArenaStateReader {
    private var reader: ByteReader

    init(_ bytes: [UInt8]) {
        reader = ByteReader(bytes)
    }

    var offset: Int { reader.offset }
    var remainingCount: Int { reader.remainingCount }
    var isAtEnd: Bool { reader.isAtEnd }

    private static func wrap<T>(_ read: () throws(FrameError) -> T) throws(ArenaStateError) -> T {
        do {
            return try read()
        } catch {
            throw ArenaStateError(.malformed(error))
        }
    }

    mutating func uint8() throws(ArenaStateError) -> UInt8 {
        try Self.wrap { () throws(FrameError) in try reader.readUInt8() }
    }

    mutating func uint16() throws(ArenaStateError) -> UInt16 {
        try Self.wrap { () throws(FrameError) in try reader.readUInt16() }
    }

    mutating func uint32() throws(ArenaStateError) -> UInt32 {
        try Self.wrap { () throws(FrameError) in try reader.readUInt32() }
    }

    mutating func uint64() throws(ArenaStateError) -> UInt64 {
        try Self.wrap { () throws(FrameError) in try reader.readUInt64() }
    }

    mutating func bytes(count: Int) throws(ArenaStateError) -> [UInt8] {
        try Self.wrap { () throws(FrameError) in try reader.readBytes(count: count) }
    }

    /// A varint id or count that must fit in 32 bits.
    mutating func varUInt32(field: String) throws(ArenaStateError) -> UInt32 {
        try Self.wrap { () throws(FrameError) in try reader.readVarUInt32(field: field) }
    }

    /// A varint count of `what`, refused over `limit` before anything is allocated.
    mutating func count(of what: String, limit: Int) throws(ArenaStateError) -> Int {
        let count = try Self.wrap { () throws(FrameError) in try reader.readVarUInt() }
        guard count <= UInt64(limit) else { throw ArenaStateError(.tooMany(what: what, count: count, limit: limit)) }
        return Int(count)
    }

    /// A zigzag varint whose magnitude is at most `magnitude`.
    mutating func integer(field: String, magnitude: Int) throws(ArenaStateError) -> Int {
        let value = try Self.wrap { () throws(FrameError) in try reader.readVarInt() }
        guard value.magnitude <= UInt64(magnitude) else {
            throw ArenaStateError(.outOfRange(field: field, value: String(value), allowed: "±\(magnitude)"))
        }
        return Int(value)
    }

    /// A double stored as its IEEE 754 bit pattern (big-endian), finite and at most `magnitude`.
    mutating func double(field: String, magnitude: Double) throws(ArenaStateError) -> Double {
        let value = Double(bitPattern: try uint64())
        guard value.isFinite, abs(value) <= magnitude else {
            throw ArenaStateError(.outOfRange(field: field, value: String(describing: value), allowed: "finite, ±\(magnitude)"))
        }
        return value
    }

    /// A varint-length byte string, refused over `limit` bytes before it is read.
    mutating func lengthPrefixedBytes(field: String, limit: Int) throws(ArenaStateError) -> [UInt8] {
        let length = try Self.wrap { () throws(FrameError) in try reader.readVarUInt() }
        guard length <= UInt64(limit) else { throw ArenaStateError(.tooLarge(what: field, bytes: Int(clamping: length), limit: limit)) }
        return try bytes(count: Int(length))
    }

    /// A varint-length UTF-8 text of at most `limit` bytes.
    mutating func string(field: String, limit: Int) throws(ArenaStateError) -> String {
        try Self.wrap { () throws(FrameError) in try reader.readString(field: field, limit: limit) }
    }
}

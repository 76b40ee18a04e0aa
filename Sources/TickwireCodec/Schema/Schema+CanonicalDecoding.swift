extension Schema {
    /// The longest canonical encoding ``init(canonicalEncoding:)`` accepts, in bytes.
    ///
    /// The largest valid schema (256 types of 64 fields, every name 255 bytes, every kind a
    /// float) takes about 4.6 MB; real schemas take a few hundred bytes. 1 MiB bounds what a
    /// recording or a peer can make a reader hold.
    public static let maxCanonicalEncodingBytes = 1 << 20

    /// Rebuilds a schema from its canonical encoding (``canonicalEncoding()``, `Protocol/PROTOCOL.md` §3.4).
    ///
    /// Every count is checked against the schema limits (``maxEntityTypes``, ``maxFieldsPerType``,
    /// ``maxNameLength``) and against the bytes left before anything is allocated; the result is
    /// validated as ``init(_:)`` does, and must re-encode to exactly `bytes`.
    ///
    /// - Parameter bytes: The encoding, exactly (trailing bytes are an error).
    /// - Throws: ``SchemaDecodingError`` for input over ``maxCanonicalEncodingBytes``, a version
    ///   other than 1, truncated or malformed input, a count or parameter out of range, an
    ///   unknown kind tag, an invalid schema, or an encoding not in canonical form.
    public init(canonicalEncoding bytes: [UInt8]) throws(SchemaDecodingError) {
        guard bytes.count <= Schema.maxCanonicalEncodingBytes else {
            throw SchemaDecodingError(.inputTooLarge(count: bytes.count, limit: Schema.maxCanonicalEncodingBytes))
        }
        var reader = CanonicalReader(bytes: bytes)
        let version = try reader.byte()
        guard version == 1 else { throw SchemaDecodingError(.unsupportedVersion(version)) }
        // Each type takes at least 3 bytes (name length, one name byte, field count).
        let typeCount = try reader.count("entity type count", limit: Schema.maxEntityTypes, minimumBytesEach: 3)
        var types: [EntityType] = []
        types.reserveCapacity(typeCount)
        for _ in 0..<typeCount {
            let name = try reader.name()
            // Each field takes at least 3 bytes (name length, 1 name byte, kind tag).
            let fieldCount = try reader.count("field count of '\(name)'", limit: Schema.maxFieldsPerType, minimumBytesEach: 3)
            var fields: [Field] = []
            fields.reserveCapacity(fieldCount)
            for _ in 0..<fieldCount {
                let fieldName = try reader.name()
                fields.append(Field(fieldName, try reader.kind()))
            }
            types.append(EntityType(name, fields: fields))
        }
        guard reader.offset == bytes.count else { throw SchemaDecodingError(.trailingBytes(count: bytes.count - reader.offset)) }
        do {
            try self.init(types)
        } catch {
            throw SchemaDecodingError(.invalidSchema(error))
        }
        guard canonicalEncoding() == bytes else { throw SchemaDecodingError(.notCanonical) }
    }
}

/// A bounds-checked reader over a canonical schema encoding.
private struct CanonicalReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() throws(SchemaDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw SchemaDecodingError(.truncated(offset: offset)) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 varint in shortest form, at most 64 bits.
    mutating func varint() throws(SchemaDecodingError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            if shift == 63 && byte > 1 { throw SchemaDecodingError(.malformedVarint(offset: start)) }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && offset - start > 1 { throw SchemaDecodingError(.malformedVarint(offset: start)) }
                return value
            }
            shift += 7
            if shift > 63 { throw SchemaDecodingError(.malformedVarint(offset: start)) }
        }
    }

    /// A count within `limit` and within what the bytes left can hold.
    mutating func count(_ what: String, limit: Int, minimumBytesEach: Int) throws(SchemaDecodingError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw SchemaDecodingError(.countOverLimit(what: what, count: value, limit: limit)) }
        guard Int(value) * minimumBytesEach <= bytes.count - offset else {
            throw SchemaDecodingError(.truncated(offset: bytes.count))
        }
        return Int(value)
    }

    mutating func name() throws(SchemaDecodingError) -> String {
        let length = try varint()
        guard length >= 1 && length <= UInt64(Schema.maxNameLength) else {
            throw SchemaDecodingError(.countOverLimit(what: "name length", count: length, limit: Schema.maxNameLength))
        }
        let start = offset
        guard Int(length) <= bytes.count - offset else { throw SchemaDecodingError(.truncated(offset: bytes.count)) }
        offset += Int(length)
        guard let text = String(validating: bytes[start..<offset], as: UTF8.self) else {
            throw SchemaDecodingError(.invalidUTF8(offset: start))
        }
        return text
    }

    mutating func kind() throws(SchemaDecodingError) -> FieldKind {
        let tagOffset = offset
        let tag = try byte()
        switch Schema.KindTag(rawValue: tag) {
        case .bool:
            return .bool
        case .integer:
            let min = ZigZag.decode(try varint())
            let max = ZigZag.decode(try varint())
            return .integer(min: min, max: max)
        case .float:
            let min = try double(), max = try double(), resolution = try double()
            return .float(min: min, max: max, resolution: resolution)
        case .angle:
            let start = offset
            let bits = try varint()
            guard bits <= 64 else { throw SchemaDecodingError(.parameterOutOfRange(what: "angle bits", value: bits, offset: start)) }
            return .angle(bits: Int(bits))
        case .enumeration:
            let start = offset
            let cases = try varint()
            guard cases <= UInt64(Schema.maxEnumerationCases) else {
                throw SchemaDecodingError(.parameterOutOfRange(what: "enumeration cases", value: cases, offset: start))
            }
            return .enumeration(cases: Int(cases))
        case .text:
            let start = offset
            let maxBytes = try varint()
            guard maxBytes <= UInt64(Schema.maxTextBytes) else {
                throw SchemaDecodingError(.parameterOutOfRange(what: "text bytes", value: maxBytes, offset: start))
            }
            return .text(maxBytes: Int(maxBytes))
        case nil:
            throw SchemaDecodingError(.unknownKindTag(tag, offset: tagOffset))
        }
    }

    /// A little-endian IEEE 754 double.
    mutating func double() throws(SchemaDecodingError) -> Double {
        guard bytes.count - offset >= 8 else { throw SchemaDecodingError(.truncated(offset: bytes.count)) }
        var pattern: UInt64 = 0
        for index in 0..<8 {
            pattern |= UInt64(bytes[offset + index]) << UInt64(8 * index)
        }
        offset += 8
        return Double(bitPattern: pattern)
    }
}

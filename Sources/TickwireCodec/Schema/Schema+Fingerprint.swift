extension Schema {
    /// Kind tags in the canonical encoding.
    enum KindTag: UInt8 {
        case bool = 0, integer = 1, float = 2, angle = 3, enumeration = 4, text = 5
    }

    /// The canonical byte encoding of a list of entity types (`Protocol/PROTOCOL.md` §3.4):
    /// byte 1 (version); LEB128 type count; per type its name (LEB128 length, UTF-8), LEB128
    /// field count, and per field its name, a kind tag byte and the kind's parameters.
    static func canonicalEncoding(of types: [EntityType]) -> [UInt8] {
        var out: [UInt8] = [1]
        appendVarint(UInt64(types.count), to: &out)
        for type in types {
            appendName(type.name, to: &out)
            appendVarint(UInt64(type.fields.count), to: &out)
            for field in type.fields {
                appendName(field.name, to: &out)
                switch field.kind.storage {
                case .bool:
                    out.append(KindTag.bool.rawValue)
                case let .integer(min, max):
                    out.append(KindTag.integer.rawValue)
                    appendVarint(ZigZag.encode(min), to: &out)
                    appendVarint(ZigZag.encode(max), to: &out)
                case let .float(min, max, resolution):
                    out.append(KindTag.float.rawValue)
                    for value in [min, max, resolution] {
                        // −0 is written as +0 so that equal schemas hash equally.
                        appendLittleEndian((value == 0 ? 0.0 : value).bitPattern, to: &out)
                    }
                case let .angle(bits):
                    out.append(KindTag.angle.rawValue)
                    appendVarint(UInt64(bits), to: &out)
                case let .enumeration(cases):
                    out.append(KindTag.enumeration.rawValue)
                    appendVarint(UInt64(cases), to: &out)
                case let .text(maxBytes):
                    out.append(KindTag.text.rawValue)
                    appendVarint(UInt64(maxBytes), to: &out)
                }
            }
        }
        return out
    }

    /// FNV-1a, 64-bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3.
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            // Wrapping multiplication is the algorithm: the hash lives modulo 2^64.
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func appendName(_ name: String, to out: inout [UInt8]) {
        appendVarint(UInt64(name.utf8.count), to: &out)
        out.append(contentsOf: name.utf8)
    }

    private static func appendLittleEndian(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}

/// The checks a decoder makes on a text field's value (`Protocol/PROTOCOL.md` §3.2, §4.1):
/// its length against the field's bound before any byte is read, then UTF-8 validity.
enum TextValue {
    /// Checks a decoded length against the field's `maxBytes`.
    ///
    /// - Throws: `.valueOutOfRange` for a length over the bound.
    @inline(__always)
    static func checkLength(_ length: UInt64, maxBytes: UInt64, field: Int, id: UInt32?) throws(CodecError) {
        guard length <= maxBytes else {
            throw CodecError(
                .valueOutOfRange(what: "length of text field \(field)\(entityWords(id))", value: "\(length)", allowed: "0...\(maxBytes)"))
        }
    }

    /// Checks that decoded bytes are UTF-8 (RFC 3629: shortest forms, no surrogates, at most U+10FFFF).
    ///
    /// - Throws: `.invalidUTF8` otherwise.
    static func checkUTF8(_ bytes: [UInt8], field: Int, id: UInt32?) throws(CodecError) {
        // ASCII, the usual case, needs no decoding.
        if bytes.allSatisfy({ $0 < 0x80 }) { return }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw CodecError(.invalidUTF8(what: "text field \(field)\(entityWords(id))"))
        }
    }

    private static func entityWords(_ id: UInt32?) -> String {
        id.map { " of entity \($0)" } ?? ""
    }
}

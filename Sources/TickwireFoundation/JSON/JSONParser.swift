/// A strict JSON reader (RFC 8259) for untrusted text: HTTP request bodies, the claims of web
/// tokens. It reads exactly one value with optional whitespace around it, and refuses (with a
/// ``JSONError`` naming the byte) anything else:
///
/// - nesting deeper than ``maximumDepth`` (so hostile text cannot exhaust the stack);
/// - strings that are not UTF-8, hold an unescaped control character or a lone surrogate escape;
/// - an object that names a member twice (two readers of the same text must not disagree on it);
/// - numbers outside JSON's grammar (`01`, `+1`, `.5`, `1.`, `NaN`) or beyond a `Double`.
///
/// The caller bounds the text's size; the parser's memory is proportional to it.
public enum JSONParser {
    /// The deepest nesting of arrays and objects read: 32.
    public static let maximumDepth = 32

    /// Reads one JSON value.
    ///
    /// - Parameter bytes: The UTF-8 text.
    /// - Returns: The value.
    /// - Throws: ``JSONError`` for anything that is not exactly one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == bytes.count else { throw JSONError(.trailingData, at: reader.offset) }
        return value
    }

    /// Reads one JSON value from a string.
    ///
    /// - Parameter text: The text.
    /// - Returns: The value.
    /// - Throws: ``JSONError`` for anything that is not exactly one JSON value.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        func peek() throws(JSONError) -> UInt8 {
            guard offset < bytes.count else { throw JSONError(.truncated, at: offset) }
            return bytes[offset]
        }

        mutating func expect(_ word: String, value: JSONValue) throws(JSONError) -> JSONValue {
            for byte in word.utf8 {
                guard try peek() == byte else { throw JSONError(.unexpectedByte(bytes[offset]), at: offset) }
                offset += 1
            }
            return value
        }

        mutating func readValue(depth: Int) throws(JSONError) -> JSONValue {
            let byte = try peek()
            switch byte {
            case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
            case UInt8(ascii: "["): return try readArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
            case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
            case UInt8(ascii: "n"): return try expect("null", value: .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
            default: throw JSONError(.unexpectedByte(byte), at: offset)
            }
        }

        mutating func readObject(depth: Int) throws(JSONError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw JSONError(.tooDeep(limit: JSONParser.maximumDepth), at: offset) }
            offset += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let nameOffset = offset
                guard try peek() == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(bytes[offset]), at: offset) }
                let name = try readString()
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw JSONError(.unexpectedByte(bytes[offset]), at: offset) }
                offset += 1
                skipWhitespace()
                let value = try readValue(depth: depth)
                guard members.updateValue(value, forKey: name) == nil else { throw JSONError(.duplicateMember(name), at: nameOffset) }
                skipWhitespace()
                let next = try peek()
                offset += 1
                if next == UInt8(ascii: "}") { return .object(members) }
                guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedByte(next), at: offset - 1) }
            }
        }

        mutating func readArray(depth: Int) throws(JSONError) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw JSONError(.tooDeep(limit: JSONParser.maximumDepth), at: offset) }
            offset += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try readValue(depth: depth))
                skipWhitespace()
                let next = try peek()
                offset += 1
                if next == UInt8(ascii: "]") { return .array(elements) }
                guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedByte(next), at: offset - 1) }
            }
        }

        mutating func readHexQuad() throws(JSONError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = try peek()
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw JSONError(.invalidEscape, at: offset)
                }
                value = value << 4 | UInt32(digit)
                offset += 1
            }
            return value
        }

        mutating func readString() throws(JSONError) -> String {
            let start = offset
            offset += 1
            var utf8: [UInt8] = []
            while true {
                let byte = try peek()
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw JSONError(.invalidUTF8, at: start) }
                    return text
                case UInt8(ascii: "\\"):
                    let escape = try peek()
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        let escapeOffset = offset - 2
                        var scalar = try readHexQuad()
                        if (0xD800...0xDBFF).contains(scalar) {
                            // A high surrogate must be followed by an escaped low one.
                            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
                            else { throw JSONError(.invalidUTF8, at: escapeOffset) }
                            offset += 2
                            let low = try readHexQuad()
                            guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.invalidUTF8, at: escapeOffset) }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw JSONError(.invalidUTF8, at: escapeOffset) }
                        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        throw JSONError(.invalidEscape, at: offset - 2)
                    }
                case 0..<0x20:
                    throw JSONError(.controlCharacter, at: offset - 1)
                default:
                    utf8.append(byte)
                }
            }
        }

        mutating func readDigits() -> Int {
            let start = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - start
        }

        mutating func readNumber() throws(JSONError) -> Double {
            let start = offset
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let integerStart = offset
            let integerDigits = readDigits()
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
                throw JSONError(.invalidNumber, at: start)
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard readDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard readDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
            }
            guard let number = Double(String(decoding: bytes[start..<offset], as: UTF8.self)), number.isFinite else {
                throw JSONError(.invalidNumber, at: start)
            }
            return number
        }
    }
}

/// Why ``JSONParser`` refused a text, and where.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Hashable, Sendable {
        /// The text ended inside a value.
        case truncated
        /// A byte that no JSON value can hold here.
        case unexpectedByte(UInt8)
        /// Nesting deeper than ``JSONParser/maximumDepth`` arrays and objects.
        case tooDeep(limit: Int)
        /// A string that is not UTF-8, or holds a lone surrogate escape.
        case invalidUTF8
        /// A control character (below 0x20) inside a string, unescaped.
        case controlCharacter
        /// A backslash escape JSON does not define.
        case invalidEscape
        /// A number outside JSON's grammar, or too large for a `Double`.
        case invalidNumber
        /// An object that names the same member twice.
        case duplicateMember(String)
        /// More than whitespace after the value.
        case trailingData
    }

    /// What was wrong.
    public let kind: Kind
    /// The byte offset in the text where it was found.
    public let offset: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What was wrong.
    ///   - offset: Where.
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// "invalid JSON at byte 12: a repeated member \"name\"".
    public var description: String {
        let what: String
        switch kind {
        case .truncated: what = "the text ends inside a value"
        case .unexpectedByte(let byte): what = "unexpected byte 0x\(String(byte, radix: 16))"
        case .tooDeep(let limit): what = "nested deeper than \(limit) arrays and objects"
        case .invalidUTF8: what = "a string that is not UTF-8"
        case .controlCharacter: what = "an unescaped control character in a string"
        case .invalidEscape: what = "an escape JSON does not define"
        case .invalidNumber: what = "a number outside JSON's grammar or range"
        case .duplicateMember(let name): what = "a repeated member \"\(name)\""
        case .trailingData: what = "data after the value"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}

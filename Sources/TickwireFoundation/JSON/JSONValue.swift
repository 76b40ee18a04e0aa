/// A JSON value (RFC 8259), as ``JSONParser`` reads it: the bodies of HTTP requests and the
/// claims of web tokens, read without Foundation.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (every JSON number is read as a `Double`, as JavaScript reads it).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (its member names are unique: ``JSONParser`` refuses a repeated one).
    case object([String: JSONValue])

    /// The member `name` of an object, or `nil` (for a missing member or a value that is not an object).
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    /// The string, or `nil` for any other kind of value.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number, or `nil` for any other kind of value.
    public var numberValue: Double? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// The number when it is a whole number that an `Int64` holds exactly (within ±2^53, where
    /// every whole `Double` is exact), or `nil`.
    public var integerValue: Int64? {
        guard case .number(let number) = self, number == number.rounded(), abs(number) <= 9_007_199_254_740_992 else { return nil }
        return Int64(number)
    }

    /// The boolean, or `nil` for any other kind of value.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }
}

/// The header fields of an HTTP/1.1 request or response head, in order, with
/// case-insensitive lookup by name.
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One `name: value` field.
    public struct Field: Hashable, Sendable {
        /// The field name as written.
        public var name: String
        /// The value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field] = []

    /// Creates an empty header list.
    public init() {}

    /// Creates a header list from literal pairs, in order.
    ///
    /// - Parameter elements: `(name, value)` pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Appends a field (repeated names are kept, as HTTP allows).
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Appends every field of `other`.
    ///
    /// - Parameter other: The fields to append.
    public mutating func add(contentsOf other: HTTPHeaders) {
        fields.append(contentsOf: other.fields)
    }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Every value of the field `name` (case-insensitive), in order.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The values of all fields with that name.
    public func values(for name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The comma-separated list elements of every field `name`, trimmed, empty ones dropped
    /// (for list-valued fields such as `Connection` or `Sec-WebSocket-Protocol`).
    ///
    /// - Parameter name: The field name.
    /// - Returns: The list elements in order.
    public func listElements(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingHTTPWhitespace() }.filter { !$0.isEmpty }
        }
    }

    /// Whether the list-valued field `name` contains `token`, compared case-insensitively.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - token: The token to look for, e.g. `upgrade` in `Connection: keep-alive, Upgrade`.
    /// - Returns: Whether any element equals `token`.
    public func containsToken(_ token: String, in name: String) -> Bool {
        let lowered = token.lowercased()
        return listElements(for: name).contains { $0.lowercased() == lowered }
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Appends the fields as `name: value\r\n` lines.
    func encode(into output: inout [UInt8]) {
        for field in fields {
            output.append(contentsOf: field.name.utf8)
            output.append(contentsOf: ": ".utf8)
            output.append(contentsOf: field.value.utf8)
            output.append(contentsOf: "\r\n".utf8)
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

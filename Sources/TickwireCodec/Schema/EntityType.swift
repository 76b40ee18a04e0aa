/// A kind of entity a game declares: a name and an ordered list of fields.
///
/// The order of the fields is part of the wire format: field `i` of an entity is the
/// `i`-th value of its record and the `i`-th bit of its changed-field mask.
public struct EntityType: Hashable, Sendable {
    /// The type's name, unique within the schema (1...``Schema/maxNameLength`` UTF-8 bytes).
    public let name: String
    /// The fields, in wire order (at most ``Schema/maxFieldsPerType``).
    public let fields: [Field]

    /// Creates an entity type.
    ///
    /// - Parameters:
    ///   - name: The name, unique within the schema.
    ///   - fields: The fields in wire order.
    public init(_ name: String, fields: [Field]) {
        self.name = name
        self.fields = fields
    }

    /// The index of the field called `name`.
    ///
    /// - Parameter name: A field name.
    /// - Returns: Its index, or `nil` when the type has no such field.
    public func fieldIndex(named name: String) -> Int? {
        fields.firstIndex { $0.name == name }
    }
}

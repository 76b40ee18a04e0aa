/// One field of an entity type: a name and a ``FieldKind``.
public struct Field: Hashable, Sendable {
    /// The field's name, unique within its entity type (1...``Schema/maxNameLength`` UTF-8 bytes).
    public let name: String
    /// What the field holds and how it is quantized.
    public let kind: FieldKind

    /// Creates a field.
    ///
    /// - Parameters:
    ///   - name: The name, unique within its type.
    ///   - kind: What the field holds.
    public init(_ name: String, _ kind: FieldKind) {
        self.name = name
        self.kind = kind
    }
}

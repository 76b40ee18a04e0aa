/// A field resolved once from a ``Schema`` by its name, read as `Value` from an entity of any
/// type that declares it: the name is looked up when the key is made, never per frame.
///
/// ```swift
/// let x = try schema.key("x", as: Double.self)
/// let hp = try schema.key("hp", as: Int.self)
/// let alive = try schema.key("alive", as: Bool.self)
/// // every frame, for an `EntityView` (TickwireSim):
/// let health = entity[hp] ?? 0
/// ```
///
/// Made by ``Schema/key(_:of:as:)``, which checks that every type declaring the field declares
/// it with a kind `Value` can read (``FieldValue/canRead(_:)``).
public struct FieldKey<Value: FieldValue>: Hashable, Sendable {
    /// The field's name.
    public let name: String
    /// The field's index in each entity type of the schema (by type index), or `-1` where the
    /// type does not declare it.
    let indices: [Int]

    /// The field's index among the fields of the entity type at `typeIndex`.
    ///
    /// - Parameter typeIndex: An entity type's index in the schema the key was made from.
    /// - Returns: The field's index, or `nil` when that type does not declare the field.
    public func fieldIndex(inType typeIndex: Int) -> Int? {
        guard typeIndex >= 0, typeIndex < indices.count, indices[typeIndex] >= 0 else { return nil }
        return indices[typeIndex]
    }

    /// Reads the field from one entity's values (in schema order).
    ///
    /// - Parameters:
    ///   - values: The entity's field values, in its type's field order.
    ///   - typeIndex: The entity's type index.
    /// - Returns: The value, or `nil` when the entity's type does not declare the field.
    public func read(from values: [Double], typeIndex: Int) -> Value? {
        guard let index = fieldIndex(inType: typeIndex), index < values.count else { return nil }
        return Value(fieldValue: values[index])
    }
}

extension Schema {
    /// A typed key for the field called `name`, resolved once (see ``FieldKey``).
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - type: The entity type to look in, or `nil` for every type that declares the field.
    ///   - valueType: What to read the field as: `Double` (any kind), `Int` (integers and
    ///     enumerations) or `Bool` (booleans).
    /// - Returns: The key.
    /// - Throws: ``FieldLookupError`` when there is no entity type called `type`, no type
    ///   declares the field, or one that does declares it with a kind `valueType` cannot read.
    public func key<Value: FieldValue>(
        _ name: String, of type: String? = nil, as valueType: Value.Type = Double.self
    ) throws(FieldLookupError) -> FieldKey<Value> {
        if let type, typeIndex(named: type) == nil {
            throw FieldLookupError(.unknownType(type, known: entityTypes.map(\.name)))
        }
        var indices = [Int](repeating: -1, count: entityTypes.count)
        var found = false
        for (typeIndex, entityType) in entityTypes.enumerated() where type == nil || entityType.name == type {
            guard let fieldIndex = entityType.fieldIndex(named: name) else { continue }
            let kind = entityType.fields[fieldIndex].kind
            guard Value.canRead(kind) else {
                throw FieldLookupError(.wrongKind(field: name, type: entityType.name, kind: kind, requested: Value.fieldValueTypeName))
            }
            indices[typeIndex] = fieldIndex
            found = true
        }
        guard found else {
            let types = type.map { [$0] } ?? entityTypes.map(\.name)
            let known = entityTypes.filter { types.contains($0.name) }.flatMap { $0.fields.map(\.name) }
            throw FieldLookupError(.unknownField(name, types: types, known: known))
        }
        return FieldKey(name: name, indices: indices)
    }
}

/// One entity's id, type and quantized field values, outside any ``Snapshot``: what a client
/// reads of its own player's entity every render frame, without capturing the whole world.
///
/// Setters and getters quantize and dequantize exactly as ``Snapshot``'s do
/// (``Snapshot/set(_:at:field:)``, ``Snapshot/double(at:field:)``), so a game that writes an
/// entity here with the calls its capture makes gets the values a snapshot would hold.
/// ``reset(id:type:)`` keeps the storage: refilling a reused entity allocates nothing.
/// Text fields hold no text here (their quantized value is 0): read them from the ``Snapshot``.
public struct QuantizedEntity: Sendable {
    /// The schema the entity follows.
    public let schema: Schema
    /// The entity's id.
    public private(set) var id: UInt32 = 0
    /// The index of its type in ``Schema/entityTypes``.
    public private(set) var typeIndex = 0
    /// The quantized values of its type's fields, in schema order.
    private var values: [UInt64]

    /// Creates entity 0 of type 0 with every field at quantized value 0 (no fields when the
    /// schema has no types), with room for the widest type's fields.
    ///
    /// - Parameter schema: The schema the entity follows.
    public init(schema: Schema) {
        self.schema = schema
        values = []
        values.reserveCapacity(schema.widestFieldCount)
        if let first = schema.layouts.first { values.append(contentsOf: repeatElement(0, count: first.fieldCount)) }
    }

    /// The number of fields of the entity's type.
    public var fieldCount: Int { values.count }

    /// Makes this entity `id` of type `type`, with every field at quantized value 0 (as
    /// ``Snapshot/insert(id:type:)`` adds one), keeping the storage.
    ///
    /// - Parameters:
    ///   - id: The entity's id.
    ///   - type: Its type index in ``Schema/entityTypes``.
    /// - Throws: ``SnapshotError`` when the schema has no type `type`.
    public mutating func reset(id: UInt32, type: Int) throws(SnapshotError) {
        guard type >= 0 && type < schema.layouts.count else {
            throw SnapshotError(.unknownEntityType(type, typeCount: schema.layouts.count))
        }
        self.id = id
        typeIndex = type
        values.removeAll(keepingCapacity: true)
        values.append(contentsOf: repeatElement(0, count: schema.layouts[type].fieldCount))
    }

    /// Makes this a copy of the entity at `index` of `snapshot` (which must follow the same schema).
    ///
    /// - Parameters:
    ///   - index: An index in the snapshot's ``Snapshot/indices``.
    ///   - snapshot: The snapshot.
    public mutating func copy(entityAt index: Int, from snapshot: Snapshot) {
        precondition(snapshot.schema.fingerprint == schema.fingerprint, "the snapshot follows another schema")
        id = snapshot.id(at: index)
        typeIndex = snapshot.typeIndex(at: index)
        let start = Int(snapshot.offsets[index])
        values.removeAll(keepingCapacity: true)
        values.append(contentsOf: snapshot.values[start..<start + schema.layouts[typeIndex].fieldCount])
    }

    /// The quantized value of field `field`.
    ///
    /// - Parameter field: A field index of the entity's type.
    /// - Returns: The quantized value.
    public func value(field: Int) -> UInt64 { values[field] }

    /// Sets the quantized value of field `field`.
    ///
    /// - Parameters:
    ///   - quantized: The value; clamped to the field's largest quantized value.
    ///   - field: A field index of the entity's type.
    public mutating func setValue(_ quantized: UInt64, field: Int) {
        // A text field's quantized value is always 0; its text lives in a Snapshot only.
        let layout = schema.layouts[typeIndex].fields[field]
        values[field] = layout.deltaMode == .text ? 0 : min(quantized, layout.maxQuantized)
    }

    /// The value of a field as a number (see ``FieldKind/dequantize(_:)``).
    ///
    /// - Parameter field: A field index of the entity's type.
    /// - Returns: The dequantized value.
    public func double(field: Int) -> Double {
        kind(field: field).dequantize(values[field])
    }

    /// Quantizes and sets a field (see ``FieldKind/quantize(_:)``).
    ///
    /// - Parameters:
    ///   - value: The number; clamped into the field's range.
    ///   - field: A field index of the entity's type.
    public mutating func set(_ value: Double, field: Int) {
        setValue(kind(field: field).quantize(value), field: field)
    }

    /// The value of an integer, enumeration or boolean field as an integer.
    ///
    /// - Parameter field: A field index of the entity's type.
    /// - Returns: The value (the quantized value mapped back into the field's range).
    public func integer(field: Int) -> Int64 {
        kind(field: field).dequantizeInteger(values[field])
    }

    /// Sets an integer, enumeration or boolean field from an integer.
    ///
    /// - Parameters:
    ///   - value: The value; clamped into the field's range.
    ///   - field: A field index of the entity's type.
    public mutating func set(integer value: Int64, field: Int) {
        setValue(kind(field: field).quantize(integer: value), field: field)
    }

    /// The kind of field `field`.
    ///
    /// - Parameter field: A field index of the entity's type.
    /// - Returns: The field's kind.
    public func kind(field: Int) -> FieldKind {
        schema.entityTypes[typeIndex].fields[field].kind
    }
}

extension QuantizedEntity: Equatable {
    /// Entities are equal when they follow the same schema and have the same id, type and values.
    public static func == (lhs: QuantizedEntity, rhs: QuantizedEntity) -> Bool {
        lhs.schema.fingerprint == rhs.schema.fingerprint && lhs.id == rhs.id && lhs.typeIndex == rhs.typeIndex
            && lhs.values == rhs.values
    }
}

import TickwireCodec

/// One entity as a client shows it: its id, type and field values in game units
/// (dequantized, then interpolated or extrapolated).
public struct EntityView: Hashable, Sendable {
    /// The entity's id.
    public var id: UInt32
    /// The index of its type in the schema.
    public var typeIndex: Int
    /// Its field values, in schema order, all as `Double`s; read one by name, with its own
    /// type, through a ``FieldKey`` (``subscript(_:)``) or ``value(_:as:in:)``.
    public var values: [Double]
    /// Its text fields' strings (``FieldKind/text(maxBytes:)``, protocol 1.2) by field index;
    /// empty for a type without text fields (whose ``values`` hold 0 for them). Texts interpolate
    /// by step, as enumerations do.
    public var texts: [Int: String]

    /// Creates an entity view.
    ///
    /// - Parameters:
    ///   - id: The entity's id.
    ///   - typeIndex: Its type's index in the schema.
    ///   - values: Its field values, in schema order.
    ///   - texts: Its text fields' strings, by field index.
    public init(id: UInt32, typeIndex: Int, values: [Double], texts: [Int: String] = [:]) {
        self.id = id
        self.typeIndex = typeIndex
        self.values = values
        self.texts = texts
    }

    /// The string of text field `field` (empty when it is empty, or not a text field).
    ///
    /// - Parameter field: A field index of the entity's type.
    /// - Returns: The text.
    public func text(field: Int) -> String { texts[field] ?? "" }

    /// The texts of the entity at `index` of `snapshot`, by field index (empty when its type has none).
    static func texts(of snapshot: Snapshot, at index: Int) -> [Int: String] {
        var mask = snapshot.schema.textFieldMask(ofType: snapshot.typeIndex(at: index))
        guard mask != 0 else { return [:] }
        var texts: [Int: String] = [:]
        while mask != 0 {
            let field = mask.trailingZeroBitCount
            texts[field] = snapshot.text(at: index, field: field)
            mask &= mask - 1
        }
        return texts
    }

    /// The field `key` names, as its type: `Int` for integers, `Bool` for booleans, `Double`
    /// for any kind. O(1): the name was resolved when the key was made.
    ///
    /// - Parameter key: A key made once from the game's schema (``Schema/key(_:of:as:)``).
    /// - Returns: The value, or `nil` when this entity's type does not declare the field.
    public subscript<Value: FieldValue>(key: FieldKey<Value>) -> Value? {
        key.read(from: values, typeIndex: typeIndex)
    }

    /// The field called `name`, looked up in `schema` now: for a one-off read; in a frame loop,
    /// make a ``FieldKey`` once and use ``subscript(_:)``.
    ///
    /// - Parameters:
    ///   - name: The field's name.
    ///   - valueType: What to read it as: `Double` (any kind), `Int` (integers and
    ///     enumerations) or `Bool` (booleans).
    ///   - schema: The game's schema (the one the view was made with).
    /// - Returns: The value.
    /// - Throws: ``FieldLookupError`` when this entity's type has no such field or declares it
    ///   with a kind `valueType` cannot read.
    public func value<Value: FieldValue>(
        _ name: String, as valueType: Value.Type = Double.self, in schema: Schema
    ) throws(FieldLookupError) -> Value {
        let typeName = typeIndex >= 0 && typeIndex < schema.entityTypes.count ? schema.entityTypes[typeIndex].name : "#\(typeIndex)"
        let key = try schema.key(name, of: typeName, as: valueType)
        guard let value = key.read(from: values, typeIndex: typeIndex) else {
            throw FieldLookupError.missingValue(field: name, type: typeName, count: values.count)
        }
        return value
    }
}

/// The world as a client shows it at one render time: the entities sorted by id.
public struct WorldView: Sendable {
    /// The render time on the server's timeline (seconds).
    public var time: Double
    /// The entities, sorted by id.
    public var entities: [EntityView]
    /// Whether the view runs past the newest snapshot (the buffer was starved).
    public var isExtrapolated: Bool

    /// Creates a view.
    ///
    /// - Parameters:
    ///   - time: The render time.
    ///   - entities: The entities, sorted by id.
    ///   - isExtrapolated: Whether the view runs past the newest snapshot.
    public init(time: Double, entities: [EntityView], isExtrapolated: Bool = false) {
        self.time = time
        self.entities = entities
        self.isExtrapolated = isExtrapolated
    }

    /// The entity with `id`, if the view holds it (binary search).
    ///
    /// - Parameter id: The entity id.
    /// - Returns: The entity, or `nil`.
    public func entity(id: UInt32) -> EntityView? {
        let low = insertionIndex(of: id)
        return low < entities.count && entities[low].id == id ? entities[low] : nil
    }

    /// The first index whose entity's id is not below `id` (binary search): where the entity
    /// with `id` is, or would be inserted.
    func insertionIndex(of id: UInt32) -> Int {
        var low = 0, high = entities.count
        while low < high {
            let middle = (low + high) / 2
            if entities[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The view of one snapshot as it stands: every entity dequantized.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - time: The time to label the view with.
    public init(snapshot: Snapshot, time: Double) {
        var entities: [EntityView] = []
        entities.reserveCapacity(snapshot.count)
        for index in snapshot.indices {
            let type = snapshot.typeIndex(at: index)
            let fieldCount = snapshot.schema.entityTypes[type].fields.count
            entities.append(
                EntityView(
                    id: snapshot.id(at: index), typeIndex: type,
                    values: (0..<fieldCount).map { snapshot.double(at: index, field: $0) },
                    texts: EntityView.texts(of: snapshot, at: index)))
        }
        self.init(time: time, entities: entities)
    }
}

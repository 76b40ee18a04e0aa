/// The entity types a game declares, validated, with a stable fingerprint.
///
/// A server and a client must use equal schemas; compare ``fingerprint``s to tell (the
/// fingerprint is a 64-bit FNV-1a hash of ``canonicalEncoding()``, see `Protocol/PROTOCOL.md` §3.4).
///
/// ```swift
/// let schema = try Schema([
///     EntityType("ship", fields: [
///         Field("x", .float(min: -512, max: 512, resolution: 1.0 / 64)),
///         Field("heading", .angle(bits: 10)),
///         Field("health", .integer(min: 0, max: 100)),
///     ]),
/// ])
/// ```
public struct Schema: Hashable, Sendable {
    /// The most entity types a schema may declare.
    public static let maxEntityTypes = 256
    /// The most fields an entity type may declare.
    public static let maxFieldsPerType = 64
    /// The longest type or field name, in UTF-8 bytes.
    public static let maxNameLength = 255
    /// The widest quantized float, in bits.
    public static let maxFloatBits = 32
    /// The most cases of an enumeration field.
    public static let maxEnumerationCases = 256
    /// The largest `maxBytes` of a text field (``FieldKind/text(maxBytes:)``), in UTF-8 bytes.
    public static let maxTextBytes = 64

    /// The entity types, in declaration order (their index is the type index on the wire).
    public let entityTypes: [EntityType]
    /// A 64-bit FNV-1a hash of ``canonicalEncoding()``.
    public let fingerprint: UInt64

    /// Precomputed per-type field layouts for the codec's hot paths.
    let layouts: [TypeLayout]
    /// Every type's field layouts in one array: type `t` has `flatFields[fieldStarts[t] ..< fieldStarts[t + 1]]`.
    let flatFields: [TypeLayout.FieldLayout]
    /// Where each type's fields start in ``flatFields``, plus the total at the end.
    let fieldStarts: [Int]
    /// Bits of an entity type index on the wire.
    let typeIndexBits: Int
    /// Whether any type has a text field: when not, the coders never look at texts.
    let hasTextFields: Bool

    /// The text fields of type `type` as a field mask (bit `f` for field `f`), 0 for a type without them.
    package func textFieldMask(ofType type: Int) -> UInt64 { layouts[type].textFields }

    /// Whether any field of the schema is a text (``FieldKind/text(maxBytes:)``): such a schema
    /// needs protocol 1.2, and a host refuses a client whose hello does not offer text fields.
    public var needsTextFields: Bool { hasTextFields }

    /// The most fields any entity type has.
    var widestFieldCount: Int {
        var widest = 0
        for layout in layouts { widest = max(widest, layout.fieldCount) }
        return widest
    }

    /// The same schema in new storage: equal to this one, sharing none of its buffers, so that
    /// threads using the two copies never touch the same reference count.
    ///
    /// - Returns: The copy.
    package func privateCopy() -> Schema {
        (try? Schema(entityTypes.map { $0 })) ?? self  // a schema this one's types made cannot fail again
    }

    /// Validates and creates a schema.
    ///
    /// - Parameter entityTypes: The types, in wire order.
    /// - Throws: ``SchemaError`` when a limit is passed, a name is empty, too long or repeated,
    ///   or a field kind has invalid parameters.
    public init(_ entityTypes: [EntityType]) throws(SchemaError) {
        guard !entityTypes.isEmpty else { throw SchemaError(.noEntityTypes) }
        guard entityTypes.count <= Schema.maxEntityTypes else {
            throw SchemaError(.tooManyEntityTypes(count: entityTypes.count, limit: Schema.maxEntityTypes))
        }
        var typeNames = Set<String>()
        for type in entityTypes {
            try Schema.checkName(type.name)
            guard typeNames.insert(type.name).inserted else { throw SchemaError(.duplicateTypeName(type.name)) }
            guard type.fields.count <= Schema.maxFieldsPerType else {
                throw SchemaError(.tooManyFields(type: type.name, count: type.fields.count, limit: Schema.maxFieldsPerType))
            }
            var fieldNames = Set<String>()
            for field in type.fields {
                try Schema.checkName(field.name)
                guard fieldNames.insert(field.name).inserted else {
                    throw SchemaError(.duplicateFieldName(type: type.name, field: field.name))
                }
                if let why = Schema.problem(with: field.kind) {
                    throw SchemaError(.invalidKind(type: type.name, field: field.name, kind: field.kind, why: why))
                }
            }
        }
        self.entityTypes = entityTypes
        self.layouts = entityTypes.map(TypeLayout.init)
        self.flatFields = layouts.flatMap(\.fields)
        self.fieldStarts = layouts.reduce(into: [0]) { starts, layout in starts.append((starts.last ?? 0) + layout.fieldCount) }
        self.typeIndexBits = BitWriter.bitWidth(ofMaximum: UInt64(entityTypes.count - 1))
        self.hasTextFields = layouts.contains { $0.textFields != 0 }
        self.fingerprint = Schema.fnv1a64(Schema.canonicalEncoding(of: entityTypes))
    }

    /// The index of the entity type called `name`.
    ///
    /// - Parameter name: A type name.
    /// - Returns: Its index, or `nil` when the schema has no such type.
    public func typeIndex(named name: String) -> Int? {
        entityTypes.firstIndex { $0.name == name }
    }

    /// The byte encoding the fingerprint hashes (`Protocol/PROTOCOL.md` §3.4).
    ///
    /// - Returns: Version byte 1, then the types with their fields and kind parameters.
    public func canonicalEncoding() -> [UInt8] {
        Schema.canonicalEncoding(of: entityTypes)
    }

    /// Schemas are equal when they declare the same types and fields (hence the same fingerprint).
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.fingerprint == rhs.fingerprint && lhs.entityTypes == rhs.entityTypes
    }

    /// Hashes the fingerprint.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fingerprint)
    }

    private static func checkName(_ name: String) throws(SchemaError) {
        let length = name.utf8.count
        guard length >= 1 && length <= maxNameLength else { throw SchemaError(.badName(name, limit: maxNameLength)) }
    }

    /// Why a kind's parameters are invalid, or `nil` when they are fine.
    static func problem(with kind: FieldKind) -> String? {
        switch kind.storage {
        case .bool:
            return nil
        case let .integer(min, max):
            return min <= max ? nil : "min \(min) is above max \(max)"
        case let .float(min, max, resolution):
            guard min.isFinite, max.isFinite, resolution.isFinite else { return "min, max and resolution must be finite" }
            guard min < max else { return "min \(min) must be below max \(max)" }
            guard resolution > 0 else { return "resolution \(resolution) must be above 0" }
            let steps = ((max - min) / resolution - 1e-9).rounded(.up)
            guard steps.isFinite, steps <= 4_294_967_295 else {
                return "needs more than \(maxFloatBits) bits; raise the resolution or narrow the range"
            }
            return nil
        case let .angle(bits):
            return (1...32).contains(bits) ? nil : "bits \(bits) must be in 1...32"
        case let .enumeration(cases):
            return (1...maxEnumerationCases).contains(cases) ? nil : "cases \(cases) must be in 1...\(maxEnumerationCases)"
        case let .text(maxBytes):
            return (1...maxTextBytes).contains(maxBytes) ? nil : "maxBytes \(maxBytes) must be in 1...\(maxTextBytes)"
        }
    }
}

/// The quantities the codec needs per field of one entity type.
struct TypeLayout: Hashable, Sendable {
    /// How a changed field value may be sent (`Protocol/PROTOCOL.md` §4.5).
    /// `text` marks a text field (§3.2): its `q` is always 0, its bytes travel beside it.
    enum DeltaMode: UInt8, Hashable, Sendable {
        case none, linear, wrapping, text
    }

    /// One field's width, largest quantized value and delta mode; for a text field, `width` is
    /// the bits of its length and `maxQuantized` its largest length in bytes (its `q` is 0).
    struct FieldLayout: Hashable, Sendable {
        var width: Int
        var maxQuantized: UInt64
        var deltaMode: DeltaMode
    }

    var fields: [FieldLayout]
    /// Bit `f` set when field `f` is a text.
    var textFields: UInt64 = 0

    var fieldCount: Int { fields.count }

    init(_ type: EntityType) {
        fields = type.fields.map { field in
            if let maxBytes = field.kind.maxTextBytes {
                return FieldLayout(width: BitWriter.bitWidth(ofMaximum: UInt64(maxBytes)), maxQuantized: UInt64(maxBytes), deltaMode: .text)
            }
            let mode: DeltaMode = !field.kind.allowsDelta ? .none : (field.kind.wrapsAround ? .wrapping : .linear)
            return FieldLayout(width: field.kind.bitWidth, maxQuantized: field.kind.maxQuantized, deltaMode: mode)
        }
        for (index, field) in type.fields.enumerated() where field.kind.maxTextBytes != nil {
            textFields |= 1 << UInt64(index)
        }
    }
}

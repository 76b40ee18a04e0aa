/// Why ``Schema/key(_:of:as:)`` could not make a ``FieldKey``: no such entity type, no such
/// field, or a field of a kind the requested Swift type cannot hold.
public struct FieldLookupError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case unknownType(String, known: [String])
        case unknownField(String, types: [String], known: [String])
        case wrongKind(field: String, type: String, kind: FieldKind, requested: String)
        case missingValue(field: String, type: String, count: Int)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// An entity of `type` holds only `count` values, too few for the field (a view made by
    /// hand, not from the schema).
    package static func missingValue(field: String, type: String, count: Int) -> FieldLookupError {
        FieldLookupError(.missingValue(field: field, type: type, count: count))
    }

    /// Whether no field (or entity type) of that name exists, as opposed to a kind mismatch.
    public var isUnknownName: Bool {
        switch reason {
        case .unknownType, .unknownField: true
        case .wrongKind, .missingValue: false
        }
    }

    /// What is wrong, naming the field, its type and kind, and the names that do exist.
    public var description: String {
        let list = { (names: [String]) in names.isEmpty ? "none" : names.map { "'\($0)'" }.joined(separator: ", ") }
        switch reason {
        case let .unknownType(name, known):
            return "the schema has no entity type '\(name)' (its types: \(list(known)))"
        case let .unknownField(name, types, known):
            return "no field '\(name)' in entity type\(types.count == 1 ? "" : "s") \(list(types)) (fields: \(list(known)))"
        case let .wrongKind(field, type, kind, requested):
            let fits = kind == .bool ? "Bool or Double" : (Int.canRead(kind) ? "Int or Double" : "Double")
            return "field '\(field)' of '\(type)' is \(kind) and cannot be read as \(requested); read it as \(fits)"
        case let .missingValue(field, type, count):
            return "the entity of type '\(type)' holds \(count) values, too few for its field '\(field)'"
        }
    }
}

/// Why a ``Schema`` declaration was rejected.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case noEntityTypes
        case tooManyEntityTypes(count: Int, limit: Int)
        case tooManyFields(type: String, count: Int, limit: Int)
        case badName(String, limit: Int)
        case duplicateTypeName(String)
        case duplicateFieldName(type: String, field: String)
        case invalidKind(type: String, field: String, kind: FieldKind, why: String)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What is wrong with the declaration, naming the type, field and limit.
    public var description: String {
        switch reason {
        case .noEntityTypes:
            "a schema needs at least one entity type"
        case let .tooManyEntityTypes(count, limit):
            "\(count) entity types exceed the limit of \(limit)"
        case let .tooManyFields(type, count, limit):
            "entity type '\(type)' has \(count) fields, more than the limit of \(limit)"
        case let .badName(name, limit):
            "name '\(name)' must be 1...\(limit) UTF-8 bytes long"
        case let .duplicateTypeName(name):
            "two entity types are called '\(name)'"
        case let .duplicateFieldName(type, field):
            "entity type '\(type)' has two fields called '\(field)'"
        case let .invalidKind(type, field, kind, why):
            "field '\(field)' of '\(type)' is \(kind): \(why)"
        }
    }
}

import Testing

@testable import TickwireCodec

@Suite("FieldKey")
struct FieldKeyTests {
    /// Two types sharing `x`; `ship` has an integer, a boolean, an enumeration and an angle too.
    static let schema = try! Schema([
        EntityType(
            "ship",
            fields: [
                Field("x", .float(min: -100, max: 100, resolution: 0.5)), Field("hp", .integer(min: -10, max: 100)),
                Field("alive", .bool), Field("team", .enumeration(cases: 4)), Field("heading", .angle(bits: 8)),
            ]),
        EntityType("rock", fields: [Field("size", .integer(min: 1, max: 3)), Field("x", .float(min: -100, max: 100, resolution: 0.5))]),
    ])

    @Test("a key resolves the field's index in every type that declares it, once")
    func indices() throws {
        let x = try Self.schema.key("x", as: Double.self)
        #expect(x.fieldIndex(inType: 0) == 0 && x.fieldIndex(inType: 1) == 1, "x is field 0 of ship and field 1 of rock")
        let hp = try Self.schema.key("hp", as: Int.self)
        #expect(hp.fieldIndex(inType: 0) == 1 && hp.fieldIndex(inType: 1) == nil, "rock has no hp")
        #expect(hp.fieldIndex(inType: 7) == nil && hp.fieldIndex(inType: -1) == nil, "a type index outside the schema has no field")
        let rockX = try Self.schema.key("x", of: "rock", as: Double.self)
        #expect(rockX.fieldIndex(inType: 0) == nil && rockX.fieldIndex(inType: 1) == 1, "a key of one type ignores the others")
    }

    @Test("values read as the field's own type: integers rounded, booleans as Bool, enumerations as their index")
    func reading() throws {
        let values = [12.5, 41.6, 1, 3, 1.5]
        #expect(try Self.schema.key("x", as: Double.self).read(from: values, typeIndex: 0) == 12.5)
        #expect(try Self.schema.key("hp", as: Int.self).read(from: values, typeIndex: 0) == 42, "an interpolated 41.6 rounds to 42")
        #expect(try Self.schema.key("alive", as: Bool.self).read(from: values, typeIndex: 0) == true)
        #expect(try Self.schema.key("alive", as: Bool.self).read(from: [0, 0, 0, 0, 0], typeIndex: 0) == false)
        #expect(try Self.schema.key("team", as: Int.self).read(from: values, typeIndex: 0) == 3)
        #expect(try Self.schema.key("hp", as: Int.self).read(from: [2, 7], typeIndex: 1) == nil, "a rock has no hp")
        #expect(try Self.schema.key("hp", as: Double.self).read(from: [1, 2], typeIndex: 0) == 2, "every kind reads as a Double")
    }

    @Test("Int clamps values beyond its range instead of trapping")
    func intRange() {
        #expect(Int(fieldValue: 1e300) == .max && Int(fieldValue: -1e300) == .min && Int(fieldValue: .nan) == 0)
        #expect(Int(fieldValue: -2.5) == -3 && Int(fieldValue: 2.4) == 2)
    }

    @Test(
        "unknown names and kinds a type cannot hold are typed errors that name the field, the kind and what would fit",
        arguments: [
            ("nope", nil, "Double", "no field 'nope'"),
            ("x", "planet", "Double", "no entity type 'planet'"),
            ("hp", "rock", "Int", "no field 'hp' in entity type 'rock' (fields: 'size', 'x')"),
            ("x", nil, "Int", "field 'x' of 'ship' is float(-100.0...100.0 by 0.5) and cannot be read as Int; read it as Double"),
            ("hp", nil, "Bool", "cannot be read as Bool; read it as Int or Double"),
            ("alive", nil, "Int", "cannot be read as Int; read it as Bool or Double"),
            ("heading", nil, "Int", "field 'heading' of 'ship' is angle(8 bits)"),
        ] as [(String, String?, String, String)])
    func errors(name: String, type: String?, valueType: String, words: String) {
        let error: FieldLookupError?
        switch valueType {
        case "Int": error = #expect(throws: FieldLookupError.self) { _ = try Self.schema.key(name, of: type, as: Int.self) }
        case "Bool": error = #expect(throws: FieldLookupError.self) { _ = try Self.schema.key(name, of: type, as: Bool.self) }
        default: error = #expect(throws: FieldLookupError.self) { _ = try Self.schema.key(name, of: type, as: Double.self) }
        }
        #expect(error?.description.contains(words) == true, "'\(error?.description ?? "no error")' should say '\(words)'")
        #expect(error?.isUnknownName == words.hasPrefix("no "), "isUnknownName tells a missing name from a kind mismatch")
    }
}

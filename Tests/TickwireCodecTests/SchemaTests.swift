import Testing

@testable import TickwireCodec

@Suite("Schema")
struct SchemaTests {
    static func fields(_ count: Int) -> [Field] {
        (0..<count).map { Field("f\($0)", .bool) }
    }

    @Test("entity types: 256 (the limit) accepted, 257 rejected")
    func entityTypeLimit() throws {
        let types = (0...Schema.maxEntityTypes).map { EntityType("t\($0)", fields: []) }
        let schema = try Schema(Array(types.prefix(Schema.maxEntityTypes)))
        #expect(schema.entityTypes.count == 256)
        #expect(throws: SchemaError.self, "257 types pass the limit") { try Schema(types) }
    }

    @Test("fields per type: 64 (the limit) accepted, 65 rejected")
    func fieldLimit() throws {
        _ = try Schema([EntityType("t", fields: Self.fields(Schema.maxFieldsPerType))])
        #expect(throws: SchemaError.self) { try Schema([EntityType("t", fields: Self.fields(Schema.maxFieldsPerType + 1))]) }
    }

    @Test("names: 1...255 UTF-8 bytes, unique")
    func names() throws {
        _ = try Schema([EntityType(String(repeating: "n", count: 255), fields: [Field(String(repeating: "é", count: 127), .bool)])])
        #expect(throws: SchemaError.self) { try Schema([EntityType(String(repeating: "n", count: 256), fields: [])]) }
        #expect(throws: SchemaError.self) { try Schema([EntityType("", fields: [])]) }
        #expect(throws: SchemaError.self) { try Schema([EntityType("a", fields: []), EntityType("a", fields: [])]) }
        #expect(throws: SchemaError.self) { try Schema([EntityType("a", fields: [Field("x", .bool), Field("x", .bool)])]) }
        #expect(throws: SchemaError.self) { try Schema([]) }
    }

    @Test("kind parameters are checked, each at its limit and one past it")
    func kindLimits() throws {
        func schema(_ kind: FieldKind) throws -> Schema { try Schema([EntityType("t", fields: [Field("f", kind)])]) }
        _ = try schema(.integer(min: 5, max: 5))
        #expect(throws: SchemaError.self) { try schema(.integer(min: 5, max: 4)) }
        _ = try schema(.integer(min: .min, max: .max))
        _ = try schema(.float(min: 0, max: 4_294_967_295, resolution: 1))
        #expect(throws: SchemaError.self, "2^32 steps need 33 bits") { try schema(.float(min: 0, max: 4_294_967_296, resolution: 1)) }
        #expect(throws: SchemaError.self) { try schema(.float(min: 1, max: 1, resolution: 1)) }
        #expect(throws: SchemaError.self) { try schema(.float(min: 0, max: 1, resolution: 0)) }
        #expect(throws: SchemaError.self) { try schema(.float(min: 0, max: .infinity, resolution: 1)) }
        #expect(throws: SchemaError.self) { try schema(.float(min: .nan, max: 1, resolution: 1)) }
        _ = try schema(.angle(bits: 1))
        _ = try schema(.angle(bits: 32))
        #expect(throws: SchemaError.self) { try schema(.angle(bits: 0)) }
        #expect(throws: SchemaError.self) { try schema(.angle(bits: 33)) }
        _ = try schema(.enumeration(cases: 1))
        _ = try schema(.enumeration(cases: 256))
        #expect(throws: SchemaError.self) { try schema(.enumeration(cases: 0)) }
        #expect(throws: SchemaError.self) { try schema(.enumeration(cases: 257)) }
    }

    @Test("bit widths: exactly what the range needs")
    func widths() {
        #expect(FieldKind.bool.bitWidth == 1)
        #expect(FieldKind.integer(min: 0, max: 100).bitWidth == 7)
        #expect(FieldKind.integer(min: -1, max: 0).bitWidth == 1)
        #expect(FieldKind.integer(min: 3, max: 3).bitWidth == 0)
        #expect(FieldKind.integer(min: .min, max: .max).bitWidth == 64)
        #expect(FieldKind.float(min: -512, max: 512 - 1.0 / 64, resolution: 1.0 / 64).bitWidth == 16)
        #expect(FieldKind.float(min: 0, max: 1, resolution: 0.1).maxQuantized == 10)
        #expect(FieldKind.angle(bits: 10).bitWidth == 10)
        #expect(FieldKind.enumeration(cases: 8).bitWidth == 3)
        #expect(FieldKind.enumeration(cases: 1).bitWidth == 0)
    }

    @Test("canonical encoding and FNV-1a fingerprint match values computed by hand")
    func fingerprint() throws {
        let schema = try Schema([EntityType("a", fields: [Field("b", .integer(min: -1, max: 2)), Field("c", .angle(bits: 3))])])
        // 01 | 01 types | 01 'a' | 02 fields | 01 'b' 01 integer 01 (zigzag −1) 04 (zigzag 2) | 01 'c' 03 angle 03
        #expect(schema.canonicalEncoding() == [0x01, 0x01, 0x01, 0x61, 0x02, 0x01, 0x62, 0x01, 0x01, 0x04, 0x01, 0x63, 0x03, 0x03])
        // FNV-1a 64 of those 14 bytes, computed independently (Python, see PROTOCOL.md §3.4).
        #expect(schema.fingerprint == 0x1581_7A35_5B10_4356)
        #expect(TestSchemas.arena.fingerprint == 0x027B_EA4B_4C80_9BCF, "the arena fingerprint of PROTOCOL.md §8")
    }

    @Test("the fingerprint changes with any parameter and not otherwise")
    func fingerprintSensitivity() throws {
        func make(_ kind: FieldKind, name: String = "f") throws -> UInt64 {
            try Schema([EntityType("t", fields: [Field(name, kind)])]).fingerprint
        }
        let base = try make(.float(min: 0, max: 10, resolution: 0.5))
        #expect(try make(.float(min: 0, max: 10, resolution: 0.5)) == base)
        #expect(try make(.float(min: -0.0, max: 10, resolution: 0.5)) == base, "−0 and +0 hash the same")
        #expect(try make(.float(min: 0, max: 10, resolution: 0.25)) != base)
        #expect(try make(.float(min: 0, max: 11, resolution: 0.5)) != base)
        #expect(try make(.float(min: 0, max: 10, resolution: 0.5), name: "g") != base)
        #expect(try make(.integer(min: 0, max: 20)) != base)
    }

    @Test("a private copy is equal to its schema and shares none of its storage (rooms on tick threads hold one each)")
    func privateCopy() {
        let schema = TestSchemas.arena
        let copy = schema.privateCopy()
        #expect(copy == schema && copy.fingerprint == schema.fingerprint)
        func base<T>(_ array: [T]) -> UnsafeRawPointer? { array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        #expect(base(copy.entityTypes) != base(schema.entityTypes))
        #expect(base(copy.layouts) != base(schema.layouts))
        #expect(base(copy.flatFields) != base(schema.flatFields))
        #expect(base(copy.fieldStarts) != base(schema.fieldStarts))
    }
}

import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("QuantizedEntity")
struct QuantizedEntityTests {
    @Test("setters quantize, clamp and read back exactly as a snapshot's do, over random schemas and values")
    func matchesSnapshot() throws {
        var rng = SplitMix64(seed: 0x0E47_1771)
        for _ in 0..<200 {
            let schema = try TestSchemas.randomSchema(&rng)
            let type = Int(rng.next() % UInt64(schema.entityTypes.count))
            let id = UInt32(truncatingIfNeeded: rng.next())
            var snapshot = Snapshot(schema: schema, tick: 0)
            let index = try snapshot.insert(id: id, type: type)
            var entity = QuantizedEntity(schema: schema)
            try entity.reset(id: id, type: type)
            #expect(entity.fieldCount == schema.entityTypes[type].fields.count)
            for field in 0..<entity.fieldCount {
                switch rng.next() % 3 {
                case 0:
                    let value = Double(Int64(truncatingIfNeeded: rng.next()) % 4_000_000) / 1000
                    snapshot.set(value, at: index, field: field)
                    entity.set(value, field: field)
                case 1:
                    let value = Int64(truncatingIfNeeded: rng.next()) >> Int64(rng.next() % 64)
                    snapshot.set(integer: value, at: index, field: field)
                    entity.set(integer: value, field: field)
                default:
                    let value = rng.next()
                    snapshot.setValue(value, at: index, field: field)
                    entity.setValue(value, field: field)
                }
                #expect(entity.value(field: field) == snapshot.value(at: index, field: field), "field \(field) quantized differently")
                #expect(entity.double(field: field) == snapshot.double(at: index, field: field), "field \(field) read back differently")
                #expect(entity.integer(field: field) == snapshot.integer(at: index, field: field), "field \(field)'s integer differs")
            }
            var copied = QuantizedEntity(schema: schema)
            copied.copy(entityAt: index, from: snapshot)
            #expect(copied == entity, "the copy of the snapshot's entity equals the entity written alone")
        }
    }

    @Test("reset zeroes every field and changes type, reusing storage; an unknown type is refused")
    func reset() throws {
        var entity = QuantizedEntity(schema: TestSchemas.arena)
        try entity.reset(id: 7, type: 0)
        for field in 0..<entity.fieldCount { entity.setValue(1, field: field) }
        try entity.reset(id: 8, type: 0)
        #expect(entity.id == 8 && entity.typeIndex == 0)
        #expect((0..<entity.fieldCount).allSatisfy { entity.value(field: $0) == 0 }, "a reset entity starts at quantized 0")
        #expect(throws: SnapshotError.self) { try entity.reset(id: 9, type: 1) }
        #expect(throws: SnapshotError.self) { try entity.reset(id: 9, type: -1) }
        #expect(entity.id == 8, "a refused reset leaves the entity as it was")
    }

    @Test("copying picks the entity at an index out of a snapshot with removals (unpacked storage)")
    func copyFromUnpackedSnapshot() throws {
        var snapshot = Snapshot(schema: TestSchemas.arena, tick: 1)
        var rng = SplitMix64(seed: 3)
        for id in (1...100).reversed() {
            let index = try snapshot.insert(id: UInt32(id), type: 0)
            TestSchemas.randomize(&snapshot, at: index, &rng)
        }
        for id in stride(from: 1, through: 100, by: 3) { snapshot.remove(id: UInt32(id)) }
        var entity = QuantizedEntity(schema: TestSchemas.arena)
        for index in snapshot.indices {
            entity.copy(entityAt: index, from: snapshot)
            #expect(entity.id == snapshot.id(at: index))
            #expect(
                (0..<entity.fieldCount).allSatisfy { entity.value(field: $0) == snapshot.value(at: index, field: $0) },
                "entity \(entity.id)'s values were copied from its own slots")
        }
    }
}

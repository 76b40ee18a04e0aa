import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("Snapshot")
struct SnapshotTests {
    @Test("entities stay sorted by id whatever the insertion order; lookup and removal work")
    func sortedStorage() throws {
        var snapshot = Snapshot(schema: TestSchemas.arena, tick: 1)
        for id in [UInt32(50), 10, 30, 70, 20] {
            let index = try snapshot.insert(id: id, type: 0)
            snapshot.set(integer: Int64(id), at: index, field: 3)
        }
        #expect(snapshot.entityIDs == [10, 20, 30, 50, 70])
        for index in snapshot.indices {
            #expect(
                snapshot.integer(at: index, field: 3) == Int64(min(snapshot.id(at: index), 100)),
                "entity \(snapshot.id(at: index)) kept its own values through insertions")
        }
        #expect(snapshot.index(of: 30) == 2)
        #expect(snapshot.index(of: 31) == nil)
        let removed = snapshot.remove(id: 30), removedAgain = snapshot.remove(id: 30)
        #expect(removed, "entity 30 was there to remove")
        #expect(!removedAgain, "entity 30 is gone after removal")
        #expect(snapshot.entityIDs == [10, 20, 50, 70])
        #expect(snapshot.integer(at: snapshot.index(of: 50) ?? 0, field: 3) == 50)
    }

    @Test("a duplicate id or an unknown type is refused")
    func refusals() throws {
        var snapshot = Snapshot(schema: TestSchemas.arena, tick: 1)
        try snapshot.insert(id: 4, type: 0)
        #expect(throws: SnapshotError.self) { try snapshot.insert(id: 4, type: 0) }
        #expect(throws: SnapshotError.self) { try snapshot.insert(id: 5, type: 1) }
        #expect(throws: SnapshotError.self) { try snapshot.insert(id: 5, type: -1) }
    }

    @Test("setting a value clamps it to the field's range")
    func clamping() throws {
        var snapshot = Snapshot(schema: TestSchemas.arena, tick: 1)
        let index = try snapshot.insert(id: 1, type: 0)
        snapshot.setValue(.max, at: index, field: 3)
        #expect(snapshot.value(at: index, field: 3) == 100)
        snapshot.set(9999, at: index, field: 0)
        #expect(snapshot.value(at: index, field: 0) == 65_535)
    }

    @Test("equality ignores storage layout: removals and out-of-order inserts compare equal to a fresh build")
    func equalityIgnoresLayout() throws {
        var messy = Snapshot(schema: TestSchemas.arena, tick: 3)
        var rng = SplitMix64(seed: 9)
        for id in (0..<200).reversed() {
            let index = try messy.insert(id: UInt32(id), type: 0)
            messy.setValue(UInt64(id), at: index, field: 0)
        }
        for id in stride(from: 0, to: 200, by: 2) { messy.remove(id: UInt32(id)) }
        var clean = Snapshot(schema: TestSchemas.arena, tick: 3)
        for id in stride(from: 1, to: 200, by: 2) {
            let index = try clean.insert(id: UInt32(id), type: 0)
            clean.setValue(UInt64(id), at: index, field: 0)
        }
        #expect(messy == clean)
        let index = Int.random(in: clean.indices, using: &rng)
        clean.setValue(7777, at: index, field: 1)
        #expect(messy != clean, "a changed value makes them differ")
    }

    @Test("65536 entities (the limit) fit in a snapshot and round-trip; one more is refused")
    func entityLimit() throws {
        let schema = try Schema([EntityType("t", fields: [Field("f", .bool)])])
        var snapshot = Snapshot(schema: schema, tick: 0, capacity: CodecLimits.maxEntitiesPerSnapshot)
        for id in 0..<UInt32(CodecLimits.maxEntitiesPerSnapshot) { try snapshot.insert(id: id, type: 0) }
        #expect(snapshot.count == 65_536)
        #expect(throws: SnapshotError.self) { try snapshot.insert(id: 1_000_000, type: 0) }
        let codec = SnapshotCodec(schema: schema)
        let bytes = try codec.encode(snapshot, against: nil)
        #expect(try codec.decode(bytes, baseline: nil) == snapshot, "a snapshot at the entity limit round-trips")
    }
}

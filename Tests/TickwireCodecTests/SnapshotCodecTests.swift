import Testing
import TickwireCodec

@Suite("SnapshotCodec")
struct SnapshotCodecTests {
    @Test("a delta of a small arena round-trips")
    func smallRoundTrip() throws {
        let schema = TestSchemas.arena
        var base = Snapshot(schema: schema, tick: 10)
        for id in [UInt32(1), 5, 9] {
            let index = try base.insert(id: id, type: 0)
            base.set(Double(id), at: index, field: 0)
        }
        var next = base
        next.tick = 11
        next.set(3.5, at: 1, field: 0)
        next.remove(id: 9)
        try next.insert(id: 12, type: 0)
        let codec = SnapshotCodec(schema: schema)
        let full = try codec.encode(next, against: nil)
        #expect(try codec.decode(full, baseline: nil) == next, "a full snapshot decodes to itself")
        let delta = try codec.encode(next, against: base)
        #expect(try codec.decode(delta, baseline: base) == next, "a delta decodes to the snapshot it encodes")
        #expect(delta.count < full.count, "the delta (\(delta.count) B) is smaller than the full snapshot (\(full.count) B)")
    }

    /// A world of `count` arena entities with random positions, at `tick`.
    static func arenaWorld(count: Int, tick: UInt32, _ rng: inout SplitMix64) throws -> Snapshot {
        var world = Snapshot(schema: TestSchemas.arena, tick: tick, capacity: count)
        for id in 0..<UInt32(count) {
            let index = try world.insert(id: id + 1, type: 0)
            TestSchemas.randomize(&world, at: index, &rng)
        }
        return world
    }

    @Test("an unchanged world of 1000 entities costs at most 8 bytes, even at a large tick")
    func idleCost() throws {
        var rng = SplitMix64(seed: 1000)
        let base = try Self.arenaWorld(count: 1000, tick: 2_000_000, &rng)
        var next = base
        next.tick += 1
        let bytes = try SnapshotCodec(schema: TestSchemas.arena).encode(next, against: base)
        #expect(bytes.count <= 8, "an idle delta took \(bytes.count) bytes")
    }

    @Test("60 entities moving up to 26 steps in x and y cost at most 4 bytes each")
    func movingCost() throws {
        var rng = SplitMix64(seed: 60)
        let base = try Self.arenaWorld(count: 60, tick: 7, &rng)
        var next = base
        next.tick += 1
        for index in next.indices {
            for field in 0...1 {
                let step = Int64.random(in: -26...26, using: &rng)
                let old = Int64(next.value(at: index, field: field))
                next.setValue(UInt64(min(max(old + step, 0), 65_535)), at: index, field: field)
            }
        }
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let bytes = try codec.encode(next, against: base)
        #expect(Double(bytes.count) / 60 <= 4, "moving entities took \(Double(bytes.count) / 60) bytes each")
        #expect(try codec.decode(bytes, baseline: base) == next)
    }
}

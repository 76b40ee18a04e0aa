import Testing
import TickwireFoundation

@testable import TickwireCodec

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

    @Test(
        "decode(_:baseline:into:) decodes what decode(_:baseline:) does, one snapshot reused over random histories",
        arguments: 0..<12)
    func decodeIntoMatchesDecode(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0x1_4700 + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let snapshots = try DeltaPropertyTests.history(schema, steps: 30, &rng)
        var reused = Snapshot(schema: schema, tick: 0)
        for (position, snapshot) in snapshots.enumerated() {
            var baselines: [Snapshot?] = [nil]
            if position > 0 { baselines.append(snapshots[position - 1]) }
            if position > 0 { baselines.append(snapshots[Int.random(in: 0..<position, using: &rng)]) }
            for baseline in baselines {
                let bytes = try codec.encode(snapshot, against: baseline)
                try codec.decode(bytes, baseline: baseline, into: &reused)
                #expect(reused == snapshot, "seed \(seed) step \(position): decoding into a reused snapshot gave another snapshot")
                #expect(try codec.encode(reused, against: baseline) == bytes, "seed \(seed) step \(position): re-encoding differs")
            }
        }
    }

    @Test("created ids below the survivors' are merged in id order, and the result works as a baseline")
    func createdBelowSurvivors() throws {
        let schema = TestSchemas.arena
        var base = Snapshot(schema: schema, tick: 1)
        for id: UInt32 in [10, 20, 30] {
            let index = try base.insert(id: id, type: 0)
            base.set(integer: Int64(id), at: index, field: 3)
        }
        var next = base
        next.tick = 2
        for id: UInt32 in [5, 25, 40] {
            let index = try next.insert(id: id, type: 0)
            next.set(integer: Int64(id), at: index, field: 3)
        }
        next.set(integer: 99, at: try #require(next.index(of: 20)), field: 3)
        let codec = SnapshotCodec(schema: schema)
        let bytes = try codec.encode(next, against: base)
        var decoded = Snapshot(schema: schema, tick: 0)
        try codec.decode(bytes, baseline: base, into: &decoded)
        #expect(decoded.entityIDs == [5, 10, 20, 25, 30, 40], "the created ids are not merged in order: \(decoded.entityIDs)")
        #expect(decoded == next, "the merged snapshot differs from the encoded one")
        #expect(try codec.decode(bytes, baseline: base) == next, "decode(_:baseline:) differs from the encoded snapshot")

        // The merged snapshot serves as the next baseline (its value pool was repacked).
        var third = next
        third.tick = 3
        third.remove(id: 10)
        third.set(integer: 7, at: try #require(third.index(of: 40)), field: 3)
        let again = try codec.encode(third, against: decoded)
        #expect(try codec.decode(again, baseline: decoded) == third, "a delta against the merged snapshot does not round-trip")
    }

    @Test("a created id that survives is refused naming the first such id, and leaves the target empty")
    func duplicateCreatedNamesFirst() throws {
        let schema = try Schema([EntityType("t", fields: [Field("f", .bool)])])
        var base = Snapshot(schema: schema, tick: 4)
        for id: UInt32 in [2, 4] { try base.insert(id: id, type: 0) }
        var writer = BitWriter()
        writer.writeVarint(5); writer.write(true); writer.writeVarint(1)  // tick 5, baseline 4
        writer.write(false); writer.write(false)  // nothing destroyed or changed
        writer.write(true); writer.writeVarint(2)  // two created:
        writer.writeVarint(2); writer.write(false)  // id 2
        writer.writeVarint(1); writer.write(false)  // id 4
        var target = base
        do {
            try SnapshotCodec(schema: schema).decode(writer.bytes, baseline: base, into: &target)
            Issue.record("creating ids 2 and 4, which survive, was accepted")
        } catch {
            #expect(error.kind == .duplicateEntity, "expected duplicateEntity, got \(error)")
            #expect(error.description == "created entity 2 already exists", "the error should name id 2 first: \(error)")
        }
        #expect(target.isEmpty, "a failed decode should leave the target empty, it holds \(target.count) entities")
    }

    @Test("decoding into the very snapshot passed as the baseline gives the new snapshot")
    func decodeIntoBaselineItself() throws {
        var rng = SplitMix64(seed: 0xBA5E)
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let base = try Self.arenaWorld(count: 40, tick: 3, &rng)
        var next = base
        next.tick = 4
        for index in stride(from: 1, to: next.count, by: 2) { TestSchemas.randomize(&next, at: index, &rng) }
        next.remove(id: 7)
        try next.insert(id: 90, type: 0)
        let bytes = try codec.encode(next, against: base)
        var held = base
        try codec.decode(bytes, baseline: held, into: &held)
        #expect(held == next, "decoding over the baseline's own variable gave another snapshot")
    }

    @Test("decoding into a snapshot reuses its storage, and replaces one of another schema")
    func decodeIntoReusesStorage() throws {
        var rng = SplitMix64(seed: 0x5107)
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let base = try Self.arenaWorld(count: 100, tick: 40, &rng)
        var next = base
        next.tick = 41
        for index in stride(from: 0, to: next.count, by: 3) { TestSchemas.randomize(&next, at: index, &rng) }
        next.remove(id: 50)
        try next.insert(id: 500, type: 0)
        let bytes = try codec.encode(next, against: base)

        let other = try Schema([EntityType("t", fields: [Field("f", .bool)])])
        var target = Snapshot(schema: other, tick: 9)
        try codec.decode(bytes, baseline: base, into: &target)
        #expect(target.schema.fingerprint == TestSchemas.arena.fingerprint, "a snapshot of another schema should be replaced")
        #expect(target == next)

        let before = target.entityIDs.withUnsafeBufferPointer { $0.baseAddress }
        try codec.decode(bytes, baseline: base, into: &target)
        let after = target.entityIDs.withUnsafeBufferPointer { $0.baseAddress }
        #expect(target == next)
        #expect(before == after, "decoding the same world again into a uniquely held snapshot should reuse its id storage")
    }
}

import Testing
import TickwireFoundation

@testable import TickwireCodec

/// The entropy-coded delta (`Protocol/PROTOCOL.md` §4.5): seeded round trips, garbage, limits.
@Suite("Entropy delta codec")
struct EntropyDeltaTests {
    @Test("decode(encode(s, against: b, .entropy)) == s for random schemas, histories and baselines", arguments: 0..<40)
    func roundTrip(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xE27 + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let snapshots = try DeltaPropertyTests.history(schema, steps: 30, &rng)
        for (position, snapshot) in snapshots.enumerated() {
            var baselines: [Snapshot?] = [nil]
            if position > 0 { baselines.append(snapshots[position - 1]) }
            if position > 0 { baselines.append(snapshots[Int.random(in: 0..<position, using: &rng)]) }
            if position + 1 < snapshots.count { baselines.append(snapshots[position + 1]) }
            for baseline in baselines {
                let bytes = try codec.encode(snapshot, against: baseline, coding: .entropy)
                let decoded = try codec.decode(bytes, baseline: baseline, coding: .entropy)
                #expect(decoded == snapshot, "seed \(seed) step \(position): the decoded snapshot differs from the encoded one")
                #expect(try SnapshotCodec.header(of: bytes) == SnapshotHeader(tick: snapshot.tick, baselineTick: baseline?.tick))
                #expect(try codec.encode(decoded, against: baseline, coding: .entropy) == bytes, "re-encoding gives the same bytes")
            }
        }
    }

    /// Fields of every width class of the bucket code (§4.5.4): 8 bits (never escaped), 9 (the
    /// narrowest that escapes), 16 and 32 bits, and a 16-bit angle (a wrapping delta).
    static let bucketSchema = try! Schema([
        EntityType(
            "e",
            fields: [
                Field("eight", .integer(min: 0, max: 255)),
                Field("nine", .integer(min: 0, max: 511)),
                Field("sixteen", .integer(min: 0, max: 65_535)),
                Field("wide", .integer(min: 0, max: 4_294_967_295)),
                Field("turn", .angle(bits: 16)),
            ])
    ])

    @Test(
        "a delta's bucket round-trips below the escape (6), at it (7) and at the widest its field holds, both ways",
        arguments: [DeltaCoding.entropy, .predictedEntropy])
    func bucketEscape(coding: DeltaCoding) throws {
        let codec = SnapshotCodec(schema: Self.bucketSchema)
        let widths = [8, 9, 16, 32, 16]
        for (field, width) in widths.enumerated() {
            let top: UInt64 = (1 << UInt64(width)) - 1
            // Magnitudes in bucket 0, 6, 7, 8, the field's widest bucket, and the largest value.
            for magnitude in [1, 127, 128, 256, 1 << UInt64(width - 1), top] where magnitude <= top {
                for (from, to) in [(UInt64(0), magnitude), (magnitude, 0)] {
                    var baseline = Snapshot(schema: Self.bucketSchema, tick: 1)
                    var snapshot = Snapshot(schema: Self.bucketSchema, tick: 2)
                    let old = try baseline.insert(id: 1, type: 0), new = try snapshot.insert(id: 1, type: 0)
                    baseline.setValue(from, at: old, field: field)
                    snapshot.setValue(to, at: new, field: field)
                    let bytes = try codec.encode(snapshot, against: baseline, coding: coding)
                    let decoded = try codec.decode(bytes, baseline: baseline, coding: coding)
                    #expect(decoded == snapshot, "field \(field) (\(width) bits) from \(from) to \(to)")
                }
            }
        }
    }
}

/// Garbage, truncations, flips and limits for the entropy-coded delta.
@Suite("Entropy delta robustness and limits")
struct EntropyDeltaRobustnessTests {
    @Test("random bytes decode or throw, with and without a baseline", arguments: 0..<6)
    func randomBytes(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xE7BAD + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let history = try DeltaPropertyTests.history(schema, steps: 3, &rng)
        var refused = 0
        for _ in 0..<400 {
            var bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) {
                var header = BitWriter()
                header.writeVarint(UInt64(history[1].tick)); header.write(true)
                header.writeVarint(UInt64(history[1].tick &- history[0].tick))
                bytes = header.bytes + bytes
            }
            do {
                _ = try codec.decode(bytes, baseline: Bool.random(using: &rng) ? history[0] : nil, coding: .entropy)
            } catch {
                refused += 1
            }
        }
        #expect(refused > 200, "most garbage is refused, \(refused) of 400")
    }

    @Test("every truncation is refused and every single bit flip decodes or throws", arguments: 0..<6)
    func truncationsAndFlips(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xE7F1 + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let history = try DeltaPropertyTests.history(schema, steps: 4, &rng)
        for (baseline, snapshot) in [(nil, history[0]), (history[0], history[1]), (history[1], history[3])] as [(Snapshot?, Snapshot)] {
            let bytes = try codec.encode(snapshot, against: baseline, coding: .entropy)
            for length in 0..<bytes.count {
                #expect(throws: CodecError.self, "a truncation to \(length) of \(bytes.count) bytes is refused") {
                    try codec.decode(Array(bytes.prefix(length)), baseline: baseline, coding: .entropy)
                }
            }
            #expect(throws: CodecError.self, "a byte more is refused") {
                try codec.decode(bytes + [0], baseline: baseline, coding: .entropy)
            }
            for bit in 0..<min(bytes.count * 8, 1500) {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                if let decoded = try? codec.decode(flipped, baseline: baseline, coding: .entropy) {
                    _ = try codec.encode(decoded, against: baseline, coding: .entropy)
                }
            }
        }
    }

    /// A snapshot of `count` arena entities with ids 1...count.
    static func arena(count: Int, tick: UInt32) throws -> Snapshot {
        var snapshot = Snapshot(schema: TestSchemas.arena, tick: tick, capacity: count)
        for id in 1...count {
            let index = try snapshot.insert(id: UInt32(id), type: 0)
            snapshot.setValue(UInt64(id % 65536), at: index, field: 0)
        }
        return snapshot
    }

    @Test("the entity limit holds at the limit and one past it, whole and with created entities")
    func entityLimit() throws {
        let limits = CodecLimits(maxEntities: 100)
        let codec = SnapshotCodec(schema: TestSchemas.arena, limits: limits)
        let unlimited = SnapshotCodec(schema: TestSchemas.arena)
        let atLimit = try Self.arena(count: 100, tick: 2), past = try Self.arena(count: 101, tick: 2)
        let baseline = try Self.arena(count: 50, tick: 1)
        #expect(try codec.decode(try codec.encode(atLimit, against: nil, coding: .entropy), baseline: nil, coding: .entropy) == atLimit)
        #expect(
            try codec.decode(try codec.encode(atLimit, against: baseline, coding: .entropy), baseline: baseline, coding: .entropy)
                == atLimit)
        for base in [nil, baseline] as [Snapshot?] {
            let bytes = try unlimited.encode(past, against: base, coding: .entropy)
            #expect(throws: CodecError.self, "101 entities against a limit of 100") {
                try codec.decode(bytes, baseline: base, coding: .entropy)
            }
            do {
                _ = try codec.decode(bytes, baseline: base, coding: .entropy)
            } catch {
                #expect(error.kind == .tooManyEntities)
            }
        }
        #expect(throws: CodecError.self, "the encoder refuses 101 entities too") {
            try codec.encode(past, against: nil, coding: .entropy)
        }
    }

    @Test("the encoded size limit holds at the limit and one past it")
    func sizeLimit() throws {
        let snapshot = try Self.arena(count: 40, tick: 5)
        let bytes = try SnapshotCodec(schema: TestSchemas.arena).encode(snapshot, against: nil, coding: .entropy)
        let exact = SnapshotCodec(schema: TestSchemas.arena, limits: CodecLimits(maxEncodedBytes: bytes.count))
        let short = SnapshotCodec(schema: TestSchemas.arena, limits: CodecLimits(maxEncodedBytes: bytes.count - 1))
        #expect(try exact.decode(bytes, baseline: nil, coding: .entropy) == snapshot)
        #expect(try exact.encode(snapshot, against: nil, coding: .entropy) == bytes)
        do {
            _ = try short.decode(bytes, baseline: nil, coding: .entropy)
            Issue.record("one byte over the size limit decoded")
        } catch {
            #expect(error.kind == .inputTooLarge)
        }
        #expect(throws: CodecError.self) { try short.encode(snapshot, against: nil, coding: .entropy) }
    }

    @Test("a wrong or missing baseline is refused as in the bit-packed coding")
    func baselines() throws {
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let one = try Self.arena(count: 3, tick: 1), two = try Self.arena(count: 4, tick: 2)
        let bytes = try codec.encode(two, against: one, coding: .entropy)
        #expect(try SnapshotCodec.header(of: bytes) == SnapshotHeader(tick: 2, baselineTick: 1))
        for (base, kind) in [(nil, CodecError.Kind.baselineMissing), (two, .baselineMismatch)] as [(Snapshot?, CodecError.Kind)] {
            do {
                _ = try codec.decode(bytes, baseline: base, coding: .entropy)
                Issue.record("decoded against the wrong baseline")
            } catch {
                #expect(error.kind == kind)
            }
        }
    }
}

import Testing
import TickwireFoundation

@testable import TickwireCodec

/// Seeded property tests: random schemas, random snapshot sequences, random baselines.
@Suite("Delta codec properties")
struct DeltaPropertyTests {
    /// A random world history: each step creates, destroys, retypes and changes entities.
    static func history(_ schema: Schema, steps: Int, _ rng: inout SplitMix64) throws -> [Snapshot] {
        var current = Snapshot(schema: schema, tick: UInt32.random(in: 0...UInt32.max, using: &rng))
        var result: [Snapshot] = []
        let idSpaces: [UInt32] = [64, 1000, UInt32.max]
        let idSpace = idSpaces.randomElement(using: &rng) ?? 64
        for _ in 0..<steps {
            current.tick &+= UInt32.random(in: 1...3, using: &rng)
            for _ in 0..<Int.random(in: 0...20, using: &rng) {
                let id = UInt32.random(in: 0...idSpace, using: &rng)
                if current.index(of: id) == nil {
                    let index = try current.insert(id: id, type: Int.random(in: 0..<schema.entityTypes.count, using: &rng))
                    TestSchemas.randomize(&current, at: index, &rng)
                }
            }
            for _ in 0..<Int.random(in: 0...8, using: &rng) where !current.isEmpty {
                current.remove(id: current.id(at: Int.random(in: current.indices, using: &rng)))
            }
            if !current.isEmpty, Bool.random(using: &rng) {
                // Same id, other type: the codec must send it as destroyed and created.
                let id = current.id(at: Int.random(in: current.indices, using: &rng))
                current.remove(id: id)
                let index = try current.insert(id: id, type: Int.random(in: 0..<schema.entityTypes.count, using: &rng))
                TestSchemas.randomize(&current, at: index, &rng)
            }
            for _ in 0..<Int.random(in: 0...30, using: &rng) where !current.isEmpty {
                let index = Int.random(in: current.indices, using: &rng)
                let fields = schema.entityTypes[current.typeIndex(at: index)].fields
                guard !fields.isEmpty else { continue }
                let field = Int.random(in: fields.indices, using: &rng)
                let old = current.value(at: index, field: field)
                if Bool.random(using: &rng) {
                    // A small step, as moving entities make (wrapping for angles, clamped otherwise).
                    let step = Int64.random(in: -40...40, using: &rng)
                    let stepped = step < 0 ? old &- UInt64(-step) : old &+ UInt64(step)
                    let wrapped = fields[field].kind.wrapsAround ? stepped & fields[field].kind.maxQuantized : stepped
                    current.setValue(
                        (step < 0 && wrapped > old && !fields[field].kind.wrapsAround) ? 0 : wrapped,
                        at: index, field: field)
                } else {
                    let top = fields[field].kind.maxQuantized
                    current.setValue(top == .max ? rng.next() : rng.next() % (top + 1), at: index, field: field)
                }
            }
            result.append(current)
        }
        return result
    }

    @Test(
        "decode(encode(s, against: b), baseline: b) == s for random schemas, histories and baselines",
        arguments: 0..<40)
    func roundTrip(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xC0DEC + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let snapshots = try Self.history(schema, steps: 30, &rng)
        for (position, snapshot) in snapshots.enumerated() {
            var baselines: [Snapshot?] = [nil]
            if position > 0 { baselines.append(snapshots[position - 1]) }
            if position > 0 { baselines.append(snapshots[Int.random(in: 0..<position, using: &rng)]) }
            if position + 1 < snapshots.count { baselines.append(snapshots[position + 1]) }  // a newer baseline works too
            for baseline in baselines {
                let bytes = try codec.encode(snapshot, against: baseline)
                let decoded = try codec.decode(bytes, baseline: baseline)
                #expect(decoded == snapshot, "seed \(seed) step \(position): the decoded snapshot differs from the encoded one")
                #expect(try SnapshotCodec.header(of: bytes) == SnapshotHeader(tick: snapshot.tick, baselineTick: baseline?.tick))
                #expect(try codec.encode(decoded, against: baseline) == bytes, "re-encoding gives the same bytes")
            }
        }
    }
}

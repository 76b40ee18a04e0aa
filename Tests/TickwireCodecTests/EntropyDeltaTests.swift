import Testing
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
}

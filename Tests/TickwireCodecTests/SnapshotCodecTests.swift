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
}

import Foundation
import Testing

@testable import TickwireCodec

@Suite("Predicted entropy: an entity destroyed and created again")
struct PredictedEntropyRecreatedEntityTests {
    /// Found by the delta fuzzer (`Tools/fuzz/corpus/delta/regression-predicted-recreated-entity`):
    /// a predicted-coding delta against the fixture's baseline that destroys entity 79 and
    /// creates it again with the same type and new values, which no encoder of ours writes.
    /// Since the destroyed section's format changed (session 15) it is built here symbol by
    /// symbol (§4.5.4): tick 101 against the baseline's 100, predicted; entity 79, the baseline's
    /// 27th, destroyed; nothing changed; entity 79 created with the baseline's values, x moved by 12.
    static func input(_ schema: Schema, _ baseline: Snapshot) throws -> [UInt8] {
        var header = BitWriter(capacity: 8)
        header.writeVarint(101)
        header.write(true)
        header.writeVarint(1)
        header.write(true)
        header.write(false)
        var coder = RangeEncoder(prefix: header.bytes)
        let scratch = EntropyScratch(tableSize: EntropyModels.tableSize(schema), slotCount: 1)
        defer { scratch.deallocate() }
        let models = EntropyModels(table: scratch.table, schema: schema, activityFields: EntropyModels.activityFields(schema))
        let old = try #require(baseline.index(of: 79))
        coder.encode(true, &models.p[EntropyModels.hasDestroyed])
        coder.encodeInteger(0, models: models.p + EntropyModels.destroyedCountTree)
        coder.encodeInteger(UInt64(old), models: models.p + EntropyModels.destroyedGapTree)
        coder.encode(false, &models.p[EntropyModels.hasChanged])
        coder.encode(true, &models.p[EntropyModels.hasCreated])
        coder.encodeInteger(0, models: models.p + EntropyModels.countTree)
        coder.encodeInteger(79, models: models.p + EntropyModels.gapTree)
        models.prepare(type: 0)
        for (field, layout) in schema.layouts[0].fields.enumerated() {
            let value = baseline.value(at: old, field: field) + (field == 0 ? 12 : 0)
            if layout.width <= 8 {
                coder.encodeTree(
                    value, bits: layout.width, models: models.p + models.fieldBase(type: 0, field: field) + EntropyModels.whole)
            } else {
                coder.encodeRaw(value, count: layout.width)
            }
        }
        coder.finish()
        return coder.bytes
    }

    @Test("its motion is a survivor's, as the encoder of the next delta counts it")
    func recreatedEntityKeepsItsMotion() throws {
        let schema = try #require(SnapshotFuzzerFixtures.arena)
        let baseline = SnapshotFuzzerFixtures.baseline(schema)
        let baselineMotion = SnapshotFuzzerFixtures.baselineMotion(schema, baseline)
        #expect(!baselineMotion.isZero)
        let codec = SnapshotCodec(schema: schema, limits: CodecLimits(maxEntities: 4096, maxEncodedBytes: 1 << 16))
        let body = try Self.input(schema, baseline)
        var decoded = Snapshot(schema: schema, tick: 0)
        var motion = SnapshotMotion.zero
        try codec.decode(
            body, baseline: baseline, coding: .predictedEntropy, baselineMotion: baselineMotion, into: &decoded, motion: &motion)
        let index = try #require(decoded.index(of: 79))
        let old = try #require(baseline.index(of: 79))
        #expect(decoded.value(at: index, field: 0) != baseline.value(at: old, field: 0), "entity 79 moved")
        let expected = (0..<2).map { Int64(decoded.value(at: index, field: $0)) - Int64(baseline.value(at: old, field: $0)) }
        #expect(motion.motion(ofEntity: 79).map { Array($0.prefix(2)) } == expected)
        var encodedMotion = SnapshotMotion.zero
        var twiceMotion = SnapshotMotion.zero
        var twice = Snapshot(schema: schema, tick: 0)
        let again = try codec.encode(
            decoded, against: baseline, coding: .predictedEntropy, baselineMotion: baselineMotion, motion: &encodedMotion)
        try codec.decode(
            again, baseline: baseline, coding: .predictedEntropy, baselineMotion: baselineMotion, into: &twice, motion: &twiceMotion)
        #expect(twice == decoded)
        #expect(encodedMotion == motion, "the encoder and the decoder keep the same motion")
        #expect(twiceMotion == motion)
    }
}

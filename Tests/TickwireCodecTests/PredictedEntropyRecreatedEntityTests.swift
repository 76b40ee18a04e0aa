import Foundation
import Testing

@testable import TickwireCodec

@Suite("Predicted entropy: an entity destroyed and created again")
struct PredictedEntropyRecreatedEntityTests {
    /// Found by the delta fuzzer (`Tools/fuzz/corpus/delta/regression-predicted-recreated-entity`):
    /// a predicted-coding delta against the fixture's baseline that destroys entity 79 and
    /// creates it again with the same type and new values, which no encoder of ours writes.
    static let input: [UInt8] = [
        0x0e, 0x65, 0x03, 0x00, 0xbf, 0x49, 0x2a, 0x6e, 0x74, 0x14, 0x27, 0x06, 0xfe, 0x00, 0x9d, 0xff, 0xff, 0x26, 0xff, 0xff, 0xff, 0x7f,
        0xff, 0x30,
    ]

    @Test("its motion is a survivor's, as the encoder of the next delta counts it")
    func recreatedEntityKeepsItsMotion() throws {
        let schema = try #require(SnapshotFuzzerFixtures.arena)
        let baseline = SnapshotFuzzerFixtures.baseline(schema)
        let baselineMotion = SnapshotFuzzerFixtures.baselineMotion(schema, baseline)
        #expect(!baselineMotion.isZero)
        #expect(Self.input[0] == 0x0e, "selector: arena schema, baseline given, entropy, predicted")
        let codec = SnapshotCodec(schema: schema, limits: CodecLimits(maxEntities: 4096, maxEncodedBytes: 1 << 16))
        let body = Array(Self.input.dropFirst())
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

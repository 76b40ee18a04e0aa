import Foundation
import Testing

@testable import TickwireCodec

/// The delta fuzzer's fixtures (`Tools/fuzz/DeltaFuzzer.swift`, not part of the package), copied.
enum SnapshotFuzzerFixtures {
    static let arena = try? Schema([
        EntityType(
            "ship",
            fields: [
                Field("x", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
                Field("y", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
                Field("heading", .angle(bits: 10)),
                Field("health", .integer(min: 0, max: 100)),
                Field("state", .enumeration(cases: 8)),
            ])
    ])
    static let mixed = try? Schema([
        EntityType(
            "a",
            fields: [
                Field("flag", .bool), Field("score", .integer(min: -1000, max: 1000)),
                Field("mode", .enumeration(cases: 3)),
            ]),
        EntityType("b", fields: []),
        EntityType(
            "c",
            fields: [
                Field("turn", .angle(bits: 8)), Field("wide", .integer(min: .min, max: .max)),
                Field("level", .float(min: 0, max: 1, resolution: 0.1)),
            ]),
    ])

    /// A baseline of 40 entities at tick 100 with values spread over each field's range.
    static func baseline(_ schema: Schema) -> Snapshot {
        var snapshot = Snapshot(schema: schema, tick: 100)
        for number in 0..<40 {
            let type = number % schema.entityTypes.count
            guard let index = try? snapshot.insert(id: UInt32(number * 3 + 1), type: type) else { continue }
            for (field, descriptor) in schema.entityTypes[type].fields.enumerated() {
                snapshot.setValue(descriptor.kind.maxQuantized / 40 * UInt64(number), at: index, field: field)
            }
        }
        return snapshot
    }

    /// A motion for `baseline`: its motion against a copy of it two ticks earlier whose every
    /// value is a little lower or higher (so that most entities carry a motion, of both signs).
    static func baselineMotion(_ schema: Schema, _ baseline: Snapshot) -> SnapshotMotion {
        var earlier = Snapshot(schema: schema, tick: baseline.tick &- 2)
        for index in 0..<baseline.count {
            let type = baseline.typeIndex(at: index)
            guard let copy = try? earlier.insert(id: baseline.id(at: index), type: type) else { continue }
            for (field, descriptor) in schema.entityTypes[type].fields.enumerated() {
                let value = baseline.value(at: index, field: field)
                let step = UInt64(index % 5 + 1)
                let moved = index % 2 == 0 ? (value >= step ? value - step : 0) : min(value + step, descriptor.kind.maxQuantized)
                earlier.setValue(moved, at: copy, field: field)
            }
        }
        var motion = SnapshotMotion.zero
        let codec = SnapshotCodec(schema: schema)
        _ = try? codec.encode(baseline, against: earlier, coding: .predictedEntropy, baselineMotion: .zero, motion: &motion)
        return motion
    }
}

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

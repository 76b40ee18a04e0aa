// Shared with the delta fuzzer: `Tools/fuzz/run delta` compiles this file with
// `Tools/fuzz/DeltaFuzzer.swift`, so it uses TickwireCodec's public API only.

import TickwireCodec

/// The two schemas of the codec vectors (PROTOCOL.md §8.1), and a baseline for each. Spelled out
/// again here, with the public API, rather than taken from TickwireCodec's `package` definition
/// (`VectorSchemas`); `ProtocolVectorTests` pins that both have the same fingerprints.
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

// Not part of the Swift package: built by `Tools/fuzz/run delta SECONDS` with -sanitize=fuzzer,address.

import TickwireCodec

/// The two schemas of the codec vectors (PROTOCOL.md §8.1), and a baseline for each.
enum SnapshotFuzzerFixtures {
    static let arena = try? Schema([
        EntityType("ship", fields: [
            Field("x", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
            Field("y", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
            Field("heading", .angle(bits: 10)),
            Field("health", .integer(min: 0, max: 100)),
            Field("state", .enumeration(cases: 8)),
        ]),
    ])
    static let mixed = try? Schema([
        EntityType("a", fields: [Field("flag", .bool), Field("score", .integer(min: -1000, max: 1000)),
                                 Field("mode", .enumeration(cases: 3))]),
        EntityType("b", fields: []),
        EntityType("c", fields: [Field("turn", .angle(bits: 8)), Field("wide", .integer(min: .min, max: .max)),
                                 Field("level", .float(min: 0, max: 1, resolution: 0.1))]),
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

/// libFuzzer entry: byte 0 picks the schema (bit 0), whether to pass the baseline (bit 1) and
/// the coding (bit 2: entropy-coded, PROTOCOL.md §4.5, and with bit 3 motion-predicted, §4.5.6,
/// against a baseline with a motion; else bit-packed, §4.1); the rest is an encoded snapshot.
/// Decoding must never crash, and a snapshot that decodes must survive encode and decode
/// unchanged, with the same motion on both ends.
@_cdecl("LLVMFuzzerTestOneInput")
public func snapshotFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first,
          let schema = first & 1 == 0 ? SnapshotFuzzerFixtures.arena : SnapshotFuzzerFixtures.mixed else { return 0 }
    let baseline = first & 2 == 0 ? nil : SnapshotFuzzerFixtures.baseline(schema)
    let coding: DeltaCoding = first & 4 == 0 ? .bitPacked : (first & 8 == 0 ? .entropy : .predictedEntropy)
    let baselineMotion = coding.predictsMotion ? baseline.map { SnapshotFuzzerFixtures.baselineMotion(schema, $0) } ?? .zero : .zero
    let codec = SnapshotCodec(schema: schema, limits: CodecLimits(maxEntities: 4096, maxEncodedBytes: 1 << 16))
    var decoded = Snapshot(schema: schema, tick: 0)
    var motion = SnapshotMotion.zero
    do {
        try codec.decode(
            Array(input.dropFirst()), baseline: baseline, coding: coding, baselineMotion: baselineMotion, into: &decoded, motion: &motion)
    } catch {
        return 0
    }
    // Re-encoded as it came: a whole snapshot whole (even with a baseline at hand), a delta against the baseline.
    let against = (try? SnapshotCodec.header(of: Array(input.dropFirst())))?.baselineTick == nil ? nil : baseline
    var encodedMotion = SnapshotMotion.zero, twiceMotion = SnapshotMotion.zero
    var twice = Snapshot(schema: schema, tick: 0)
    guard let again = try? codec.encode(decoded, against: against, coding: coding, baselineMotion: baselineMotion, motion: &encodedMotion),
          (try? codec.decode(again, baseline: against, coding: coding, baselineMotion: baselineMotion, into: &twice, motion: &twiceMotion)) != nil,
          twice == decoded, encodedMotion == motion, twiceMotion == motion else {
        fatalError("a decoded snapshot of \(decoded.count) entities did not survive encode and decode with its motion")
    }
    return 0
}

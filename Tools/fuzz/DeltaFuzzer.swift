// Not part of the Swift package: built by `Tools/fuzz/run delta SECONDS` with -sanitize=fuzzer,address,
// together with its fixtures, `Tests/TickwireCodecTests/SnapshotFuzzerFixtures.swift` (which the tests use too).

import TickwireCodec

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

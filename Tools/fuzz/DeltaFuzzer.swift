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
}

/// libFuzzer entry: byte 0 picks the schema (bit 0), whether to pass the baseline (bit 1) and
/// the coding (bit 2: entropy-coded, PROTOCOL.md §4.5; else bit-packed, §4.1); the rest is an
/// encoded snapshot. Decoding must never crash, and a snapshot that decodes must
/// survive encode and decode unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func snapshotFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first,
          let schema = first & 1 == 0 ? SnapshotFuzzerFixtures.arena : SnapshotFuzzerFixtures.mixed else { return 0 }
    let baseline = first & 2 == 0 ? nil : SnapshotFuzzerFixtures.baseline(schema)
    let coding: DeltaCoding = first & 4 == 0 ? .bitPacked : .entropy
    let codec = SnapshotCodec(schema: schema, limits: CodecLimits(maxEntities: 4096, maxEncodedBytes: 1 << 16))
    guard let decoded = try? codec.decode(Array(input.dropFirst()), baseline: baseline, coding: coding) else { return 0 }
    guard let again = try? codec.encode(decoded, against: baseline, coding: coding),
          let twice = try? codec.decode(again, baseline: baseline, coding: coding), twice == decoded else {
        fatalError("a decoded snapshot of \(decoded.count) entities did not survive encode and decode")
    }
    return 0
}

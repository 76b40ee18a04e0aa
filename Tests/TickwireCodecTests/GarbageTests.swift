import Testing
import TickwireFoundation

@testable import TickwireCodec

/// Seeded garbage, truncations and bit flips: the decoder either decodes or throws, never traps.
@Suite("Codec robustness")
struct GarbageTests {
    @Test("random bytes decode or throw, with and without a baseline", arguments: 0..<8)
    func randomBytes(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xBAD + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let history = try DeltaPropertyTests.history(schema, steps: 3, &rng)
        var decoded = 0
        for _ in 0..<500 {
            var bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), !bytes.isEmpty {
                // Make the header name the baseline, to reach deeper into the decoder.
                var header = BitWriter()
                header.writeVarint(UInt64(history[1].tick)); header.write(true)
                header.writeVarint(UInt64(history[1].tick &- history[0].tick))
                bytes = header.bytes + bytes
            }
            if (try? codec.decode(bytes, baseline: Bool.random(using: &rng) ? history[0] : nil)) != nil { decoded += 1 }
        }
        #expect(decoded < 500, "most garbage is refused")
    }

    @Test("every truncation and every single bit flip of real encodings decodes or throws", arguments: 0..<6)
    func truncationsAndFlips(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xF11B + seed)
        let schema = try TestSchemas.randomSchema(&rng)
        let codec = SnapshotCodec(schema: schema)
        let history = try DeltaPropertyTests.history(schema, steps: 4, &rng)
        for (baseline, snapshot) in [(nil, history[0]), (history[0], history[1]), (history[1], history[3])] as [(Snapshot?, Snapshot)] {
            let bytes = try codec.encode(snapshot, against: baseline)
            for length in 0..<bytes.count {
                #expect(throws: CodecError.self, "a truncation to \(length) of \(bytes.count) bytes is refused") {
                    try codec.decode(Array(bytes.prefix(length)), baseline: baseline)
                }
            }
            for bit in 0..<min(bytes.count * 8, 2000) {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                if let decoded = try? codec.decode(flipped, baseline: baseline) {
                    // A flip that still decodes must yield a snapshot the codec can encode again.
                    _ = try codec.encode(decoded, against: baseline)
                }
            }
        }
    }
}

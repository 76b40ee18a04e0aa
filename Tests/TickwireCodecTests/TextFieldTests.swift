import Testing
import TickwireFoundation

@testable import TickwireCodec

/// Text fields (``FieldKind/text(maxBytes:)``, `Protocol/PROTOCOL.md` §3.2, protocol 1.2): the
/// schema's bound, the snapshot's storage, and the three codings at every limit and one past.
@Suite("Text fields")
struct TextFieldTests {
    static let schema = ProtocolVectorTests.named
    static let codings: [DeltaCoding] = [.bitPacked, .entropy, .predictedEntropy]

    static func player(_ snapshot: inout Snapshot, id: UInt32, x: Int64, name: String, motto: String = "") throws {
        let index = try snapshot.insert(id: id, type: 0)
        snapshot.set(integer: x, at: index, field: 0)
        snapshot.setText(name, at: index, field: 1)
        snapshot.setText(motto, at: index, field: 3)
    }

    /// Encodes `snapshot` against `baseline` in `coding` and decodes it back (the predicted coding
    /// with the zero motion of a whole baseline).
    static func roundTrip(_ snapshot: Snapshot, against baseline: Snapshot?, coding: DeltaCoding) throws -> (Snapshot, [UInt8]) {
        let codec = SnapshotCodec(schema: snapshot.schema)
        var motion = SnapshotMotion.zero
        let bytes = try codec.encode(snapshot, against: baseline, coding: coding, baselineMotion: .zero, motion: &motion)
        var decoded = Snapshot(schema: snapshot.schema, tick: 0)
        var decodedMotion = SnapshotMotion.zero
        try codec.decode(bytes, baseline: baseline, coding: coding, baselineMotion: .zero, into: &decoded, motion: &decodedMotion)
        return (decoded, bytes)
    }

    @Test("maxBytes is 1 to 64: 64 is a schema, 65 and 0 are refused when declared")
    func maxBytesBound() throws {
        #expect(Schema.maxTextBytes == 64)
        _ = try Schema([EntityType("t", fields: [Field("name", .text(maxBytes: 64))])])
        _ = try Schema([EntityType("t", fields: [Field("name", .text(maxBytes: 1))])])
        for bad in [65, 0, -1] {
            #expect(throws: SchemaError.self, "maxBytes \(bad) is outside 1...64") {
                _ = try Schema([EntityType("t", fields: [Field("name", .text(maxBytes: bad))])])
            }
        }
    }

    @Test("the named schema's canonical encoding and fingerprint are PROTOCOL.md §3.4's, and decode back")
    func canonicalEncoding() throws {
        let expected: [UInt8] = [
            0x01, 0x02, 0x06, 0x70, 0x6c, 0x61, 0x79, 0x65, 0x72, 0x04, 0x01, 0x78, 0x01, 0x00, 0xfe, 0x03, 0x04, 0x6e, 0x61, 0x6d,
            0x65, 0x05, 0x10, 0x05, 0x61, 0x6c, 0x69, 0x76, 0x65, 0x00, 0x05, 0x6d, 0x6f, 0x74, 0x74, 0x6f, 0x05, 0x40, 0x05, 0x73,
            0x74, 0x6f, 0x6e, 0x65, 0x01, 0x01, 0x78, 0x01, 0x00, 0xfe, 0x03,
        ]
        #expect(Self.schema.canonicalEncoding() == expected)
        #expect(Self.schema.fingerprint == 0xe365_253b_58e4_2e55)
        #expect(try Schema(canonicalEncoding: expected) == Self.schema)
        #expect(Self.schema.needsTextFields)
        let mixed = try #require(ProtocolVectorTests.schema(named: "mixed"))
        #expect(!mixed.needsTextFields, "a schema without text fields needs no protocol 1.2")
        // maxBytes 65 in the encoding (byte 0x40 of the motto made 0x41) is refused as it is read.
        var tooLarge = expected
        tooLarge[37] = 0x41
        #expect(throws: SchemaDecodingError.self) { _ = try Schema(canonicalEncoding: tooLarge) }
    }

    @Test("setText cuts at a character boundary within maxBytes, as numbers are clamped")
    func setTextCuts() throws {
        var snapshot = Snapshot(schema: Self.schema, tick: 1)
        let index = try snapshot.insert(id: 1, type: 0)
        snapshot.setText(String(repeating: "a", count: 16), at: index, field: 1)
        #expect(snapshot.textBytes(at: index, field: 1).count == 16, "16 bytes is the bound: kept whole")
        snapshot.setText(String(repeating: "a", count: 17), at: index, field: 1)
        #expect(snapshot.text(at: index, field: 1) == String(repeating: "a", count: 16), "17 bytes: one cut")
        snapshot.setText("aaaaaaaaaaaaaa日", at: index, field: 1)  // 14 + 3 bytes: the 3-byte character does not fit
        #expect(snapshot.text(at: index, field: 1) == "aaaaaaaaaaaaaa")
        snapshot.setText(String(repeating: "ë", count: 9), at: index, field: 1)  // 18 bytes
        #expect(snapshot.text(at: index, field: 1) == String(repeating: "ë", count: 8))
        snapshot.setText("", at: index, field: 1)
        #expect(snapshot.text(at: index, field: 1) == "" && snapshot.texts.isEmpty, "an empty text is not stored")
        snapshot.setValue(5, at: index, field: 1)
        #expect(snapshot.value(at: index, field: 1) == 0, "a text field's quantized value stays 0")
    }

    @Test("removing an entity forgets its texts; equality compares texts")
    func storage() throws {
        var a = Snapshot(schema: Self.schema, tick: 1)
        try Self.player(&a, id: 3, x: 1, name: "Ann")
        var b = a
        #expect(a == b)
        b.setText("Bob", at: 0, field: 1)
        #expect(a != b, "snapshots whose texts differ are not equal")
        b.remove(id: 3)
        #expect(b.texts.isEmpty)
        try b.insert(id: 3, type: 0)
        #expect(b.text(at: 0, field: 1) == "", "an entity created again starts with empty texts")
    }

    @Test("texts at their bounds round-trip in every coding, whole and as deltas", arguments: TextFieldTests.codings)
    func roundTrips(coding: DeltaCoding) throws {
        var full = Snapshot(schema: Self.schema, tick: 10)
        try Self.player(&full, id: 1, x: 3, name: "sixteen-bytes-ok", motto: String(repeating: "m", count: 63) + "!")
        try Self.player(&full, id: 2, x: 4, name: "Zoë 日本", motto: "ok 🙂")
        try full.insert(id: 4, type: 1)
        let (decodedFull, _) = try Self.roundTrip(full, against: nil, coding: coding)
        #expect(decodedFull == full)
        #expect(decodedFull.textBytes(at: 0, field: 3).count == 64)

        var next = full
        next.tick = 11
        next.setText("Zoë", at: 1, field: 1)
        next.setText("", at: 0, field: 1)
        try Self.player(&next, id: 7, x: 9, name: "Eve")
        let (decoded, _) = try Self.roundTrip(next, against: full, coding: coding)
        #expect(decoded == next, "\(coding): changed, emptied and created texts arrive")
    }

    @Test("a text is sent only when it changes", arguments: TextFieldTests.codings)
    func sentOnlyWhenChanged(coding: DeltaCoding) throws {
        var full = Snapshot(schema: Self.schema, tick: 10)
        try Self.player(&full, id: 1, x: 3, name: "a-long-name-here", motto: String(repeating: "m", count: 64))
        var moved = full
        moved.tick = 11
        moved.set(integer: 4, at: 0, field: 0)
        var renamed = moved
        renamed.setText("a-long-name-herf", at: 0, field: 1)
        let (_, movedBytes) = try Self.roundTrip(moved, against: full, coding: coding)
        let (decoded, renamedBytes) = try Self.roundTrip(renamed, against: full, coding: coding)
        #expect(movedBytes.count < 12, "\(coding): a move with unchanged texts costs \(movedBytes.count) bytes, no text")
        #expect(renamedBytes.count >= movedBytes.count + 16, "\(coding): a changed name is sent whole")
        #expect(decoded == renamed)
        var idle = full
        idle.tick = 11
        let (_, idleBytes) = try Self.roundTrip(idle, against: full, coding: coding)
        #expect(idleBytes.count == 3, "\(coding): an unchanged world with texts costs the header")
    }

    /// A random text of at most `maxBytes` UTF-8 bytes, from 1- to 4-byte characters.
    static func randomText(_ rng: inout SplitMix64, maxBytes: Int) -> String {
        let characters: [Character] = ["a", "Z", "-", "é", "ß", "日", "本", "🙂", "\u{10FFFF}"]
        var text = ""
        for _ in 0..<Int.random(in: 0...maxBytes, using: &rng) {
            let next = characters[Int.random(in: characters.indices, using: &rng)]
            guard text.utf8.count + String(next).utf8.count <= maxBytes else { break }
            text.append(next)
        }
        return text
    }

    @Test("random histories of texts round-trip in every coding, and flipped bytes never trap", arguments: 0..<12)
    func randomHistories(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0x7E57 &+ seed)
        let codec = SnapshotCodec(schema: Self.schema)
        var current = Snapshot(schema: Self.schema, tick: 1)
        var baseline: Snapshot?
        var motions: [DeltaCoding: SnapshotMotion] = [:]
        var baselines: [DeltaCoding: Snapshot] = [:]
        for step in 0..<8 {
            current.tick &+= 1
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let id = UInt32.random(in: 0...20, using: &rng)
                if let index = current.index(of: id) {
                    if current.typeIndex(at: index) == 0 && Bool.random(using: &rng) {
                        current.setText(Self.randomText(&rng, maxBytes: 16), at: index, field: 1)
                    } else if Bool.random(using: &rng) {
                        current.remove(id: id)
                    } else {
                        current.set(integer: Int64.random(in: 0...255, using: &rng), at: index, field: 0)
                    }
                } else if Bool.random(using: &rng) {
                    try Self.player(
                        &current, id: id, x: Int64.random(in: 0...255, using: &rng), name: Self.randomText(&rng, maxBytes: 16),
                        motto: Self.randomText(&rng, maxBytes: 64))
                } else {
                    try current.insert(id: id, type: 1)
                }
            }
            for coding in Self.codings {
                let against = step == 0 ? nil : baselines[coding]
                var motion = SnapshotMotion.zero
                let bytes = try codec.encode(
                    current, against: against, coding: coding, baselineMotion: motions[coding] ?? .zero, motion: &motion)
                var decoded = Snapshot(schema: Self.schema, tick: 0)
                var decodedMotion = SnapshotMotion.zero
                try codec.decode(
                    bytes, baseline: against, coding: coding, baselineMotion: motions[coding] ?? .zero, into: &decoded,
                    motion: &decodedMotion)
                #expect(decoded == current, "seed \(seed) step \(step) \(coding)")
                // Garbage: flipped bytes decode or are refused, never trap.
                for _ in 0..<8 where !bytes.isEmpty {
                    var broken = bytes
                    broken[Int.random(in: broken.indices, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                    var scratch = Snapshot(schema: Self.schema, tick: 0)
                    var scratchMotion = SnapshotMotion.zero
                    do {
                        try codec.decode(
                            broken, baseline: against, coding: coding, baselineMotion: motions[coding] ?? .zero, into: &scratch,
                            motion: &scratchMotion)
                    } catch {
                        // Refused with a CodecError: what a decoder must do with garbage.
                    }
                }
                baselines[coding] = decoded
                motions[coding] = decodedMotion
            }
            baseline = current
        }
        #expect(baseline != nil)
    }

    @Test("a schema without text fields codes exactly as before (its vectors hold)")
    func noTextFieldsUnchanged() throws {
        let busy = try #require(ProtocolVectorTests.schema(named: "busy"))
        #expect(!TestSchemas.arena.hasTextFields && !busy.hasTextFields)
    }
}

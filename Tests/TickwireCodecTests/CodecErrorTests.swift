import Testing
import TickwireCodec

/// Hand-built encodings (written with BitWriter, following PROTOCOL.md §4) that a decoder must refuse.
@Suite("Codec errors and limits")
struct CodecErrorTests {
    static let oneBool = (try? Schema([EntityType("t", fields: [Field("f", .bool)])]))!
    static let threeTypes =
        (try? Schema([
            EntityType("a", fields: [Field("f", .integer(min: 0, max: 100))]),
            EntityType("b", fields: []),
            EntityType("c", fields: [Field("g", .float(min: 0, max: 10, resolution: 0.5))]),
        ]))!

    func expectError(
        _ kind: CodecError.Kind, _ bytes: [UInt8], schema: Schema, baseline: Snapshot? = nil,
        limits: CodecLimits = .default, _ why: Comment
    ) {
        do {
            let decoded = try SnapshotCodec(schema: schema, limits: limits).decode(bytes, baseline: baseline)
            Issue.record("expected \(kind) (\(why)) but decoded \(decoded.count) entities")
        } catch {
            #expect(error.kind == kind, "\(why): got \(error)")
        }
    }

    func snapshot(_ schema: Schema, tick: UInt32, ids: [UInt32], type: Int = 0) throws -> Snapshot {
        var result = Snapshot(schema: schema, tick: tick)
        for id in ids { try result.insert(id: id, type: type) }
        return result
    }

    @Test("entity count: the decoder's limit is accepted, one more is refused (full and delta)")
    func entityLimit() throws {
        let limits = CodecLimits(maxEntities: 100)
        let strict = SnapshotCodec(schema: Self.oneBool, limits: limits)
        let lax = SnapshotCodec(schema: Self.oneBool)
        let atLimit = try snapshot(Self.oneBool, tick: 1, ids: Array(0..<100))
        let pastLimit = try snapshot(Self.oneBool, tick: 2, ids: Array(0..<101))
        #expect(try strict.decode(strict.encode(atLimit, against: nil), baseline: nil) == atLimit)
        #expect(throws: CodecError.self, "the encoder respects the limit too") { try strict.encode(pastLimit, against: nil) }
        expectError(
            .tooManyEntities, try lax.encode(pastLimit, against: nil), schema: Self.oneBool, limits: limits,
            "a full snapshot of 101 entities")
        expectError(
            .tooManyEntities, try lax.encode(pastLimit, against: atLimit), schema: Self.oneBool, baseline: atLimit,
            limits: limits, "a delta creating the 101st entity")
        var huge = BitWriter()
        huge.writeVarint(0); huge.write(false); huge.writeVarint(UInt64(CodecLimits.maxEntitiesPerSnapshot) + 1)
        expectError(.tooManyEntities, huge.bytes, schema: Self.oneBool, "a count of 65537 at the protocol limit")
        var lying = BitWriter()
        lying.writeVarint(0); lying.write(false); lying.writeVarint(50_000)
        expectError(.truncated, lying.bytes, schema: Self.oneBool, "a count the remaining bits cannot hold fails before allocating")
    }

    @Test("encoded size: the limit is accepted, one byte more is refused")
    func sizeLimit() throws {
        let codec = SnapshotCodec(schema: Self.oneBool)
        let world = try snapshot(Self.oneBool, tick: 9, ids: Array(0..<300))
        let bytes = try codec.encode(world, against: nil)
        let exact = SnapshotCodec(schema: Self.oneBool, limits: CodecLimits(maxEncodedBytes: bytes.count))
        #expect(try exact.decode(bytes, baseline: nil) == world)
        expectError(
            .inputTooLarge, bytes, schema: Self.oneBool, limits: CodecLimits(maxEncodedBytes: bytes.count - 1),
            "one byte over the size limit")
        #expect(throws: CodecError.self) {
            try SnapshotCodec(schema: Self.oneBool, limits: CodecLimits(maxEncodedBytes: bytes.count - 1)).encode(world, against: nil)
        }
    }

    @Test("a wrong, missing or foreign baseline is named")
    func baselines() throws {
        let codec = SnapshotCodec(schema: Self.oneBool)
        let base = try snapshot(Self.oneBool, tick: 10, ids: [1, 2])
        let next = try snapshot(Self.oneBool, tick: 11, ids: [1, 2, 3])
        let delta = try codec.encode(next, against: base)
        expectError(.baselineMissing, delta, schema: Self.oneBool, "no baseline given")
        var wrongTick = base
        wrongTick.tick = 9
        expectError(.baselineMismatch, delta, schema: Self.oneBool, baseline: wrongTick, "baseline of tick 9 for a delta against 10")
        let foreign = try snapshot(Self.threeTypes, tick: 10, ids: [1, 2])
        expectError(.schemaMismatch, delta, schema: Self.oneBool, baseline: foreign, "baseline of another schema")
        #expect(throws: CodecError.self) { try codec.encode(foreign, against: nil) }
        #expect(try SnapshotCodec.header(of: delta) == SnapshotHeader(tick: 11, baselineTick: 10))
    }

    @Test("tick wrap-around: a delta from tick 2^32−1 to tick 1 names its baseline correctly")
    func tickWrap() throws {
        let codec = SnapshotCodec(schema: Self.oneBool)
        let base = try snapshot(Self.oneBool, tick: .max, ids: [1])
        let next = try snapshot(Self.oneBool, tick: 1, ids: [1, 2])
        let bytes = try codec.encode(next, against: base)
        #expect(try codec.decode(bytes, baseline: base) == next)
    }

    @Test("malformed content: unknown type, unknown or duplicate entity, id overflow, out-of-range values, trailing bits")
    func malformed() throws {
        let schema = Self.threeTypes
        var writer = BitWriter()
        writer.writeVarint(5); writer.write(false); writer.writeVarint(1); writer.writeVarint(7); writer.write(3, bits: 2)
        expectError(.unknownEntityType, writer.bytes, schema: schema, "type index 3 of 3 types")

        writer = BitWriter()
        writer.writeVarint(5); writer.write(false); writer.writeVarint(1); writer.writeVarint(7); writer.write(0, bits: 2)
        writer.write(101, bits: 7)
        expectError(.valueOutOfRange, writer.bytes, schema: schema, "integer 0...100 holding 101")

        writer = BitWriter()
        writer.writeVarint(5); writer.write(false); writer.writeVarint(2)
        writer.writeVarint(UInt64(UInt32.max)); writer.write(1, bits: 2)
        writer.writeVarint(0); writer.write(1, bits: 2)
        expectError(.entityIDOutOfRange, writer.bytes, schema: schema, "the id after 4294967295")

        let base = try snapshot(schema, tick: 4, ids: [1, 2], type: 1)
        writer = BitWriter()
        writer.writeVarint(5); writer.write(true); writer.writeVarint(1)
        writer.write(true); writer.writeVarint(1); writer.writeVarint(3)  // destroy id 3
        writer.write(false); writer.write(false)
        expectError(.unknownEntity, writer.bytes, schema: schema, baseline: base, "destroying an entity not in the baseline")

        writer = BitWriter()
        writer.writeVarint(5); writer.write(true); writer.writeVarint(1)
        writer.write(false); writer.write(false)
        writer.write(true); writer.writeVarint(1); writer.writeVarint(2); writer.write(1, bits: 2)  // create id 2
        expectError(.duplicateEntity, writer.bytes, schema: schema, baseline: base, "creating an entity that survives")

        let withValues = try snapshot(schema, tick: 4, ids: [1, 2], type: 2)
        writer = BitWriter()
        writer.writeVarint(5); writer.write(true); writer.writeVarint(1)
        writer.write(false)
        writer.write(true); writer.write(true); writer.writeVarint(1); writer.writeGamma(3)  // list: index 2 of 2
        writer.write(false)
        expectError(.entityIndexOutOfRange, writer.bytes, schema: schema, baseline: withValues, "changed index 2 of 2 survivors")

        writer = BitWriter()
        writer.writeVarint(5); writer.write(true); writer.writeVarint(1)
        writer.write(false)
        writer.write(true); writer.write(false); writer.write(1, bits: 2)  // mask: entity 0 changed
        writer.write(1, bits: 1); writer.write(true); writer.writeGamma(ZigZag.encode(-1))  // field 0: delta −1 from 0
        writer.write(false)
        expectError(.valueOutOfRange, writer.bytes, schema: schema, baseline: withValues, "a delta below zero")

        let codec = SnapshotCodec(schema: schema)
        var bytes = try codec.encode(withValues, against: nil)
        bytes.append(0)
        expectError(.trailingData, bytes, schema: schema, "a whole byte after the end")
        bytes.removeLast()
        bytes[bytes.count - 1] |= 0x80
        expectError(.trailingData, bytes, schema: schema, "a set padding bit")
    }

    @Test("varints: over ten groups, a 65th bit, or an over-long form are malformed; gamma and widths are checked")
    func varints() {
        func readVarint(_ bytes: [UInt8]) throws(CodecError) -> UInt64 {
            var reader = BitReader(bytes)
            return try reader.readVarint()
        }
        for bad: [UInt8] in [
            Array(repeating: 0xFF, count: 10) + [0x01],
            Array(repeating: 0xFF, count: 9) + [0x02],
            [0x80, 0x00],
        ] {
            #expect(throws: CodecError.self, "\(bad) is not a valid varint") { try readVarint(bad) }
        }
        #expect((try? readVarint(Array(repeating: 0xFF, count: 9) + [0x01])) == .max, "ten groups ending in 1 are 2^64 − 1")
        #expect(throws: CodecError.self) { try readVarint([0x80]) }
        var widest = BitWriter()
        widest.writeGamma(.max)
        #expect(widest.bitCount == 127, "2^64 − 1, the longest gamma code: 63 zeros, a one, 63 bits")
        var widestReader = BitReader(widest.bytes)
        #expect((try? widestReader.readGamma()) == .max, "63 leading zeros (the limit) are accepted")
        #expect(throws: CodecError.self, "64 zero bits are no gamma code") {
            var reader = BitReader(Array(repeating: 0, count: 9))
            _ = try reader.readGamma()
        }
        #expect(throws: CodecError.self) {
            var reader = BitReader([0])
            _ = try reader.read(bits: 65)
        }
        #expect(throws: CodecError.self) {
            var reader = BitReader([0])
            _ = try reader.read(bits: 9)
        }
    }
}

import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("ByteReader")
struct ByteReaderTests {
    @Test("reads back what ByteWriter wrote, for seeded random values")
    func roundTrip() throws {
        var random = SplitMix64(seed: 0xB17E)
        for _ in 0..<200 {
            // Mix magnitudes so every varint length from 1 to 10 bytes shows up.
            let unsigned = random.next() >> (random.next() % 64)
            let signed = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
            let wide = random.next()
            var writer = ByteWriter()
            writer.writeVarUInt(unsigned)
            writer.writeVarInt(signed)
            writer.writeUInt64(wide)
            writer.writeUInt16(UInt16(truncatingIfNeeded: wide))
            writer.writeUInt32(UInt32(truncatingIfNeeded: wide >> 7))
            var reader = ByteReader(writer.bytes)
            #expect(try reader.readVarUInt() == unsigned)
            #expect(try reader.readVarInt() == signed)
            #expect(try reader.readUInt64() == wide)
            #expect(try reader.readUInt16() == UInt16(truncatingIfNeeded: wide))
            #expect(try reader.readUInt32() == UInt32(truncatingIfNeeded: wide >> 7))
            #expect(reader.isAtEnd)
        }
    }

    @Test("a varint cut short throws truncated")
    func truncatedVarint() {
        var reader = ByteReader([0x80, 0x80])
        #expect(throws: FrameError.truncated(offset: 2, needed: 1)) { try reader.readVarUInt() }
    }

    @Test("a fixed-width integer cut short throws truncated with the missing count")
    func truncatedFixed() {
        var reader = ByteReader([1, 2, 3])
        #expect(throws: FrameError.truncated(offset: 3, needed: 1)) { try reader.readUInt32() }
        #expect(reader.offset == 0, "a failed read must not move the reader")
    }

    @Test("the largest ten-byte varint is accepted; one bit more overflows")
    func varintOverflowBoundary() throws {
        let largest: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        var reader = ByteReader(largest)
        #expect(try reader.readVarUInt() == UInt64.max)
        var over = ByteReader(Array(repeating: 0xFF, count: 9) + [0x02])
        #expect(throws: FrameError.varintOverflow(offset: 0)) { try over.readVarUInt() }
        var eleven = ByteReader(Array(repeating: 0xFF, count: 10) + [0x01])
        #expect(throws: FrameError.varintOverflow(offset: 0)) { try eleven.readVarUInt() }
    }

    static let overlongVarints: [[UInt8]] = [[0x80, 0x00], [0xFF, 0x80, 0x00]]

    @Test("an overlong varint is refused", arguments: overlongVarints)
    func overlongVarint(bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        #expect(throws: FrameError.nonCanonicalVarint(offset: 0)) { try reader.readVarUInt() }
    }

    @Test("a 32-bit varint field refuses a larger value")
    func varint32Range() throws {
        var writer = ByteWriter()
        writer.writeVarUInt(UInt64(UInt32.max))
        writer.writeVarUInt(UInt64(UInt32.max) + 1)
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readVarUInt32(field: "tick") == UInt32.max)
        #expect(throws: FrameError.valueOutOfRange(field: "tick", value: 1 << 32, maximum: UInt64(UInt32.max))) {
            try reader.readVarUInt32(field: "tick")
        }
    }

    @Test("a byte string at its limit is read; one byte longer is refused before allocating")
    func lengthLimit() throws {
        var writer = ByteWriter()
        writer.writeLengthPrefixedBytes([UInt8](repeating: 1, count: 8))
        var atLimit = ByteReader(writer.bytes)
        #expect(try atLimit.readLengthPrefixedBytes(field: "token", limit: 8).count == 8)
        var pastLimit = ByteReader(writer.bytes)
        #expect(throws: FrameError.lengthExceeded(field: "token", length: 8, limit: 7)) {
            try pastLimit.readLengthPrefixedBytes(field: "token", limit: 7)
        }
        // A huge declared length is refused by the limit, never allocated.
        var huge = ByteWriter()
        huge.writeVarUInt(UInt64.max)
        var hugeReader = ByteReader(huge.bytes)
        #expect(throws: FrameError.lengthExceeded(field: "token", length: UInt64.max, limit: 64)) {
            try hugeReader.readLengthPrefixedBytes(field: "token", limit: 64)
        }
    }

    @Test("a text that is not UTF-8 is refused")
    func invalidUTF8() {
        var reader = ByteReader([2, 0xC3, 0x28])
        #expect(throws: FrameError.invalidUTF8(field: "room name")) { try reader.readString(field: "room name", limit: 64) }
    }

    @Test("a reader over a range reads only that range")
    func range() throws {
        var reader = ByteReader([9, 1, 2, 9], range: 1..<3)
        #expect(try reader.readUInt16() == 0x0102)
        #expect(reader.isAtEnd)
        #expect(throws: FrameError.truncated(offset: 3, needed: 1)) { try reader.readUInt8() }
    }
}

import Testing

@testable import TickwireCodec

@Suite("ByteWriter")
struct ByteWriterTests {
    @Test("fixed-width integers are big-endian")
    func fixedWidths() {
        var writer = ByteWriter()
        writer.writeUInt8(0xAB)
        writer.writeUInt16(0x0102)
        writer.writeUInt32(0x0304_0506)
        writer.writeUInt64(0x0708_090A_0B0C_0D0E)
        #expect(writer.bytes == [0xAB, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    }

    static let varintVectors: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (300, [0xAC, 0x02]),
        (16_383, [0xFF, 0x7F]),
        (16_384, [0x80, 0x80, 0x01]),
        (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test("varints are LEB128 in their shortest form", arguments: varintVectors)
    func varints(value: UInt64, expected: [UInt8]) {
        var writer = ByteWriter()
        writer.writeVarUInt(value)
        #expect(writer.bytes == expected, "varint of \(value)")
    }

    static let zigzagVectors: [(Int64, UInt64)] = [
        (0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max),
    ]

    @Test("zigzag maps small magnitudes to small numbers", arguments: zigzagVectors)
    func zigzag(value: Int64, expected: UInt64) {
        #expect(ByteWriter.zigzag(value) == expected)
    }

    @Test("byte strings and texts carry a varint length")
    func lengthPrefixed() {
        var writer = ByteWriter()
        writer.writeLengthPrefixedBytes([9, 8, 7])
        writer.writeString("hé")
        #expect(writer.bytes == [3, 9, 8, 7, 3, 0x68, 0xC3, 0xA9])
    }
}

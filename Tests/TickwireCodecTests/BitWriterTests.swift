import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("BitWriter and BitReader")
struct BitWriterTests {
    @Test("unsigned values round-trip at every width 0...64", arguments: 0...64)
    func everyWidth(bits: Int) throws {
        var rng = SplitMix64(seed: UInt64(bits) &* 7919)
        let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
        var values: [UInt64] = [0, mask, mask >> 1, 1 & mask]
        for _ in 0..<60 { values.append(rng.next() & mask) }
        for misalignment in 0..<8 {
            var writer = BitWriter()
            writer.write(0x55, bits: misalignment)
            for value in values { writer.write(value, bits: bits) }
            #expect(writer.bitCount == misalignment + values.count * bits)
            var reader = BitReader(writer.bytes)
            #expect(try reader.read(bits: misalignment) == 0x55 & ((1 << UInt64(misalignment)) - 1))
            for value in values {
                let read = try reader.read(bits: bits)
                #expect(read == value, "width \(bits) at misalignment \(misalignment): wrote \(value), read \(read)")
            }
            try reader.finish()
        }
    }

    @Test("gamma codes of every length 1...64 bits of value read back, mid-stream and at the very end", arguments: 0..<8)
    func gammaEveryLength(misalignment: Int) throws {
        // Codes of 2·z + 1 bits: up to z = 27 they fit one peeked word, past it they take the long path.
        var values: [UInt64] = [1, 2, 3, .max, .max - 1]
        for zeros in 0..<64 {
            values.append(UInt64(1) << UInt64(zeros))
            values.append((UInt64(1) << UInt64(zeros)) | (UInt64(0xA5A5_A5A5_A5A5_A5A5) & BitWriter.maskForTests(zeros)))
        }
        for value in values {
            var writer = BitWriter()
            writer.write(0x2D, bits: misalignment)
            writer.writeGamma(value)
            writer.write(true)
            writer.writeGamma(value)  // the last code ends within the final byte
            var reader = BitReader(writer.bytes)
            _ = try reader.read(bits: misalignment)
            #expect(try reader.readGamma() == value, "gamma \(value) mid-stream at misalignment \(misalignment)")
            #expect(try reader.readBool(), "the bit after gamma \(value) was lost")
            #expect(try reader.readGamma() == value, "gamma \(value) at the end at misalignment \(misalignment)")
            try reader.finish()
        }
    }

    @Test("a random mix of every kind of write reads back in order", arguments: 0..<20)
    func mixedStream(seed: UInt64) throws {
        enum Item: Equatable {
            case unsigned(UInt64, Int), bool(Bool), signed(Int64, Int), varint(UInt64), signedVarint(Int64), gamma(UInt64)
            case bounded(Int64, ClosedRange<Int64>)
        }
        var rng = SplitMix64(seed: seed)
        var items: [Item] = []
        for _ in 0..<400 {
            let bits = Int.random(in: 0...64, using: &rng)
            let value = rng.next() >> UInt64(Int.random(in: 0...63, using: &rng))
            switch rng.next() % 7 {
            case 0: items.append(.unsigned(bits == 64 ? value : value & ((1 << UInt64(bits)) - 1), bits))
            case 1: items.append(.bool(value & 1 == 1))
            case 2:
                let width = max(bits, 1)
                let limit = width == 64 ? Int64.max : (Int64(1) << Int64(width - 1)) - 1
                items.append(.signed(Int64.random(in: -limit - 1...limit, using: &rng), width))
            case 3: items.append(.varint(value))
            case 4: items.append(.signedVarint(Int64(bitPattern: value)))
            case 5: items.append(.gamma(max(value, 1)))
            default:
                let a = Int64(bitPattern: rng.next()), b = Int64(bitPattern: rng.next() >> UInt64(Int.random(in: 0...63, using: &rng)))
                let range = min(a, b)...max(a, b)
                items.append(.bounded(Int64.random(in: range, using: &rng), range))
            }
        }
        var writer = BitWriter()
        for item in items {
            switch item {
            case let .unsigned(value, bits): writer.write(value, bits: bits)
            case let .bool(value): writer.write(value)
            case let .signed(value, bits): writer.write(signed: value, bits: bits)
            case let .varint(value): writer.writeVarint(value)
            case let .signedVarint(value): writer.writeSignedVarint(value)
            case let .gamma(value): writer.writeGamma(value)
            case let .bounded(value, range): writer.write(value, in: range)
            }
        }
        var reader = BitReader(writer.bytes)
        for item in items {
            let read: Item
            switch item {
            case let .unsigned(_, bits): read = .unsigned(try reader.read(bits: bits), bits)
            case .bool: read = .bool(try reader.readBool())
            case let .signed(_, bits): read = .signed(try reader.readSigned(bits: bits), bits)
            case .varint: read = .varint(try reader.readVarint())
            case .signedVarint: read = .signedVarint(try reader.readSignedVarint())
            case .gamma: read = .gamma(try reader.readGamma())
            case let .bounded(_, range): read = .bounded(try reader.read(in: range), range)
            }
            #expect(read == item, "seed \(seed): wrote \(item), read \(read)")
            if read != item { return }
        }
        try reader.finish()
    }
}

extension BitWriter {
    /// The low `bits` bits set (0...64), for building test values.
    static func maskForTests(_ bits: Int) -> UInt64 {
        bits >= 64 ? .max : (UInt64(1) << UInt64(bits)) - 1
    }
}

import Testing

@testable import TickwireZlib

@Suite("Deflater and Inflater")
struct InflaterTests {
    static let sample: [UInt8] = Array("the quick brown fox jumps over the lazy dog, again and again. ".utf8)

    @Test("a zlib stream round-trips with Z_FINISH", arguments: [9, 12, 15])
    func zlibRoundTrip(windowBits: Int) throws {
        let deflater = try Deflater(format: .zlib, windowBits: windowBits)
        let inflater = try Inflater(format: .zlib, windowBits: windowBits)
        let input = Array(repeating: Self.sample, count: 50).flatMap { $0 }
        let compressed = deflater.compress(input, flush: .finish)
        #expect(compressed.count < input.count / 10, "repetitive text should compress at least tenfold")
        let output = try inflater.inflate(compressed, limit: InflationLimit(maximumBytes: 1 << 20), requiresEnd: true)
        #expect(output == input)
        // The deflater and inflater reset after a finished stream, so a second one works too.
        let again = try inflater.inflate(deflater.compress(input, flush: .finish), limit: .init(maximumBytes: 1 << 20), requiresEnd: true)
        #expect(again == input)
    }

    @Test("sync-flushed raw messages share a history and end in 00 00 FF FF")
    func contextTakeover() throws {
        let deflater = try Deflater(format: .raw)
        let inflater = try Inflater(format: .raw)
        let first = deflater.compress(Self.sample, flush: .sync)
        let second = deflater.compress(Self.sample, flush: .sync)
        #expect(Array(first.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF])
        #expect(second.count < first.count, "the second copy should be a back-reference into the shared window")
        let limit = InflationLimit(maximumBytes: 4096)
        #expect(try inflater.inflate(first, limit: limit) == Self.sample)
        #expect(try inflater.inflate(second, limit: limit) == Self.sample)
    }

    @Test("an empty input inflates to nothing")
    func emptyInput() throws {
        let inflater = try Inflater(format: .raw)
        #expect(try inflater.inflate([], limit: .init(maximumBytes: 16)).isEmpty)
    }

    @Test("a deflate bomb is refused by the size limit before it is inflated")
    func bombBySize() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let bomb = try Deflater(format: .zlib, level: 9).compress(zeros, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        let limit = InflationLimit(maximumBytes: 1 << 20, maximumRatio: .max)
        #expect(throws: ZlibError.inflatedSizeExceeded(limit: 1 << 20)) {
            try inflater.inflate(bomb, limit: limit, requiresEnd: true)
        }
    }

    @Test("a deflate bomb is refused by the ratio limit even under the size limit")
    func bombByRatio() throws {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let bomb = try Deflater(format: .zlib, level: 9).compress(zeros, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        let limit = InflationLimit(maximumBytes: 16 << 20, maximumRatio: 100, ratioAllowanceBytes: 1024)
        #expect(throws: ZlibError.ratioExceeded(ratio: 100, inputBytes: bomb.count)) {
            try inflater.inflate(bomb, limit: limit, requiresEnd: true)
        }
    }

    @Test("output exactly at the size limit is accepted, one byte over is refused")
    func sizeLimitBoundary() throws {
        let input = [UInt8](repeating: 7, count: 1000)
        let compressed = try Deflater(format: .zlib).compress(input, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        #expect(try inflater.inflate(compressed, limit: .init(maximumBytes: 1000), requiresEnd: true) == input)
        #expect(throws: ZlibError.inflatedSizeExceeded(limit: 999)) {
            try inflater.inflate(compressed, limit: .init(maximumBytes: 999), requiresEnd: true)
        }
    }

    @Test("corrupt and truncated input throw typed errors")
    func corruptAndTruncated() throws {
        let compressed = try Deflater(format: .zlib).compress(Self.sample, flush: .finish)
        let inflater = try Inflater(format: .zlib)
        #expect(throws: ZlibError.truncated) {
            try inflater.inflate(Array(compressed.dropLast(6)), limit: .init(maximumBytes: 4096), requiresEnd: true)
        }
        var corrupt = compressed
        corrupt[0] ^= 0xFF
        #expect {
            try inflater.inflate(corrupt, limit: .init(maximumBytes: 4096), requiresEnd: true)
        } throws: { error in
            guard let error = error as? ZlibError else { return false }
            return !error.isLimitExceeded && error != .truncated
        }
    }

    @Test("window bits outside 9...15 are refused", arguments: [8, 16, 0])
    func windowBitsRange(bits: Int) {
        #expect(throws: ZlibError.invalidWindowBits(bits)) { try Deflater(format: .raw, windowBits: bits) }
        #expect(throws: ZlibError.invalidWindowBits(bits)) { try Inflater(format: .raw, windowBits: bits) }
    }

    @Test("seeded garbage never crashes the inflater")
    func garbage() throws {
        var state: UInt64 = 0x5EED
        for _ in 0..<500 {
            let count = Int(state % 300)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // LCG step, wraps by design
                bytes.append(UInt8(truncatingIfNeeded: state >> 56))
            }
            let inflater = try Inflater(format: .raw)
            _ = try? inflater.inflate(bytes, limit: .init(maximumBytes: 1 << 16))
        }
    }
}

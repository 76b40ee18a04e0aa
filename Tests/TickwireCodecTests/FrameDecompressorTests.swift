import Testing
import TickwireFoundation
import TickwireZlib

@testable import TickwireCodec

@Suite("FrameDecompressor")
struct FrameDecompressorTests {
    static let appType = MessageType(rawValue: 0x42)!

    /// A compressed frame of `body` made with no limits, as a hostile or broken peer could send.
    static func unboundedFrame(_ body: [UInt8], mode: CompressionMode, level: Int = 9) throws -> [UInt8] {
        let relaxed = FrameLimits(
            maximumFrameBytes: .max, maximumBodyBytes: .max, maximumInflationRatio: .max, inflationRatioAllowanceBytes: .max
        )
        let frame = try FrameCompressor(mode: mode, level: level, limits: relaxed).compress(type: appType, body: body)
        try #require(frame[0] & Frame.compressedFlag != 0, "the test frame must be compressed")
        return frame
    }

    @Test("a zlib bomb is refused by the ratio cap before it is inflated", arguments: [CompressionMode.perFrame, .streaming])
    func bombByRatio(mode: CompressionMode) throws {
        let bomb = try Self.unboundedFrame([UInt8](repeating: 0, count: 16 << 20), mode: mode)
        #expect(bomb.count < 20_000, "16 MiB of zeros deflate to about 16 kB")
        let decompressor = try FrameDecompressor(mode: mode)
        #expect {
            try decompressor.decode(bomb)
        } throws: { error in
            (error as? FrameError)?.isInflationLimitExceeded == true
        }
    }

    @Test("a zlib bomb under the ratio cap is refused by the size cap", arguments: [CompressionMode.perFrame, .streaming])
    func bombBySize(mode: CompressionMode) throws {
        let bomb = try Self.unboundedFrame([UInt8](repeating: 0, count: 16 << 20), mode: mode)
        let decompressor = try FrameDecompressor(mode: mode, limits: FrameLimits(maximumInflationRatio: .max))
        #expect(throws: FrameError.inflation(.inflatedSizeExceeded(limit: 1 << 20))) { try decompressor.decode(bomb) }
    }

    @Test(
        "an inflated body exactly at the body limit is accepted; one byte more is refused",
        arguments: [CompressionMode.perFrame, .streaming])
    func inflatedSizeLimit(mode: CompressionMode) throws {
        let limits = FrameLimits(maximumBodyBytes: 4_000)
        let atLimit = try Self.unboundedFrame([UInt8](repeating: 5, count: 4_000), mode: mode)
        #expect(try FrameDecompressor(mode: mode, limits: limits).decompress(atLimit).body.count == 4_000)
        let past = try Self.unboundedFrame([UInt8](repeating: 5, count: 4_001), mode: mode)
        #expect(throws: FrameError.inflation(.inflatedSizeExceeded(limit: 4_000))) {
            try FrameDecompressor(mode: mode, limits: limits).decompress(past)
        }
    }

    @Test("the ratio cap: a body just under it is accepted, one at it is refused", arguments: [CompressionMode.perFrame, .streaming])
    func ratioLimit(mode: CompressionMode) throws {
        let body = [UInt8](repeating: 1, count: 100_000)
        let frame = try Self.unboundedFrame(body, mode: mode)
        // The receiver counts the compressed body, plus the restored 00 00 FF FF when streaming.
        let input = frame.count - 1 + (mode == .streaming ? 4 : 0)
        let ratio = body.count / input
        let under = FrameLimits(maximumInflationRatio: ratio + 1, inflationRatioAllowanceBytes: 1_000)
        #expect(try FrameDecompressor(mode: mode, limits: under).decompress(frame).body == body)
        let at = FrameLimits(maximumInflationRatio: ratio, inflationRatioAllowanceBytes: 1_000)
        #expect(throws: FrameError.inflation(.ratioExceeded(ratio: ratio, inputBytes: input))) {
            try FrameDecompressor(mode: mode, limits: at).decompress(frame)
        }
        // The allowance: the same frame is never refused for its ratio when it fits the allowance.
        let allowed = FrameLimits(maximumInflationRatio: ratio, inflationRatioAllowanceBytes: body.count)
        #expect(try FrameDecompressor(mode: mode, limits: allowed).decompress(frame).body == body)
    }

    @Test("an uncompressed body over the body limit is refused")
    func uncompressedBodyLimit() throws {
        let limits = FrameLimits(maximumBodyBytes: 10)
        let decompressor = try FrameDecompressor(mode: .none, limits: limits)
        #expect(try decompressor.decompress([0x42] + [UInt8](repeating: 0, count: 10)).body.count == 10)
        #expect(throws: FrameError.bodyTooLarge(size: 11, limit: 10)) {
            try decompressor.decompress([0x42] + [UInt8](repeating: 0, count: 11))
        }
    }

    @Test("the compressed flag is refused in mode none and on handshake messages")
    func unexpectedCompression() throws {
        #expect(throws: FrameError.unexpectedCompression(type: 0x06, mode: 0)) {
            try FrameDecompressor(mode: .none).decode([0x86, 0x01])
        }
        #expect(throws: FrameError.unexpectedCompression(type: 0x01, mode: 2)) {
            try FrameDecompressor(mode: .streaming).decode([0x81, 0x01])
        }
    }

    @Test("after an error a streaming decompressor refuses everything; a per-frame one recovers")
    func errorRecovery() throws {
        let ping = Message.ping(.init(clientTime: 99))
        let streaming = try FrameDecompressor(mode: .streaming)
        #expect(throws: FrameError.self) { try streaming.decode([0x86, 0xFF, 0xFF, 0xFF]) }
        #expect(streaming.isBroken)
        #expect(throws: FrameError.compressionContextBroken) { try streaming.decode([0x06, 99]) }
        let perFrame = try FrameDecompressor(mode: .perFrame)
        #expect(throws: FrameError.self) { try perFrame.decode([0x86, 0x78, 0x9C, 0xFF, 0xFF]) }
        let good = try Self.unboundedFrame(Array(repeating: 9, count: 300), mode: .perFrame)
        #expect(try perFrame.decompress(good).body.count == 300)
        #expect(try perFrame.decode([0x06, 99]) == ping)
        // A bad message body after a good inflation leaves the streaming history intact.
        let fresh = try FrameDecompressor(mode: .streaming)
        #expect(throws: FrameError.trailingBytes(type: 6, count: 1)) { try fresh.decode([0x06, 99, 0]) }
        #expect(!fresh.isBroken)
    }

    @Test("a per-frame zlib stream must end exactly at the end of the body")
    func perFrameStreamBounds() throws {
        let frame = try Self.unboundedFrame(Array(repeating: 6, count: 300), mode: .perFrame)
        let decompressor = try FrameDecompressor(mode: .perFrame)
        for bad in [frame + [0], Array(frame.dropLast(2))] {
            #expect {
                try decompressor.decompress(bad)
            } throws: { error in
                guard let error = error as? FrameError else { return false }
                return !error.isInflationLimitExceeded && error != .compressionContextBroken
            }
        }
        #expect(try decompressor.decompress(frame).body.count == 300, "a per-frame decompressor recovers after each error")
    }

    @Test("a corrupted frame in the middle of a streaming sequence is refused or decodes, and never crashes later frames")
    func streamingMidSequenceCorruption() throws {
        var random = SplitMix64(seed: 0xC0DE)
        var refusedLater = 0
        for _ in 0..<100 {
            let compressor = try FrameCompressor(mode: .streaming)
            let frames = try MessageSamples.all.map { try compressor.encode($0) }
            let victim = Int(random.next() % UInt64(frames.count))
            var corrupted = frames
            if !corrupted[victim].isEmpty {
                corrupted[victim][Int(random.next() % UInt64(corrupted[victim].count))] ^= 1 << (random.next() % 8)
            }
            let decompressor = try FrameDecompressor(mode: .streaming)
            for (index, frame) in corrupted.enumerated() {
                do {
                    _ = try decompressor.decode(frame)
                } catch {
                    if index > victim { refusedLater += 1 }
                }
            }
            if decompressor.isBroken { #expect(throws: FrameError.compressionContextBroken) { try decompressor.decode(frames[0]) } }
        }
        #expect(refusedLater > 0, "a broken context must refuse the frames after the corrupted one")
    }

    @Test("a final deflate block inside a streaming context is refused on its own frame, whatever it inflates to (protocol 1.1)")
    func finalBlockInStream() throws {
        let finished = try Deflater(format: .raw).compress(Array(repeating: 3, count: 200), flush: .finish)
        for next: [UInt8] in [[0x42, 1, 2, 3], try Self.unboundedFrame(Array(repeating: 4, count: 200), mode: .streaming)] {
            let decompressor = try FrameDecompressor(mode: .streaming)
            #expect(throws: FrameError.compressionStreamEnded) { try decompressor.decompress([0xC2] + finished) }
            #expect(throws: FrameError.compressionContextBroken) { try decompressor.decompress(next) }
        }
    }

    @Test(
        "seeded garbage never crashes: every frame decodes or throws a FrameError",
        arguments: [CompressionMode.none, .perFrame, .streaming])
    func garbage(mode: CompressionMode) throws {
        var random = SplitMix64(seed: 0x6A5B + UInt64(mode.rawValue))
        var decompressor = try FrameDecompressor(mode: mode)
        var decoded = 0
        for _ in 0..<3_000 {
            let count = Int(random.next() % 64)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Bias the type byte towards real types so bodies get parsed, not just refused.
            if !bytes.isEmpty && random.next() % 2 == 0 { bytes[0] = UInt8(random.next() % 10) | (bytes[0] & 0x80) }
            do {
                _ = try decompressor.decode(bytes)
                decoded += 1
            } catch {
                if decompressor.isBroken { decompressor = try FrameDecompressor(mode: mode) }
            }
        }
        #expect(decoded > 0, "some garbage should decode, or the test exercises only the first checks")
    }

    @Test(
        "truncated and bit-flipped frames decode or throw; in mode none what decodes re-encodes to the same bytes",
        arguments: [CompressionMode.none, .perFrame, .streaming])
    func mutations(mode: CompressionMode) throws {
        var random = SplitMix64(seed: 0xF11B + UInt64(mode.rawValue))
        var outcomes = (decoded: 0, refused: 0)
        for message in MessageSamples.all {
            let original = try FrameCompressor(mode: mode).encode(message)
            for trial in 0..<200 {
                var bytes = original
                if trial % 4 == 0 {
                    bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
                } else {
                    for _ in 0...(random.next() % 3) where !bytes.isEmpty {
                        bytes[Int(random.next() % UInt64(bytes.count))] ^= 1 << (random.next() % 8)
                    }
                }
                do {
                    let decoded = try FrameDecompressor(mode: mode).decode(bytes)
                    outcomes.decoded += 1
                    if mode == .none {
                        #expect(
                            try FrameCompressor(mode: .none).encode(decoded) == bytes,
                            "decoding is canonical: a frame that decodes must re-encode to the same bytes")
                    }
                } catch {
                    outcomes.refused += 1
                }
            }
        }
        #expect(outcomes.decoded > 0 && outcomes.refused > 0)
    }
}

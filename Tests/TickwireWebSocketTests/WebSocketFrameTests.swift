import Foundation
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("WebSocketFrame")
struct WebSocketFrameTests {
    static let rfcKey = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)
    static let hello = Array("Hello".utf8)

    /// The examples of RFC 6455 section 5.7, as (frames, wire hex, decoding role).
    static let rfcExamples: [(String, [WebSocketFrame], String, WebSocketRole)] = [
        ("single-frame unmasked text", [WebSocketFrame(opcode: .text, payload: hello)], "810548656c6c6f", .client),
        (
            "single-frame masked text", [WebSocketFrame(opcode: .text, payload: hello, maskingKey: rfcKey)],
            "818537fa213d7f9f4d5158", .server
        ),
        (
            "fragmented unmasked text",
            [
                WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
                WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
            ],
            "010348656c" + "80026c6f", .client
        ),
        ("unmasked ping", [WebSocketFrame(opcode: .ping, payload: hello)], "890548656c6c6f", .client),
        ("masked pong", [WebSocketFrame(opcode: .pong, payload: hello, maskingKey: rfcKey)], "8a8537fa213d7f9f4d5158", .server),
    ]

    @Test("RFC 6455 section 5.7 examples encode byte for byte", arguments: 0..<5)
    func rfcEncode(index: Int) {
        let (name, frames, hex, _) = Self.rfcExamples[index]
        var wire: [UInt8] = []
        for frame in frames { frame.encode(into: &wire) }
        #expect(hexString(wire) == hex, "\(name) must encode exactly as RFC 6455 shows")
    }

    @Test("RFC 6455 section 5.7 examples decode to the same frames", arguments: 0..<5)
    func rfcDecode(index: Int) throws {
        let (name, frames, hex, role) = Self.rfcExamples[index]
        let decoded = try decodeFrames([bytes(hex: hex)], role: role)
        #expect(decoded == frames, "\(name) must decode to the frames RFC 6455 describes")
    }

    @Test("256-byte and 64 KiB binary frames use the 16-bit and 64-bit length forms (RFC 6455 5.7)")
    func lengthForms() throws {
        var generator = SplitMix64(seed: 3)
        let medium = randomBytes(256, using: &generator)
        let large = randomBytes(65536, using: &generator)
        let mediumWire = WebSocketFrame(opcode: .binary, payload: medium).encoded()
        let largeWire = WebSocketFrame(opcode: .binary, payload: large).encoded()
        #expect(Array(mediumWire.prefix(4)) == [0x82, 0x7E, 0x01, 0x00], "256 bytes must use 126 + 16-bit length 0x0100")
        #expect(Array(largeWire.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0], "64 KiB must use 127 + 64-bit length")
        #expect(try decodeFrames([mediumWire], role: .client).first?.payload == medium, "256-byte payload must survive")
        #expect(try decodeFrames([largeWire], role: .client).first?.payload == large, "64 KiB payload must survive")
    }

    @Test(
        "the shortest length form is chosen at every boundary",
        arguments: [
            (0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10),
        ])
    func lengthBoundaries(length: Int, headerSize: Int) {
        let header = WebSocketFrameHeader(opcode: .binary, payloadLength: length)
        var wire: [UInt8] = []
        header.encode(into: &wire)
        #expect(wire.count == headerSize, "a \(length)-byte payload needs a \(headerSize)-byte header")
        #expect(header.encodedSize == headerSize, "encodedSize must agree with what encode writes")
    }

    @Test("masking by vectors equals byte-wise XOR at every phase and length, short and wide")
    func maskingMatchesReference() {
        var generator = SplitMix64(seed: 11)
        // Past 256 bytes the wide (AVX2) loop takes 128- and 32-byte steps before the portable one.
        let wide = [255, 256, 257, 287, 288, 383, 384, 415, 4099, 65_536 + 13]
        for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 1029] + wide {
            for phase in 0..<4 {
                let key = WebSocketMaskingKey.random(using: &generator)
                let keyBytes = [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3]
                let data = randomBytes(length, using: &generator)
                let expected = data.enumerated().map { $0.element ^ keyBytes[($0.offset + phase) % 4] }
                var masked = data
                masked.withUnsafeMutableBytes { key.apply(to: $0, phase: phase) }
                #expect(masked == expected, "length \(length), phase \(phase): fast masking must equal the RFC's byte rule")
                masked.withUnsafeMutableBytes { key.apply(to: $0, phase: phase) }
                #expect(masked == data, "masking twice must give back the original")
                // The copying form writes exactly `length` bytes and leaves the rest alone.
                var copy = [UInt8](repeating: 0xA5, count: length + 5)
                data.withUnsafeBytes { source in copy.withUnsafeMutableBytes { key.apply(from: source, to: $0, phase: phase) } }
                #expect(Array(copy[..<length]) == expected, "length \(length), phase \(phase): copy-and-mask must equal the byte rule")
                #expect(copy[length...].allSatisfy { $0 == 0xA5 }, "copy-and-mask must not write past the source's length")
            }
        }
    }

    @Test("wide masking works from and to unaligned addresses, in place, and leaves the bytes around alone")
    func wideMaskingUnaligned() {
        var generator = SplitMix64(seed: 12)
        let key = WebSocketMaskingKey.random(using: &generator)
        let keyBytes = [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3]
        let data = randomBytes(1000, using: &generator)
        for start in 0..<8 {
            for phase in 0..<4 {
                let length = 700 + start
                let source = Array(data[start..<(start + length)])
                let expected = source.enumerated().map { $0.element ^ keyBytes[($0.offset + phase) % 4] }
                // In place, inside a larger buffer at an odd offset.
                var buffer = data
                buffer.withUnsafeMutableBytes {
                    key.apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[start..<(start + length)]), phase: phase)
                }
                #expect(Array(buffer[start..<(start + length)]) == expected, "in place at offset \(start), phase \(phase)")
                #expect(
                    buffer[..<start] == data[..<start] && buffer[(start + length)...] == data[(start + length)...],
                    "in place at offset \(start): bytes outside the range must not change")
                // From one unaligned address to another.
                var target = [UInt8](repeating: 0x5A, count: length + 16)
                source.withUnsafeBytes { from in
                    target.withUnsafeMutableBytes {
                        key.apply(from: from, to: UnsafeMutableRawBufferPointer(rebasing: $0[(start + 1)...]), phase: phase)
                    }
                }
                #expect(Array(target[(start + 1)..<(start + 1 + length)]) == expected, "copying to offset \(start + 1), phase \(phase)")
                #expect(
                    target[..<(start + 1)].allSatisfy { $0 == 0x5A } && target[(start + 1 + length)...].allSatisfy { $0 == 0x5A },
                    "copying to offset \(start + 1): bytes outside the destination range must not change")
            }
        }
    }

    @Test("the wide masking loop masks all or nothing, aligning its stores itself, and runs on an x86-64 CPU with AVX2")
    func wideMaskingWhole() throws {
        #if arch(x86_64) && os(Linux)
        let flags =
            try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
        let cpuHasAVX2 = flags.split(separator: " ").contains("avx2")
        #expect(WebSocketMaskingKey.hasWideMasking == cpuHasAVX2, "wide masking should be on exactly when /proc/cpuinfo lists avx2")
        #endif
        // Every start from 0 to 32 bytes past an aligned address: the loop first masks bytes one
        // at a time up to a 32-byte boundary, then whole vectors, then the tail.
        for start in 0...32 {
            var bytes = [UInt8](repeating: 0, count: 1100)
            let done = bytes.withUnsafeMutableBytes { raw in
                let aligned = (Int(bitPattern: raw.baseAddress!) + 31) & ~31
                let from = UnsafeMutableRawPointer(bitPattern: aligned + start)!
                let offset = from - raw.baseAddress!
                let count = WebSocketMaskingKey.xorWide(from: UnsafeRawPointer(from), to: from, count: 1000, word: 0x0403_0201)
                return (offset: offset, count: count)
            }
            let masked = bytes[done.offset..<(done.offset + 1000)]
            if WebSocketMaskingKey.hasWideMasking {
                #expect(done.count == 1000, "with wide vectors all 1000 bytes are masked (start +\(start))")
                #expect(
                    masked.enumerated().allSatisfy { $0.element == UInt8($0.offset % 4 + 1) },
                    "every byte holds its key byte (start +\(start))")
            } else {
                #expect(done.count == 0, "without wide vectors nothing is done: the portable loop does it all")
            }
            #expect(
                bytes[..<done.offset].allSatisfy { $0 == 0 } && bytes[(done.offset + 1000)...].allSatisfy { $0 == 0 },
                "the bytes around are left alone (start +\(start))")
        }
    }

    @Test("opcodes classify as RFC 6455 defines")
    func opcodes() {
        let reserved = (0..<16).filter { WebSocketOpcode(rawValue: UInt8($0))?.isReserved == true }
        #expect(reserved == [3, 4, 5, 6, 7, 11, 12, 13, 14, 15], "0x3-0x7 and 0xB-0xF are reserved")
        #expect(WebSocketOpcode.close.isControl && WebSocketOpcode.ping.isControl && WebSocketOpcode.pong.isControl)
        #expect(!WebSocketOpcode.text.isControl && !WebSocketOpcode.binary.isControl && !WebSocketOpcode.continuation.isControl)
        #expect(WebSocketOpcode(rawValue: 16) == nil, "an opcode has four bits")
    }
}

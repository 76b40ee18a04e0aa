import Testing
import TickwireCodec
@testable import TickwireWebSocket

@Suite("WebSocketFrame")
struct WebSocketFrameTests {
    static let rfcKey = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)
    static let hello = Array("Hello".utf8)

    /// The examples of RFC 6455 section 5.7, as (frames, wire hex, decoding role).
    static let rfcExamples: [(String, [WebSocketFrame], String, WebSocketRole)] = [
        ("single-frame unmasked text", [WebSocketFrame(opcode: .text, payload: hello)], "810548656c6c6f", .client),
        ("single-frame masked text", [WebSocketFrame(opcode: .text, payload: hello, maskingKey: rfcKey)],
         "818537fa213d7f9f4d5158", .server),
        ("fragmented unmasked text",
         [WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
          WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8))],
         "010348656c" + "80026c6f", .client),
        ("unmasked ping", [WebSocketFrame(opcode: .ping, payload: hello)], "890548656c6c6f", .client),
        ("masked pong", [WebSocketFrame(opcode: .pong, payload: hello, maskingKey: rfcKey)], "8a8537fa213d7f9f4d5158", .server),
    ]

    @Test("RFC 6455 section 5.7 examples encode byte for byte", arguments: 0 ..< 5)
    func rfcEncode(index: Int) {
        let (name, frames, hex, _) = Self.rfcExamples[index]
        var wire: [UInt8] = []
        for frame in frames { frame.encode(into: &wire) }
        #expect(hexString(wire) == hex, "\(name) must encode exactly as RFC 6455 shows")
    }

    @Test("RFC 6455 section 5.7 examples decode to the same frames", arguments: 0 ..< 5)
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

    @Test("the shortest length form is chosen at every boundary", arguments: [
        (0, 2), (125, 2), (126, 4), (65535, 4), (65536, 10),
    ])
    func lengthBoundaries(length: Int, headerSize: Int) {
        let header = WebSocketFrameHeader(opcode: .binary, payloadLength: length)
        var wire: [UInt8] = []
        header.encode(into: &wire)
        #expect(wire.count == headerSize, "a \(length)-byte payload needs a \(headerSize)-byte header")
        #expect(header.encodedSize == headerSize, "encodedSize must agree with what encode writes")
    }

    @Test("masking sixteen bytes at a time equals byte-wise XOR at every phase and length")
    func maskingMatchesReference() {
        var generator = SplitMix64(seed: 11)
        for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 1029] {
            for phase in 0 ..< 4 {
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

    @Test("opcodes classify as RFC 6455 defines")
    func opcodes() {
        let reserved = (0 ..< 16).filter { WebSocketOpcode(rawValue: UInt8($0))?.isReserved == true }
        #expect(reserved == [3, 4, 5, 6, 7, 11, 12, 13, 14, 15], "0x3-0x7 and 0xB-0xF are reserved")
        #expect(WebSocketOpcode.close.isControl && WebSocketOpcode.ping.isControl && WebSocketOpcode.pong.isControl)
        #expect(!WebSocketOpcode.text.isControl && !WebSocketOpcode.binary.isControl && !WebSocketOpcode.continuation.isControl)
        #expect(WebSocketOpcode(rawValue: 16) == nil, "an opcode has four bits")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("WebSocketFrameDecoder")
struct WebSocketFrameDecoderTests {
    func expectError(
        _ wire: [UInt8], role: WebSocketRole, limit: Int = 1 << 24, compressed: Bool = false,
        _ expected: WebSocketError, _ why: String
    ) {
        #expect(throws: expected, "\(why)") {
            _ = try decodeFrames([wire], role: role, limit: limit, allowsCompressedMessages: compressed)
        }
    }

    @Test("a frame split at every possible point decodes the same")
    func everySplit() throws {
        var generator = SplitMix64(seed: 5)
        let frame = WebSocketFrame(
            opcode: .binary, payload: randomBytes(300, using: &generator),
            maskingKey: WebSocketMaskingKey(1, 2, 3, 4))
        let wire = frame.encoded()
        for split in 0...wire.count {
            let decoded = try decodeFrames([Array(wire[..<split]), Array(wire[split...])], role: .server)
            #expect(decoded == [frame], "splitting at byte \(split) must not change the decoded frame")
        }
    }

    @Test("byte-at-a-time feeding decodes a masked 64-bit-length frame")
    func byteAtATime() throws {
        var generator = SplitMix64(seed: 6)
        let frame = WebSocketFrame(
            opcode: .binary, payload: randomBytes(70_000, using: &generator),
            maskingKey: WebSocketMaskingKey(9, 8, 7, 6))
        let wire = frame.encoded()
        let decoded = try decodeFrames(wire.prefix(40).map { [$0] } + [Array(wire.dropFirst(40))], role: .server)
        #expect(decoded == [frame], "feeding the header one byte at a time must still decode the frame")
    }

    @Test("the frame limit is accepted at its value and refused one past it, before any payload")
    func frameLimit() throws {
        let atLimit = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 1000)).encoded()
        #expect(try decodeFrames([atLimit], role: .client, limit: 1000).count == 1, "a 1000-byte frame fits a 1000-byte limit")
        let past = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 1001)).encoded()
        // Only the header is supplied: the limit must trip before any payload arrives.
        expectError(
            Array(past.prefix(4)), role: .client, limit: 1000, .frameTooLarge(length: 1001, limit: 1000),
            "a 1001-byte frame must be refused from its header alone")
        #expect(WebSocketError.frameTooLarge(length: 1001, limit: 1000).closeCode == .messageTooBig, "frame too big maps to 1009")
        let short = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 100)).encoded()
        expectError(short, role: .client, limit: 99, .frameTooLarge(length: 100, limit: 99), "the 7-bit length form is limited too")
    }

    @Test("a 64-bit length with the top bit set is refused")
    func topBit() {
        expectError(
            [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], role: .client,
            .invalidPayloadLength(1 << 63), "RFC 6455 5.2: the most significant bit must be 0")
    }

    @Test("reserved opcodes fail with 1002", arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8])
    func reservedOpcodes(opcode: UInt8) {
        expectError([0x80 | opcode, 0x00], role: .client, .reservedOpcode(opcode), "opcode \(opcode) is reserved")
        #expect(WebSocketError.reservedOpcode(opcode).closeCode == .protocolError)
    }

    @Test("reserved bits fail unless permessage-deflate allows RSV1 on a message's first frame")
    func reservedBits() throws {
        expectError([0xC1, 0x00], role: .client, .reservedBits(0x40), "RSV1 without an extension is a protocol error")
        expectError([0xA1, 0x00], role: .client, compressed: true, .reservedBits(0x20), "RSV2 is never defined")
        expectError([0x91, 0x00], role: .client, compressed: true, .reservedBits(0x10), "RSV3 is never defined")
        expectError(
            [0xC0, 0x00], role: .client, compressed: true, .reservedBits(0x40), "RSV1 on a continuation is an error (RFC 7692 6.1)")
        expectError([0xC9, 0x00], role: .client, compressed: true, .reservedBits(0x40), "RSV1 on a control frame is an error")
        let decoded = try decodeFrames([[0xC1, 0x00]], role: .client, allowsCompressedMessages: true)
        #expect(decoded.first?.header.rsv1 == true, "RSV1 on a first text frame is allowed with permessage-deflate")
    }

    @Test("control frames must not be fragmented or longer than 125 bytes")
    func controlFrames() throws {
        expectError([0x09, 0x00], role: .client, .fragmentedControlFrame(.ping), "a ping with FIN clear is invalid")
        expectError(
            [0x89, 0x7E, 0x00, 0x7E], role: .client, .controlFrameTooLong(opcode: .ping, length: 126),
            "a ping using the 16-bit length form is over 125 bytes")
        let longest = WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 0, count: 125)).encoded()
        #expect(try decodeFrames([longest], role: .client).count == 1, "a 125-byte ping is fine")
    }

    @Test("a server refuses unmasked frames and a client refuses masked ones")
    func maskRules() {
        expectError([0x81, 0x00], role: .server, .unmaskedClientFrame, "client frames must be masked")
        expectError([0x81, 0x80, 1, 2, 3, 4], role: .client, .maskedServerFrame, "server frames must not be masked")
    }

    @Test("the decoder keeps throwing after its first error")
    func staysFailed() {
        var decoder = WebSocketFrameDecoder(role: .client)
        let bad: [UInt8] = [0x83, 0x00]
        bad.withUnsafeBytes { buffer in
            var index = 0
            #expect(throws: WebSocketError.reservedOpcode(3)) { _ = try decoder.next(in: buffer, at: &index) }
            index = 0
            #expect(throws: WebSocketError.reservedOpcode(3), "a failed decoder must not resume") {
                _ = try decoder.next(in: buffer, at: &index)
            }
        }
    }

    @Test("seeded garbage in random chunk sizes never crashes or hangs the decoder", arguments: 0..<8 as Range<UInt64>)
    func garbage(seed: UInt64) {
        var generator = SplitMix64(seed: 0xBAD0 + seed)
        for role in [WebSocketRole.client, .server] {
            for _ in 0..<50 {
                var garbage = randomBytes(Int.random(in: 0...600, using: &generator), using: &generator)
                // Make many inputs start like plausible frames so that deeper states are reached.
                if garbage.count > 2 && Bool.random(using: &generator) {
                    garbage[0] = [0x81, 0x82, 0x01, 0x00, 0x89, 0x8A, 0x88][Int.random(in: 0..<7, using: &generator)]
                    garbage[1] = (role == .server ? 0x80 : 0) | UInt8.random(in: 0...127, using: &generator)
                }
                var decoder = WebSocketFrameDecoder(role: role, maximumFramePayloadBytes: 4096, allowsCompressedMessages: true)
                var consumed = 0
                var steps = 0
                chunkLoop: for chunk in randomChunks(garbage, maximum: 64, using: &generator) {
                    chunk.withUnsafeBytes { buffer in
                        var index = 0
                        do {
                            while (try decoder.next(in: buffer, at: &index)) != nil {
                                steps += 1
                                #expect(steps < 100_000, "the decoder must always make progress")
                                if steps >= 100_000 { return }
                            }
                        } catch {
                            index = buffer.count
                        }
                        #expect(index == buffer.count, "a chunk must be consumed completely or fail")
                        consumed += index
                    }
                }
                #expect(consumed == garbage.count, "every garbage byte must be consumed or refused, never skipped")
            }
        }
    }
}

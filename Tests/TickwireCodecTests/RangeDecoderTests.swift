import Testing

@testable import TickwireCodec

/// ``RangeDecoder``'s end of stream (`Protocol/PROTOCOL.md` §4.5.2): the code must end at 0, so that
/// one sequence of symbols has one payload.
@Suite("Range decoder")
struct RangeDecoderTests {
    @Test("no other payload decodes to a vector's snapshot: every single-byte change is refused or decodes differently")
    func singleByteChanges() throws {
        for name in ["entropy-02-arena-delta.hex", "entropy-05-arena-moves.hex"] {
            let vector = try ProtocolVectorTests.load(name)
            let schema = TestSchemas.arena
            let expected = try ProtocolVectorTests.expectedSnapshot(vector, schema: schema)
            let baseline = try #require(try EntropyVectorTests.baseline(vector, schema: schema))
            let codec = SnapshotCodec(schema: schema)
            var identical: [String] = []
            var refused = 0
            // The payload starts after the three header bytes.
            for position in 3..<vector.bytes.count {
                for value in 0...255 where value != Int(vector.bytes[position]) {
                    var bytes = vector.bytes
                    bytes[position] = UInt8(value)
                    do {
                        let decoded = try codec.decode(bytes, baseline: baseline, coding: .entropy)
                        if decoded == expected { identical.append("byte \(position) = \(value)") }
                    } catch {
                        refused += 1
                    }
                }
            }
            #expect(identical.isEmpty, "\(name): these changes still decode to its snapshot: \(identical.prefix(8))")
            #expect(refused > 0, "\(name): some changes should be refused")
        }
    }

    @Test("a payload whose symbols all decode but whose code does not end at 0 is malformedRangeCode")
    func codeNotZeroAtTheEnd() throws {
        let vector = try ProtocolVectorTests.load("entropy-02-arena-delta.hex")
        let baseline = try EntropyVectorTests.baseline(vector, schema: TestSchemas.arena)
        var bytes = vector.bytes
        // Its fourth-last byte 10 -> 11 (entropy-error-range-code-end): the same symbols, every byte read, the code not 0.
        bytes[bytes.count - 4] ^= 0x01
        do {
            let decoded = try SnapshotCodec(schema: TestSchemas.arena).decode(bytes, baseline: baseline, coding: .entropy)
            Issue.record("the changed payload should be refused but decoded \(decoded.count) entities")
        } catch {
            #expect(error.kind == .malformedRangeCode, "\(error)")
        }
    }
}

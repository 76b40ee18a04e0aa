import Testing

@testable import TickwireCodec

@Suite("Frame")
struct FrameTests {
    @Test("the type byte carries the type in bits 0-6 and the compressed flag in bit 7")
    func envelope() throws {
        let frame = Frame(type: .snapshot, isCompressed: true, body: [1, 2, 3])
        #expect(frame.bytes == [0x84, 1, 2, 3])
        #expect(try Frame(parsing: [0x84, 1, 2, 3]) == frame)
        #expect(try Frame(parsing: [0x06]) == Frame(type: .ping, body: []))
    }

    @Test("an empty frame and type 0 are refused")
    func malformed() {
        #expect(throws: FrameError.emptyFrame) { try Frame(parsing: []) }
        #expect(throws: FrameError.reservedMessageType(0)) { try Frame(parsing: [0x00, 1]) }
        #expect(throws: FrameError.reservedMessageType(0)) { try Frame(parsing: [0x80]) }
    }

    @Test("a frame exactly at the frame limit is parsed; one byte longer is refused")
    func frameLimit() throws {
        let limits = FrameLimits(maximumFrameBytes: 64)
        let atLimit = [0x41] + [UInt8](repeating: 9, count: 63)
        #expect(try Frame(parsing: atLimit, limits: limits).body.count == 63)
        #expect(throws: FrameError.frameTooLarge(size: 65, limit: 64)) { try Frame(parsing: atLimit + [9], limits: limits) }
    }
}

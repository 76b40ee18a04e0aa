import Testing

@testable import TickwireWebSocket

/// The reads of one readiness event end at a message boundary when they can: the channel's read
/// plan, and the machine's count of the bytes that finish the message being received.
@Suite("Reading to a message boundary")
struct ReadToBoundaryTests {
    static let key = WebSocketMaskingKey(0x0A, 0x0B, 0x0C, 0x0D)

    /// The read lengths of one readiness event when every read fills what it asked for.
    func plan(bufferBytes: Int, bytesToBoundary: Int) -> [Int] {
        var lengths: [Int] = []
        var asked = 0
        while let length = TCPChannel.readLength(
            index: lengths.count, bufferBytes: bufferBytes,
            bytesToBoundary: {
                asked += 1
                return bytesToBoundary
            })
        {
            lengths.append(length)
            #expect(lengths.count <= TCPChannel.fullReadsPerEvent + 1, "the plan must end")
            if lengths.count > TCPChannel.fullReadsPerEvent + 1 { break }
        }
        #expect(asked <= 1, "the owner is asked once, for the last read only")
        return lengths
    }

    @Test("full reads, then one read of just the bytes that reach the boundary")
    func readPlan() {
        let full = Array(repeating: 1000, count: TCPChannel.fullReadsPerEvent)
        #expect(plan(bufferBytes: 1000, bytesToBoundary: 0) == full, "at a boundary: no extra read")
        #expect(plan(bufferBytes: 1000, bytesToBoundary: 1) == full + [1], "one byte short: read that byte")
        #expect(plan(bufferBytes: 1000, bytesToBoundary: 1000) == full + [1000], "a whole buffer still fits")
        #expect(plan(bufferBytes: 1000, bytesToBoundary: 1001) == full, "more than a buffer: the message waits for the next turn")
    }

    @Test("the machine counts the payload bytes that finish a final frame, and only those")
    func bytesLeftInFinalFrame() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        func feed(_ bytes: [UInt8]) throws -> [WebSocketEvent] { try server.receive(bytes, output: &output) }
        #expect(server.bytesLeftInFinalFrame == 0, "nothing received yet")

        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = WebSocketFrame(opcode: .binary, payload: payload, maskingKey: Self.key).encoded()
        let header = frame.count - payload.count  // 2 + 8 length bytes + 4 key bytes
        #expect(try feed(Array(frame[..<5])).isEmpty)
        #expect(server.bytesLeftInFinalFrame == 0, "within a header the length is not known yet")
        #expect(try feed(Array(frame[5..<(header + 1000)])).isEmpty)
        #expect(server.bytesLeftInFinalFrame == payload.count - 1000, "mid-payload: the rest of the frame")
        #expect(try feed(Array(frame[(header + 1000)...])) == [.binary(payload)], "the message arrives whole")
        #expect(server.bytesLeftInFinalFrame == 0, "between messages")

        let first = WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3, 4], maskingKey: Self.key).encoded()
        #expect(try feed(Array(first.dropLast(2))).isEmpty)
        #expect(server.bytesLeftInFinalFrame == 0, "a frame that more frames follow does not end the message")
        let last = WebSocketFrame(opcode: .continuation, payload: [5, 6, 7], maskingKey: Self.key).encoded()
        #expect(try feed(Array(first.suffix(2)) + Array(last.dropLast(1))).isEmpty)
        #expect(server.bytesLeftInFinalFrame == 1, "the final frame's last byte")
        #expect(try feed(Array(last.suffix(1))) == [.binary([1, 2, 3, 4, 5, 6, 7])])
        #expect(server.bytesLeftInFinalFrame == 0)
    }

    @Test("the decoder reports the payload still to come, and 0 outside a payload")
    func decoderPayloadBytesRemaining() throws {
        var decoder = WebSocketFrameDecoder(role: .server)
        let wire = WebSocketFrame(opcode: .binary, payload: Array(repeating: 9, count: 300), maskingKey: Self.key).encoded()
        var remaining: [Int] = []
        try wire.withUnsafeBytes { bytes in
            // Fed in slices of 100 bytes; after each slice, the count the decoder reports.
            for start in stride(from: 0, to: bytes.count, by: 100) {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + 100, bytes.count)])
                var index = 0
                while try decoder.next(in: slice, at: &index) != nil {}
                remaining.append(decoder.payloadBytesRemaining)
            }
        }
        // 8 header bytes (2 + 2 length + 4 key): 92, 192, 292 payload bytes read after each slice.
        #expect(remaining == [208, 108, 8, 0], "payload left after each 100-byte slice")
    }
}

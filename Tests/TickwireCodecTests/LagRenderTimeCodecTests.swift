import Testing

@testable import TickwireCodec

/// The lag-compensation extension of the wire (PROTOCOL.md 5.7.1): render times after an input
/// message's inputs, offered in the hello's and accepted in the welcome's compression byte (bit 6).
@Suite("Lag: render times in input messages")
struct LagRenderTimeCodecTests {
    static let inputs: [[UInt8]] = [[5, 1], [5, 0], [1, 0]]

    @Test("an input message with render times decodes to itself and re-encodes byte for byte")
    func roundTrip() throws {
        let message = Message.input(
            .init(
                ackTick: 41, newestSequence: 9, inputs: Self.inputs,
                renderTimes: [.init(tick: 39, fraction: 200), .init(tick: 39, fraction: 0), .init(tick: 38, fraction: 255)]))
        let body = try message.encodeBody()
        let decoded = try Message(type: .input, body: body)
        #expect(decoded == message)
        #expect(try decoded.encodeBody() == body)
    }

    @Test("the version 1 form (no render times) is still accepted, and encodes as before")
    func oldForm() throws {
        let old = Message.Input(ackTick: 998, newestSequence: 58, inputs: Self.inputs)
        let body = try Message.input(old).encodeBody()
        #expect(body == [0xE7, 0x07, 0x3A, 0x03, 0x02, 0x05, 0x01, 0x02, 0x05, 0x00, 0x02, 0x01, 0x00])
        guard case .input(let decoded) = try Message(type: .input, body: body) else {
            Issue.record("the body did not decode as an input")
            return
        }
        #expect(decoded.renderTimes == nil)
        #expect(decoded.renderTime(at: 0) == nil)
    }

    @Test("render ticks up to 2^32 − 1 pass; 2^32 is refused as out of range")
    func tickRange() throws {
        let atLimit = Message.input(.init(ackTick: nil, newestSequence: 1, inputs: [[0]], renderTimes: [.init(tick: .max, fraction: 255)]))
        #expect(try Message(type: .input, body: try atLimit.encodeBody()) == atLimit)
        // Tick 2^32: the varint 80 80 80 80 10.
        let body: [UInt8] = [0x00, 0x01, 0x01, 0x01, 0x00, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00]
        #expect(throws: FrameError.valueOutOfRange(field: "render tick", value: 1 << 32, maximum: UInt64(UInt32.max))) {
            try Message(type: .input, body: body)
        }
    }

    @Test("the most inputs a message carries (32) carry their 32 render times; 33 are refused before any is read")
    func inputLimit() throws {
        let limit = FrameLimits.standard.maximumInputsPerMessage
        let full = Message.input(
            .init(
                ackTick: 7, newestSequence: 100, inputs: Array(repeating: [1], count: limit),
                renderTimes: (0..<limit).map { .init(tick: UInt32(90 - $0), fraction: UInt8($0)) }))
        #expect(try Message(type: .input, body: try full.encodeBody()) == full)
        let over = Message.input(
            .init(
                ackTick: 7, newestSequence: 100, inputs: Array(repeating: [1], count: limit + 1),
                renderTimes: Array(repeating: .init(tick: 1), count: limit + 1)))
        #expect(throws: FrameError.tooManyInputs(count: UInt64(limit + 1), limit: limit)) { try over.encodeBody() }
    }

    @Test("a message carries one render time per input or none: another count is refused when encoding")
    func countMismatch() throws {
        let message = Message.input(.init(ackTick: nil, newestSequence: 3, inputs: Self.inputs, renderTimes: [.init(tick: 1)]))
        #expect(throws: FrameError.renderTimeCountMismatch(inputs: 3, renderTimes: 1)) { try message.encodeBody() }
    }

    @Test("a render-time block cut short, or followed by more bytes, is refused")
    func truncatedAndTrailing() throws {
        let body = try Message.input(
            .init(
                ackTick: nil, newestSequence: 3, inputs: Self.inputs, renderTimes: Array(repeating: .init(tick: 300, fraction: 1), count: 3)
            )
        ).encodeBody()
        let v1Length = try Message.input(.init(ackTick: nil, newestSequence: 3, inputs: Self.inputs)).encodeBody().count
        for cut in (v1Length + 1)..<body.count {
            #expect(throws: FrameError.self, "a body cut at \(cut) of \(body.count) inside the render times must be refused") {
                try Message(type: .input, body: Array(body[..<cut]))
            }
        }
        #expect(throws: FrameError.trailingBytes(type: MessageType.input.rawValue, count: 1)) {
            try Message(type: .input, body: body + [0])
        }
    }

    @Test("a render time keeps ticks to 1/256 of a tick, and clamps to the 32-bit tick range")
    func renderTimeValue() {
        #expect(Message.RenderTime(ticks: 997.5) == .init(tick: 997, fraction: 128))
        #expect(Message.RenderTime(ticks: 12.999) == .init(tick: 13, fraction: 0))
        #expect(Message.RenderTime(tick: 996, fraction: 64).ticks == 996.25)
        #expect(Message.RenderTime(ticks: -3) == .init(tick: 0, fraction: 0))
        #expect(Message.RenderTime(ticks: .nan) == .init(tick: 0, fraction: 0))
        #expect(Message.RenderTime(ticks: 1e12) == .init(tick: .max, fraction: 255))
    }

    @Test("bit 6 of the hello's and the welcome's compression byte offers and accepts render times, beside the modes")
    func negotiationBits() throws {
        let hello = Message.hello(.init(schemaFingerprint: 1, compressionModes: .all, offersEntropyDeltas: true, offersRenderTimes: true))
        let helloBody = try hello.encodeBody()
        #expect(helloBody[10] == 0xC3)
        guard case .hello(let decodedHello) = try Message(type: .hello, body: helloBody) else {
            Issue.record("not a hello")
            return
        }
        #expect(decodedHello.offersRenderTimes && decodedHello.offersEntropyDeltas && decodedHello.compressionModes == .all)
        let welcome = Message.welcome(
            .init(clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .streaming, acceptsRenderTimes: true))
        let welcomeBody = try welcome.encodeBody()
        guard case .welcome(let decodedWelcome) = try Message(type: .welcome, body: welcomeBody) else {
            Issue.record("not a welcome")
            return
        }
        #expect(decodedWelcome.acceptsRenderTimes && decodedWelcome.compression == .streaming && decodedWelcome.deltaCoding == .bitPacked)
        let plain = try Message.welcome(.init(clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .streaming))
            .encodeBody()
        #expect(
            plain.count == welcomeBody.count && plain != welcomeBody, "a welcome that does not accept render times keeps the version 1 byte"
        )
    }
}

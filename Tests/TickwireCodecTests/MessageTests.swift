import Testing

@testable import TickwireCodec

@Suite("Message")
struct MessageTests {
    @Test("every sample message decodes to itself", arguments: MessageSamples.all)
    func roundTrip(message: Message) throws {
        let body = try message.encodeBody()
        let decoded = try Message(type: message.type, body: body)
        #expect(decoded == message)
        #expect(try decoded.encodeBody() == body, "re-encoding must give the same bytes")
    }

    @Test("a body cut anywhere short throws, never crashes", arguments: MessageSamples.all)
    func truncation(message: Message) throws {
        let body = try message.encodeBody()
        // Snapshot and application bodies end in an opaque tail, so a cut inside the tail is
        // a valid, shorter message; every other cut must throw.
        for cut in 0..<body.count {
            let prefix = Array(body[..<cut])
            do {
                let decoded = try Message(type: message.type, body: prefix)
                switch decoded {
                case .snapshot, .application: break
                default: Issue.record("a body of \(message.type) cut at \(cut) of \(body.count) bytes decoded as \(decoded)")
                }
            } catch {}
        }
    }

    @Test("bytes after the last field are refused")
    func trailingBytes() throws {
        let body = try Message.ping(.init(clientTime: 5)).encodeBody() + [0]
        #expect(throws: FrameError.trailingBytes(type: MessageType.ping.rawValue, count: 1)) {
            try Message(type: .ping, body: body)
        }
    }

    @Test("type 0 is reserved, 10...63 unknown, 64...127 the application's")
    func typeRanges() throws {
        #expect(throws: FrameError.reservedMessageType(0)) { try Message(type: MessageType(rawValue: 0)!, body: []) }
        #expect(throws: FrameError.unknownMessageType(10)) { try Message(type: MessageType(rawValue: 10)!, body: []) }
        #expect(throws: FrameError.unknownMessageType(63)) { try Message(type: MessageType(rawValue: 63)!, body: []) }
        let custom = try #require(MessageType(rawValue: 64))
        #expect(try Message(type: custom, body: [1]) == .application(type: custom, body: [1]))
        #expect(MessageType(rawValue: 128) == nil, "types stop at 127: the high bit is the compressed flag")
        #expect(throws: FrameError.notApplicationType(MessageType.ping.rawValue)) {
            try Message.application(type: .ping, body: []).encodeBody()
        }
    }

    @Test("hello flags with reserved bits are refused")
    func helloReservedFlags() throws {
        var body = try Message.hello(.init(schemaFingerprint: 1)).encodeBody()
        body[11] |= 0x04  // byte 11 is the flags byte, after version (2), fingerprint (8), modes (1); bits 0 and 1 are defined
        #expect(throws: FrameError.reservedBits(field: "hello flags", value: 0x04)) { try Message(type: .hello, body: body) }
    }

    @Test("hello keeps compression bits it does not know, for byte-exact re-encoding")
    func helloUnknownModes() throws {
        let hello = Message.hello(.init(schemaFingerprint: 1, compressionModes: CompressionModes(rawValue: 0x83)))
        let decoded = try Message(type: .hello, body: hello.encodeBody())
        #expect(decoded == hello)
        guard case .hello(let value) = decoded else { return }
        #expect(value.compressionModes.choose(from: [.streaming, .perFrame]) == .streaming)
        #expect(CompressionModes().choose(from: [.streaming, .perFrame]) == CompressionMode.none)
    }

    @Test("a hello's protocol version can be read before the rest is decoded")
    func helloVersionPeek() throws {
        let frame = try FrameCompressor().encode(.hello(.init(protocolVersion: 0x0203, schemaFingerprint: 1)))
        #expect(Message.Hello.protocolVersion(ofFrame: frame) == 0x0203)
        #expect(Message.Hello.protocolVersion(ofFrame: [0x01, 0x00, 0x09, 0xFF]) == 9, "a future hello layout still yields its version")
        #expect(Message.Hello.protocolVersion(ofFrame: [0x01, 0x00]) == nil)
        #expect(Message.Hello.protocolVersion(ofFrame: [0x06, 0x00, 0x01]) == nil)
    }

    @Test("a welcome naming an unknown compression mode is refused")
    func welcomeUnknownMode() throws {
        var body = try Message.welcome(.init(clientID: 1, tickRate: 30, currentTick: 0, serverTime: 0)).encodeBody()
        body[4] = 3  // client id, tick rate, tick and time take one byte each here
        #expect(throws: FrameError.unknownCompressionMode(3)) { try Message(type: .welcome, body: body) }
    }

    @Test("a snapshot baseline is an earlier tick modulo 2^32, never the tick itself")
    func snapshotBaseline() throws {
        // Decoding: tick 5 with distance 5 is baseline 0; distance 6 wraps to 2^32 − 1.
        #expect(
            try Message(type: .snapshot, body: [5, 5, 0, 0])
                == .snapshot(.init(tick: 5, baselineTick: 0, lastProcessedInput: 0, serverTime: 0, delta: [])))
        let wrapped = Message.snapshot(.init(tick: 5, baselineTick: .max, lastProcessedInput: 0, serverTime: 0, delta: []))
        #expect(try wrapped.encodeBody() == [5, 6, 0, 0])
        #expect(try Message(type: .snapshot, body: [5, 6, 0, 0]) == wrapped)
        // A distance of 2^32 or more names no tick.
        #expect(throws: FrameError.valueOutOfRange(field: "baseline distance", value: 1 << 32, maximum: UInt64(UInt32.max))) {
            try Message(type: .snapshot, body: [5, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0])
        }
        // Encoding: the tick itself as baseline is refused.
        #expect(throws: FrameError.invalidBaseline(tick: 5, baseline: 5)) {
            try Message.snapshot(.init(tick: 5, baselineTick: 5, lastProcessedInput: 0, serverTime: 0, delta: [])).encodeBody()
        }
    }

    @Test("input sequence numbers cannot fall below 1")
    func inputSequenceUnderflow() throws {
        #expect(throws: FrameError.inputSequenceUnderflow(newest: 1, count: 2)) {
            try Message.input(.init(ackTick: nil, newestSequence: 1, inputs: [[1], [2]])).encodeBody()
        }
        #expect(throws: FrameError.inputSequenceUnderflow(newest: 1, count: 2)) {
            try Message(type: .input, body: [0, 1, 2, 1, 1, 1, 2])
        }
        let input = Message.Input(ackTick: nil, newestSequence: 9, inputs: [[1], [2]])
        #expect(input.sequence(at: 0) == 9 && input.sequence(at: 1) == 8)
    }

    @Test("an input ack of 2^32 − 1 round-trips; a larger one is refused")
    func inputAckRange() throws {
        var writer = ByteWriter()
        writer.writeVarUInt(UInt64(UInt32.max) + 2)
        writer.writeBytes([0, 0])
        #expect(
            throws: FrameError.valueOutOfRange(
                field: "acknowledged tick + 1", value: UInt64(UInt32.max) + 2, maximum: UInt64(UInt32.max) + 1)
        ) {
            try Message(type: .input, body: writer.bytes)
        }
    }
}

@Suite("Message description")
struct MessageDescriptionTests {
    @Test("descriptions name the type and its fields")
    func descriptions() {
        #expect(
            Message.snapshot(.init(tick: 1_000, baselineTick: 998, lastProcessedInput: 57, serverTime: 5, delta: [1, 2])).description
                == "snapshot tick 1000 baseline 998 input 57 time 5 µs delta 2 B")
        #expect(
            Message.input(.init(ackTick: nil, newestSequence: 3, inputs: [[1], [2, 3]])).description
                == "input ack none newest 3 inputs 2 (3 B)")
        #expect(
            Message.hello(.init(schemaFingerprint: 0xAB, compressionModes: .all, room: "r")).description
                == "hello version 1 schema 0x00000000000000ab room \"r\" modes 0x3 payload 0 B")
        #expect(Message.reject(.init(reason: .roomFull, text: "full")).description == "reject room full \"full\"")
        #expect(Message.application(type: MessageType(rawValue: 0x41)!, body: [1]).description == "application(65) 1 B")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("WebSocketInbound whole-frame path")
struct WebSocketInboundWholeFrameTests {
    static let key = WebSocketMaskingKey(0x11, 0x22, 0x33, 0x44)
    static let limits = WebSocketLimits(maximumFramePayloadBytes: 4096, maximumMessageBytes: 8192)

    /// A frame as `role`'s peer sends it: masked towards a server, plain towards a client.
    func frame(
        _ opcode: WebSocketOpcode, _ payload: [UInt8], to role: WebSocketRole, fin: Bool = true,
        rsv1: Bool = false
    ) -> [UInt8] {
        WebSocketFrame(
            fin: fin, rsv1: rsv1, opcode: opcode, payload: payload,
            maskingKey: role == .server ? Self.key : nil
        ).encoded()
    }

    /// Runs the whole-frame path once on `wire` from index 0.
    func wholeFrame(_ wire: [UInt8], role: WebSocketRole, limits: WebSocketLimits = Self.limits)
        -> (event: WebSocketEvent?, index: Int)
    {
        var inbound = WebSocketInbound(role: role, limits: limits, allowsCompressedMessages: false)
        var index = 0
        let event = wire.withUnsafeBytes { inbound.wholeMessageFrame(in: $0, at: &index) }
        return (event, index)
    }

    /// What a machine makes of `chunks`: its events, the bytes it wrote, its error and final state.
    func outcome(_ chunks: [[UInt8]], role: WebSocketRole)
        throws -> (events: [WebSocketEvent], output: [UInt8], error: WebSocketError?, state: WebSocketConnectionState)
    {
        // Seeded keys (a test stand-in for the CSPRNG), so that a client's masked pongs compare equal.
        let keys = SeededMaskingKeys(seed: 7)
        let machine = try WebSocketProtocolMachine(role: role, configuration: .init(limits: Self.limits), maskingKeys: keys.next)
        var events: [WebSocketEvent] = []
        var output: [UInt8] = []
        for chunk in chunks {
            let result = chunk.withUnsafeBytes { buffer in
                Result { () throws(WebSocketError) in try machine.receive(buffer, output: &output) { events.append($0) } }
            }
            if case .failure(let error) = result { return (events, output, error, machine.state) }
        }
        return (events, output, nil, machine.state)
    }

    @Test(
        "a complete final data frame is one message, with 7- and 16-bit lengths, masked to a server and plain to a client",
        arguments: [WebSocketRole.server, .client], [0, 1, 125, 126, 300, 4096])
    func decodesWholeFrames(role: WebSocketRole, size: Int) {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let binary = frame(.binary, payload, to: role)
        let decoded = wholeFrame(binary + [0x82], role: role)
        #expect(decoded.event == .binary(payload), "the payload comes back unmasked")
        #expect(decoded.index == binary.count, "the index moves past exactly one frame")

        let text = String(repeating: "é", count: size / 2)
        let textFrame = frame(.text, Array(text.utf8), to: role)
        #expect(wholeFrame(textFrame, role: role).event == .text(text))
    }

    @Test(
        "everything else is left to the general decoder, with the index unchanged",
        arguments: [
            ("header only", [0x82, 0x85] + [0x11, 0x22, 0x33, 0x44]),
            ("one byte short of the payload", Array([0x82, 0x85, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4].prefix(9))),
            ("a first fragment", [0x02, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("a continuation", [0x80, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("a ping", [0x89, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("a close", [0x88, 0x80, 0x11, 0x22, 0x33, 0x44]),
            ("RSV1 set", [0xC2, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("RSV3 set", [0x92, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("a reserved opcode", [0x83, 0x81, 0x11, 0x22, 0x33, 0x44, 7]),
            ("unmasked to a server", [0x82, 0x01, 7]),
            ("invalid UTF-8 text", [0x81, 0x82, 0x11, 0x22, 0x33, 0x44, 0xFF ^ 0x11, 0xFE ^ 0x22]),
            ("a 64-bit length", [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x11, 0x22, 0x33, 0x44, 7]),
        ] as [(String, [UInt8])])
    func leavesTheRest(name: String, wire: [UInt8]) {
        let decoded = wholeFrame(wire, role: .server)
        #expect(decoded.event == nil && decoded.index == 0, "\(name) must go through the general decoder")
    }

    @Test("a masked frame to a client is left to the general decoder (which fails it)")
    func maskedToClient() {
        let decoded = wholeFrame([0x82, 0x81, 0x11, 0x22, 0x33, 0x44, 7], role: .client)
        #expect(decoded.event == nil && decoded.index == 0)
    }

    @Test("frames past the frame or message limit are left to the general decoder; at the limit they pass")
    func limits() throws {
        let frameLimited = WebSocketLimits(maximumFramePayloadBytes: 200, maximumMessageBytes: 1000)
        let messageLimited = WebSocketLimits(maximumFramePayloadBytes: 1000, maximumMessageBytes: 300)
        for (limits, limit) in [(frameLimited, 200), (messageLimited, 300)] {
            let atLimit = [UInt8](repeating: 9, count: limit)
            #expect(wholeFrame(frame(.binary, atLimit, to: .server), role: .server, limits: limits).event == .binary(atLimit))
            #expect(wholeFrame(frame(.binary, atLimit + [9], to: .server), role: .server, limits: limits).event == nil)

            // Through the machine, in one read: the frame one past the limit fails with 1009.
            let machine = try WebSocketProtocolMachine(role: .server, configuration: .init(limits: limits))
            var output: [UInt8] = []
            #expect(throws: WebSocketError.self) { try machine.receive(frame(.binary, atLimit + [9], to: .server), output: &output) }
            let close = try decodeFrames([output], role: .client).last
            #expect(
                close?.opcode == .close && close.map { Array($0.payload.prefix(2)) } == [0x03, 0xF1],
                "one byte past the limit closes with 1009")
        }
    }

    @Test("no whole-frame step while a fragmented message or a frame is in progress")
    func notMidMessage() throws {
        var inbound = WebSocketInbound(role: .server, limits: Self.limits, allowsCompressedMessages: false)
        let wire = frame(.binary, [1, 2], to: .server, fin: false) + frame(.binary, [3], to: .server)
        var index = 0
        let firstStep = wire.withUnsafeBytes { inbound.wholeMessageFrame(in: $0, at: &index) }
        #expect(firstStep == nil, "a first fragment is not a whole message")
        // The general path takes the first fragment's header: its frame is now in progress.
        let element = try wire.withUnsafeBytes { bytes throws(WebSocketError) in try inbound.decoder.next(in: bytes, at: &index) }
        guard case .header(let header) = element else {
            Issue.record("expected the first fragment's header, got \(String(describing: element))")
            return
        }
        try inbound.beginFrame(header)
        var midFrame = index
        let midFrameStep = wire.withUnsafeBytes { inbound.wholeMessageFrame(in: $0, at: &midFrame) }
        #expect(midFrameStep == nil && midFrame == index, "the rest of a frame is payload, not a new frame")
        // Then its payload and end: the decoder is between frames, but the message is still open.
        while index < 8 {
            _ = try wire.withUnsafeBytes { bytes throws(WebSocketError) in try inbound.decoder.next(in: bytes, at: &index) }
        }
        _ = try wire.withUnsafeBytes { bytes throws(WebSocketError) in try inbound.decoder.next(in: bytes, at: &index) }
        #expect(inbound.decoder.isAtFrameBoundary && index == 8, "the first fragment is consumed")
        let secondStep = wire.withUnsafeBytes { inbound.wholeMessageFrame(in: $0, at: &index) }
        #expect(secondStep == nil && index == 8, "a new message inside a fragmented one is the general path's error to raise")
    }

    @Test("a message the receiver keeps is never touched by later ones; one it drops lends its storage to the next")
    func recycling() throws {
        let machine = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        let messages = (0..<6).map { index in [UInt8](repeating: UInt8(index), count: 100 + index) }
        var wire: [UInt8] = []
        for message in messages { wire += frame(.binary, message, to: .server) }
        // The returned events keep every message.
        let kept = try machine.receive(wire, output: &output)
        #expect(kept == messages.map { .binary($0) }, "each kept message still holds its own bytes after the later ones were decoded")

        // Dropped messages: the machine keeps the storage, empty, for the next one.
        let dropped = frame(.binary, [UInt8](repeating: 7, count: 1000), to: .server)
        var seen = 0
        let result = (dropped + dropped).withUnsafeBytes { bytes in
            Result { () throws(WebSocketError) in try machine.receive(bytes, output: &output) { _ in seen += 1 } }
        }
        _ = try result.get()
        #expect(seen == 2)
        #expect(
            machine.inbound.spareMessage.isEmpty && machine.inbound.spareMessage.capacity >= 1000,
            "the spare storage is empty and large enough for the next 1000-byte message")

        // Large storage is not kept.
        let large = frame(.binary, [UInt8](repeating: 1, count: 4097), to: .server)
        let largeResult = large.withUnsafeBytes { bytes in
            Result { () throws(WebSocketError) in try machine.receive(bytes, output: &output) { _ in } }
        }
        _ = try largeResult.get()
        #expect(
            machine.inbound.spareMessage.capacity <= machine.inbound.spareCapacityLimit,
            "storage over \(machine.inbound.spareCapacityLimit) bytes is released, not kept per connection")
    }

    @Test("a small message does not get a much larger spare storage, which a receiver that keeps it would keep alive")
    func spareFitsTheMessage() throws {
        let machine = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        var capacities: [Int] = []
        let wire =
            frame(.binary, [UInt8](repeating: 1, count: 4000), to: .server)
            + frame(.binary, [UInt8](repeating: 2, count: 64), to: .server)
            + frame(.binary, [UInt8](repeating: 3, count: 3000), to: .server)
        let result = wire.withUnsafeBytes { bytes in
            Result { () throws(WebSocketError) in
                try machine.receive(bytes, output: &output) { event in
                    if case .binary(let bytes) = event { capacities.append(bytes.capacity) }
                }
            }
        }
        _ = try result.get()
        #expect(capacities.count == 3)
        #expect(capacities[1] < 1000, "the 64-byte message has \(capacities[1]) bytes of storage, not the 4000-byte spare")
        #expect(capacities[2] >= 4000, "the 3000-byte message reuses the 4000-byte storage")
    }

    @Test(
        "streams decoded in one read (whole-frame path) and byte by byte (general path only) give the same events, replies and errors",
        arguments: [WebSocketRole.server, .client], 0..<4 as Range<UInt64>)
    func agreesWithGeneralPath(role: WebSocketRole, seed: UInt64) throws {
        var generator = SplitMix64(seed: 0x5EED_0000 + seed)
        let sizes = [0, 1, 2, 125, 126, 127, 200, 1000, 4096, 4097]
        for round in 0..<30 {
            var wire: [UInt8] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                let size = sizes[Int.random(in: 0..<sizes.count, using: &generator)]
                let payload = randomBytes(size, using: &generator)
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: wire += frame(.text, Array(String(repeating: "tick ", count: size / 5).utf8), to: role)
                case 1: wire += frame(.text, payload, to: role)  // almost always invalid UTF-8
                case 2: wire += frame(.binary, payload, to: role, fin: false) + frame(.continuation, [1], to: role)
                case 3: wire += frame(.ping, Array(payload.prefix(125)), to: role)
                case 4: wire += frame(.binary, payload, to: role, rsv1: true)
                default: wire += frame(.binary, payload, to: role)
                }
            }
            // Some rounds break a byte, so that both paths meet the same damage.
            if round % 3 == 2, !wire.isEmpty {
                wire[Int.random(in: 0..<wire.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            }
            let whole = try outcome([wire], role: role)
            let byteByByte = try outcome(wire.map { [$0] }, role: role)
            #expect(whole.events == byteByByte.events, "round \(round): the events differ")
            #expect(whole.output == byteByByte.output, "round \(round): the replies (pongs, close frames) differ")
            #expect(
                whole.error == byteByByte.error,
                "round \(round): \(String(describing: whole.error)) vs \(String(describing: byteByByte.error))")
            #expect(whole.state == byteByByte.state, "round \(round): the final states differ")
        }
    }
}

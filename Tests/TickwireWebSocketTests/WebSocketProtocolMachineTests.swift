import Testing
import TickwireCodec
import TickwireFoundation
import TickwireZlib

@testable import TickwireWebSocket

@Suite("WebSocketProtocolMachine")
struct WebSocketProtocolMachineTests {
    static let key = WebSocketMaskingKey(0x11, 0x22, 0x33, 0x44)

    /// A masked client frame as raw bytes (what a server receives).
    func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
        WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: payload, maskingKey: Self.key).encoded()
    }

    /// Feeds `wire` to a fresh server and returns the error it fails with, the close code it wrote, and the events before.
    func failure(_ wire: [UInt8], limits: WebSocketLimits = .default, compression: PerMessageDeflateParameters? = nil)
        throws -> (error: WebSocketError?, closeCode: UInt16?, events: [WebSocketEvent])
    {
        let server = try WebSocketProtocolMachine(role: .server, configuration: .init(limits: limits), compression: compression)
        var output: [UInt8] = []
        var events: [WebSocketEvent] = []
        var caught: WebSocketError?
        let result = wire.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in try server.receive(buffer, output: &output) { events.append($0) } }
        }
        if case .failure(let error) = result { caught = error }
        let frames = try decodeFrames([output], role: .client)
        let close = frames.last { $0.opcode == .close }
        let code = close.map { UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) }
        if caught != nil {
            #expect(server.state == .closed, "a failed connection must be closed")
        }
        return (caught, code, events)
    }

    @Test("a text message sent by a client arrives at a server intact")
    func clientToServerText() throws {
        let client = try WebSocketProtocolMachine(role: .client)
        let server = try WebSocketProtocolMachine(role: .server)
        var wire: [UInt8] = []
        try client.sendText("Hello, Tickwire ✓", output: &wire)
        var reply: [UInt8] = []
        let events = try server.receive(wire, output: &reply)
        #expect(events == [.text("Hello, Tickwire ✓")], "the server should see exactly the text the client sent")
        #expect(reply.isEmpty, "a data message needs no reply")
    }

    @Test("fragments reassemble with pings and pongs between them; the ping is answered at once")
    func fragmentationWithControlFrames() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        let wire =
            clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.ping, [1, 2])
            + clientFrame(.continuation, Array("lo ".utf8), fin: false) + clientFrame(.pong, [3])
            + clientFrame(.continuation, Array("world".utf8))
        var output: [UInt8] = []
        let events = try server.receive(wire, output: &output)
        #expect(events == [.ping([1, 2]), .pong([3]), .text("Hello world")], "control frames come out in order, the message whole")
        #expect(output == [0x8A, 0x02, 1, 2], "the server's pong is unmasked and echoes the ping payload")
    }

    @Test("a client answers a ping with a masked pong")
    func clientPong() throws {
        let client = try WebSocketProtocolMachine(role: .client)
        var output: [UInt8] = []
        _ = try client.receive([0x89, 0x03, 7, 8, 9], output: &output)
        let frames = try decodeFrames([output], role: .server)
        #expect(frames.count == 1 && frames[0].opcode == .pong && frames[0].payload == [7, 8, 9] && frames[0].maskingKey != nil)
    }

    @Test("a close started by the client completes: closing, echoed reply, closed on both sides")
    func closeHandshake() throws {
        let client = try WebSocketProtocolMachine(role: .client)
        let server = try WebSocketProtocolMachine(role: .server)
        var toServer: [UInt8] = []
        #expect(try client.close(code: .goingAway, reason: "bye", output: &toServer))
        #expect(client.state == .closing && client.isAwaitingCloseReply, "after sending close, the client waits for the reply")
        #expect(throws: WebSocketError.connectionNotOpen, "no data may follow a close") { try client.sendText("late", output: &toServer) }
        var toClient: [UInt8] = []
        let serverEvents = try server.receive(toServer, output: &toClient)
        #expect(serverEvents == [.close(WebSocketCloseFrame(code: .goingAway, reason: "bye"))])
        #expect(server.state == .closed, "the server answered, so its handshake is complete")
        #expect(toClient == [0x88, 0x02, 0x03, 0xE9], "the server echoes code 1001 in its reply")
        var nothing: [UInt8] = []
        let clientEvents = try client.receive(toClient, output: &nothing)
        #expect(clientEvents == [.close(WebSocketCloseFrame(code: .goingAway))] && client.state == .closed && nothing.isEmpty)
        #expect(try server.receive(clientFrameBytes(), output: &nothing).isEmpty, "bytes after the close handshake are ignored")
        #expect(client.transportClosed().code == .goingAway, "a clean close reports the peer's code")
    }

    func clientFrameBytes() -> [UInt8] { clientFrame(.text, Array("x".utf8)) }

    @Test("an empty close is answered with an empty close and reported as 1005")
    func emptyClose() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        let events = try server.receive(clientFrame(.close, []), output: &output)
        #expect(events == [.close(WebSocketCloseFrame(code: nil))] && output == [0x88, 0x00])
        #expect(WebSocketCloseFrame(code: nil).effectiveCode == .noStatusReceived)
    }

    @Test("messages still arrive while waiting for the close reply")
    func dataWhileClosing() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        try server.close(output: &output)
        let events = try server.receive(clientFrame(.binary, [1]) + clientFrame(.close, [0x03, 0xE8]), output: &output)
        #expect(events == [.binary([1]), .close(WebSocketCloseFrame(code: .normalClosure))])
        #expect(output == [0x88, 0x02, 0x03, 0xE8], "only our own close: no second close in reply to the reply")
    }

    @Test("a socket that closes without a close frame reports 1006")
    func abnormal() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        #expect(server.transportClosed().code == .abnormalClosure && server.state == .closed)
    }

    @Test(
        "protocol violations fail the connection with the close code RFC 6455 names",
        arguments: [
            ("unmasked client frame", [0x81, 0x00], 1002),
            ("continuation with no message", [0x80, 0x80, 1, 2, 3, 4], 1002),
            ("reserved opcode", [0x83, 0x80, 1, 2, 3, 4], 1002),
            ("RSV1 without permessage-deflate", [0xC1, 0x80, 1, 2, 3, 4], 1002),
            ("fragmented ping", [0x09, 0x80, 1, 2, 3, 4], 1002),
            ("ping over 125 bytes", [0x89, 0xFE, 0x00, 0x7E], 1002),
        ] as [(String, [UInt8], UInt16)])
    func violations(name: String, wire: [UInt8], code: UInt16) throws {
        let result = try failure(wire)
        #expect(result.error?.closeCode.rawValue == code, "\(name) must fail with \(code)")
        #expect(result.closeCode == code, "\(name): the failing close frame must carry \(code)")
    }

    @Test("a new message inside a fragmented one fails with 1002")
    func interleavedMessages() throws {
        let result = try failure(clientFrame(.text, [0x41], fin: false) + clientFrame(.binary, [1]))
        #expect(result.error == .expectedContinuation(.binary) && result.closeCode == 1002)
    }

    @Test("invalid UTF-8 fails with 1007 in the fragment that carries it, before the message ends")
    func utf8FailFast() throws {
        let result = try failure(
            clientFrame(.text, Array("κόσμε".utf8), fin: false) + clientFrame(.continuation, [0xED, 0xA0, 0x80], fin: false))
        #expect(result.error == .invalidUTF8 && result.closeCode == 1007, "the surrogate must fail before the final fragment")
        let truncated = try failure(clientFrame(.text, [0x41, 0xE2, 0x82]))
        #expect(truncated.closeCode == 1007, "a text ending inside a character must fail with 1007")
        let badReason = try failure(clientFrame(.close, [0x03, 0xE8, 0xFF]))
        #expect(badReason.closeCode == 1007, "a close reason that is not UTF-8 fails with 1007")
    }

    @Test("bad close frames fail with 1002")
    func badCloseFrames() throws {
        #expect(try failure(clientFrame(.close, [0x03])).closeCode == 1002, "a one-byte close body is invalid")
        #expect(try failure(clientFrame(.close, [0x03, 0xED])).closeCode == 1002, "1005 must not appear on the wire")
        #expect(try failure(clientFrame(.close, [0x13, 0x88])).closeCode == 1002, "5000 is out of range")
    }

    @Test("the message limit holds at its value and fails one past it with 1009")
    func messageLimit() throws {
        let limits = WebSocketLimits(maximumFramePayloadBytes: 600, maximumMessageBytes: 1000)
        let half = [UInt8](repeating: 7, count: 500)
        let exact = try failure(clientFrame(.binary, half, fin: false) + clientFrame(.continuation, half), limits: limits)
        #expect(exact.error == nil && exact.events == [.binary(half + half)], "500 + 500 bytes fit a 1000-byte message limit")
        // Only the second frame's header is sent: the limit must trip before its payload arrives.
        let past = try failure(
            clientFrame(.binary, half, fin: false) + Array(clientFrame(.continuation, half + [1]).prefix(8)), limits: limits)
        #expect(past.error == .messageTooLarge(length: 1001, limit: 1000) && past.closeCode == 1009)
        let frame = try failure(Array(clientFrame(.binary, [UInt8](repeating: 0, count: 601)).prefix(8)), limits: limits)
        #expect(frame.error?.closeCode == .messageTooBig && frame.closeCode == 1009, "a 601-byte frame breaks the 600-byte frame limit")
    }

    @Test("sendBinaryHeader writes a server's plain frame header only when the payload goes out unchanged")
    func binaryHeaderOnly() throws {
        var output: [UInt8] = []
        let server = try WebSocketProtocolMachine(role: .server)
        #expect(try server.sendBinaryHeader(payloadCount: 70_000, output: &output))
        var whole: [UInt8] = []
        try server.sendBinary([UInt8](repeating: 5, count: 70_000), output: &whole)
        #expect(output == Array(whole.prefix(10)), "the header is the one sendBinary would write")
        // Header then payload is the frame sendBinary writes, for every length form.
        for count in [0, 1, 125, 126, 65_535, 65_536] {
            let payload = [UInt8](repeating: UInt8(count % 251), count: count)
            var joined: [UInt8] = []
            #expect(try server.sendBinaryHeader(payloadCount: count, output: &joined))
            joined += payload
            var framed: [UInt8] = []
            try server.sendBinary(payload, output: &framed)
            #expect(joined == framed, "\(count) bytes: header plus payload should equal sendBinary's frame")
        }

        var untouched: [UInt8] = []
        let client = try WebSocketProtocolMachine(role: .client)
        #expect(try client.sendBinaryHeader(payloadCount: 100, output: &untouched) == false, "a client masks its payload")
        let compressing = try WebSocketProtocolMachine(role: .server, compression: PerMessageDeflateParameters())
        #expect(try compressing.sendBinaryHeader(payloadCount: 100, output: &untouched) == false, "deflate changes the payload")
        let fragmenting = try WebSocketProtocolMachine(role: .server, configuration: .init(outgoingFragmentBytes: 50))
        #expect(try fragmenting.sendBinaryHeader(payloadCount: 100, output: &untouched) == false, "100 bytes go out as two frames")
        #expect(try fragmenting.sendBinaryHeader(payloadCount: 50, output: &untouched), "50 bytes fit one frame")
        #expect(untouched == [0x82, 50], "only the last call wrote, a 2-byte header")

        try server.close(output: &output)
        #expect(throws: WebSocketError.connectionNotOpen) { try server.sendBinaryHeader(payloadCount: 1, output: &output) }
    }

    @Test("the default limits are at least 16 MiB")
    func defaultLimits() {
        #expect(WebSocketLimits.default.maximumFramePayloadBytes >= 16 << 20 && WebSocketLimits.default.maximumMessageBytes >= 16 << 20)
    }

    @Test("local misuse is refused without touching the connection")
    func sendingRules() throws {
        let client = try WebSocketProtocolMachine(role: .client)
        var output: [UInt8] = []
        #expect(throws: WebSocketError.controlPayloadTooLong(126)) {
            try client.sendPing([UInt8](repeating: 0, count: 126), output: &output)
        }
        #expect(throws: WebSocketError.invalidCloseCodeToSend(1005)) { try client.close(code: .noStatusReceived, output: &output) }
        #expect(throws: WebSocketError.closeReasonTooLong(124)) {
            try client.close(reason: String(repeating: "x", count: 124), output: &output)
        }
        #expect(output.isEmpty && client.state == .open, "refused calls must write nothing")
        try client.sendPing([UInt8](repeating: 0, count: 125), output: &output)
        #expect(try client.close(reason: String(repeating: "x", count: 123), output: &output), "123 bytes of reason fit")
    }

    @Test("outgoing fragmentation splits messages and sets RSV1 only on a compressed message's first frame")
    func outgoingFragments() throws {
        let parameters = PerMessageDeflateParameters()
        let client = try WebSocketProtocolMachine(role: .client, configuration: .init(outgoingFragmentBytes: 10), compression: parameters)
        var generator = SplitMix64(seed: 9)
        var wire: [UInt8] = []
        let message = randomBytes(300, using: &generator)
        try client.sendBinary(message, output: &wire)
        let frames = try decodeFrames([wire], role: .server, allowsCompressedMessages: true)
        #expect(frames.count > 1, "a 300-byte incompressible message must need several 10-byte frames")
        #expect(frames.first?.header.rsv1 == true && frames.dropFirst().allSatisfy { !$0.header.rsv1 && $0.opcode == .continuation })
        #expect(frames.dropLast().allSatisfy { !$0.fin } && frames.last?.fin == true)
        let server = try WebSocketProtocolMachine(role: .server, compression: parameters)
        var output: [UInt8] = []
        #expect(try server.receive(wire, output: &output) == [.binary(message)])
    }

    @Test("a deflate bomb is refused with 1009 at the message limit; a message inflating exactly to the limit passes")
    func deflateBomb() throws {
        let parameters = PerMessageDeflateParameters()
        let limit = 1 << 20
        func compressedFrame(_ size: Int) throws -> [UInt8] {
            let deflater = try Deflater(format: .raw)
            var data = deflater.compress([UInt8](repeating: 0, count: size), flush: .sync)
            data.removeLast(4)
            return clientFrame(.binary, data, rsv1: true)
        }
        let limits = WebSocketLimits(maximumFramePayloadBytes: limit, maximumMessageBytes: limit)
        let bomb = try compressedFrame(64 << 20)
        #expect(bomb.count < 128 * 1024, "64 MiB of zeros compresses to a small frame: a bomb")
        let result = try failure(bomb, limits: limits, compression: parameters)
        #expect(result.error?.closeCode == .messageTooBig && result.closeCode == 1009, "inflation must stop at the message limit")
        let exact = try failure(try compressedFrame(limit), limits: limits, compression: parameters)
        #expect(exact.error == nil && exact.events.count == 1, "a message of exactly the limit inflates fine")
        let past = try failure(try compressedFrame(limit + 1), limits: limits, compression: parameters)
        #expect(past.closeCode == 1009, "one byte past the limit fails")
    }

    @Test(
        "an incompressible message at the limit is accepted though deflate made it larger; compressed bytes past the expansion allowance fail with 1009"
    )
    func incompressibleAtLimit() throws {
        let parameters = PerMessageDeflateParameters()
        let limit = 64 * 1024
        let limits = WebSocketLimits(maximumFramePayloadBytes: limit, maximumMessageBytes: limit)
        var generator = SplitMix64(seed: 64)
        let message = randomBytes(limit, using: &generator)
        let client = try WebSocketProtocolMachine(role: .client, compression: parameters)
        var wire: [UInt8] = []
        try client.sendBinary(message, output: &wire)
        let frame = try #require(try decodeFrames([wire], role: .server, allowsCompressedMessages: true).first)
        #expect(frame.payload.count > limit, "random bytes deflate to more than themselves (\(frame.payload.count) bytes)")
        let accepted = try failure(wire, limits: limits, compression: parameters)
        #expect(accepted.error == nil && accepted.events == [.binary(message)], "a message at the data limit must pass")
        // A compressed frame one byte past the limit plus the allowance is refused before it is read.
        let allowance = limit + WebSocketLimits.deflateExpansion(of: limit)
        let tooLong = clientFrame(.binary, [UInt8](repeating: 0, count: allowance + 1), rsv1: true)
        #expect(try failure(tooLong, limits: limits, compression: parameters).closeCode == 1009)
    }

    @Test("corrupt compressed data fails with 1002; compressed invalid UTF-8 fails with 1007")
    func corruptCompressed() throws {
        let parameters = PerMessageDeflateParameters()
        let corrupt = try failure(clientFrame(.binary, [0xFF, 0xFF, 0xFF, 0xFF], rsv1: true), compression: parameters)
        #expect(corrupt.closeCode == 1002, "bytes that do not inflate are a protocol error")
        let deflater = try Deflater(format: .raw)
        var data = deflater.compress([0x41, 0xED, 0xA0, 0x80], flush: .sync)
        data.removeLast(4)
        #expect(try failure(clientFrame(.text, data, rsv1: true), compression: parameters).closeCode == 1007)
    }

    @Test("empty compressed messages go out as one 0x00 byte and inflate back to empty (RFC 7692 7.2.3.6)")
    func emptyCompressedMessages() throws {
        let parameters = PerMessageDeflateParameters()
        let client = try WebSocketProtocolMachine(role: .client, compression: parameters)
        let server = try WebSocketProtocolMachine(role: .server, compression: parameters)
        var wire: [UInt8] = []
        try client.sendBinary([], output: &wire)
        try client.sendBinary([], output: &wire)
        try client.sendText("x", output: &wire)
        let frames = try decodeFrames([wire], role: .server, allowsCompressedMessages: true)
        #expect(frames[1].payload == [0x00], "zlib emits nothing for an empty message after a flush; we must send 0x00")
        var output: [UInt8] = []
        #expect(try server.receive(wire, output: &output) == [.binary([]), .binary([]), .text("x")])
    }

    @Test("a 16 MiB message passes the default limits; a frame declaring one byte more is refused (Autobahn 9.x sizes)")
    func sixteenMiB() throws {
        let size = 16 << 20
        let big = [UInt8](repeating: 0x61, count: size)
        let accepted = try failure(clientFrame(.binary, big))
        #expect(accepted.error == nil && accepted.events == [.binary(big)], "16 MiB is within the default limit")
        let header: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0x01, 1, 2, 3, 4]
        #expect(try failure(header).closeCode == 1009, "16 MiB + 1 declared in the header must fail with 1009")
    }

    @Test("ten pings get ten pongs in order; an unsolicited pong is only reported (Autobahn 2.x)")
    func manyPings() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        var wire: [UInt8] = clientFrame(.pong, [9])
        for index in 0..<10 { wire += clientFrame(.ping, [UInt8(index)]) }
        var output: [UInt8] = []
        let events = try server.receive(wire, output: &output)
        #expect(events.first == .pong([9]) && events.count == 11)
        let pongs = try decodeFrames([output], role: .client)
        #expect(pongs.map(\.payload) == (0..<10).map { [UInt8($0)] } && pongs.allSatisfy { $0.opcode == .pong })
    }

    @Test("after the peer's close, later frames in the same read are ignored (Autobahn 7.1.x)")
    func afterClose() throws {
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        let wire =
            clientFrame(.close, [0x03, 0xE8]) + clientFrame(.close, [0x03, 0xE8]) + clientFrame(.ping, [1])
            + clientFrame(.text, Array("late".utf8))
        let events = try server.receive(wire, output: &output)
        #expect(events == [.close(WebSocketCloseFrame(code: .normalClosure))], "only the first close is seen")
        #expect(output == [0x88, 0x02, 0x03, 0xE8], "exactly one close reply and no pong")
    }

    @Test(
        "seeded garbage and mutated valid streams never crash the machine; it fails with a typed error or carries on",
        arguments: 0..<6 as Range<UInt64>)
    func garbage(seed: UInt64) throws {
        var generator = SplitMix64(seed: 0xF00D + seed)
        let keys = SeededMaskingKeys(seed: seed)
        for round in 0..<40 {
            let compression: PerMessageDeflateParameters? = round % 2 == 0 ? PerMessageDeflateParameters() : nil
            // A valid client stream, then a few random byte flips, so that decoding gets deep before it breaks.
            let client = try WebSocketProtocolMachine(
                role: .client, configuration: .init(outgoingFragmentBytes: 50),
                compression: compression, maskingKeys: keys.next)
            var wire: [UInt8] = []
            for _ in 0..<5 {
                try client.sendText(String(repeating: "κόσμε tick ", count: Int.random(in: 0...30, using: &generator)), output: &wire)
                try client.sendPing(randomBytes(Int.random(in: 0...10, using: &generator), using: &generator), output: &wire)
            }
            if round % 3 == 0 { wire = randomBytes(wire.count, using: &generator) }
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !wire.isEmpty {
                wire[Int.random(in: 0..<wire.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            }
            let server = try WebSocketProtocolMachine(
                role: .server, configuration: .init(limits: WebSocketLimits(maximumFramePayloadBytes: 4096, maximumMessageBytes: 8192)),
                compression: compression)
            var output: [UInt8] = []
            for chunk in randomChunks(wire, maximum: 97, using: &generator) {
                let result = chunk.withUnsafeBytes { buffer in
                    Result { () throws(WebSocketError) in try server.receive(buffer, output: &output) { _ in } }
                }
                if case .failure(let error) = result {
                    #expect(server.state == .closed, "after \(error) the connection must be closed")
                    let frames = try decodeFrames([output], role: .client)
                    #expect(frames.last?.opcode == .close, "a failure must leave a close frame to send")
                    break
                }
            }
        }
    }

    @Test("compressed text is inflated frame by frame: invalid UTF-8 fails in the first fragment, before the rest arrives")
    func compressedFailFast() throws {
        let parameters = PerMessageDeflateParameters()
        let deflater = try Deflater(format: .raw)
        // The first fragment ends with its own sync flush (as Python websockets sends fragments).
        let first = deflater.compress(Array("κόσμε".utf8) + [0xED, 0xA0, 0x80], flush: .sync)
        let result = try failure(clientFrame(.text, first, fin: false, rsv1: true), compression: parameters)
        #expect(
            result.error == .invalidUTF8 && result.closeCode == 1007,
            "the surrogate must be caught when the first compressed fragment inflates")
        // And valid compressed fragments still reassemble.
        let valid = try Deflater(format: .raw)
        let partOne = valid.compress(Array("Hello, ".utf8), flush: .sync)
        var partTwo = valid.compress(Array("world".utf8), flush: .sync)
        partTwo.removeLast(4)
        let ok = try failure(
            clientFrame(.text, partOne, fin: false, rsv1: true) + clientFrame(.continuation, partTwo),
            compression: parameters)
        #expect(ok.error == nil && ok.events == [.text("Hello, world")])
    }
}

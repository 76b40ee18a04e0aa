import Testing

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The order of what a server writes when one read holds several frames: messages the handler
/// sends, the pongs the library owes, and a close frame must leave in the order of their causes
/// (Autobahn|Testsuite cases 5.6, 5.19 and the 3.x, 4.x and 5.15 cases that end in a bad frame).
@Suite("WebSocket server: order of replies within one read")
struct WebSocketServerOrderingTests {
    /// The frames the server wrote in reply to `bytes`, sent in one write after the handshake.
    static func replies(to bytes: [UInt8]) throws -> [WebSocketFrame] {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(WebSocketServerBadInputTests.configuration(), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 5)
        try client.send(TestSocket.upgradeRequest())
        let head = try client.receiveHead()
        try #require(head.hasPrefix("HTTP/1.1 101"), "the handshake should succeed first, got '\(head.prefix(40))'")
        try client.send(bytes)
        let (reply, hungUp) = WebSocketServerBadInputTests.readUntilHangUp(client)
        #expect(hungUp, "the server should hang up after its close frame")
        return try decodeFrames([reply], role: .client)
    }

    static func closeCode(of frame: WebSocketFrame?) -> UInt16? {
        guard let frame, frame.header.opcode == .close, frame.payload.count >= 2 else { return nil }
        return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
    }

    @Test("messages before a bad frame in the same read are echoed before the failing close frame")
    func echoesBeforeFailure() throws {
        let bytes =
            BadFrameCase.frame(0x82, [1, 2, 3]) + BadFrameCase.frame(0x81, Array("ok".utf8))
            + BadFrameCase.frame(0x83, [9])  // reserved opcode 3: fail with 1002
        let frames = try Self.replies(to: bytes)
        try #require(frames.count == 3, "expected two echoes and a close frame, got \(frames.map(\.header.opcode))")
        #expect(frames[0].header.opcode == .binary && frames[0].payload == [1, 2, 3], "the binary message should be echoed first")
        #expect(frames[1].header.opcode == .text && frames[1].payload == Array("ok".utf8), "the text message should be echoed second")
        #expect(Self.closeCode(of: frames[2]) == 1002, "the bad frame should end the connection with 1002 after the echoes")
    }

    @Test("a ping between two fragments is answered before the message's echo")
    func pongBeforeEcho() throws {
        let bytes =
            BadFrameCase.frame(0x01, Array("frag1".utf8)) + BadFrameCase.frame(0x89, Array("ping".utf8))
            + BadFrameCase.frame(0x80, Array("frag2".utf8)) + BadFrameCase.close(1000)
        let frames = try Self.replies(to: bytes)
        try #require(frames.count == 3, "expected a pong, an echo and a close reply, got \(frames.map(\.header.opcode))")
        #expect(frames[0].header.opcode == .pong && frames[0].payload == Array("ping".utf8), "the pong should come first")
        #expect(frames[1].header.opcode == .text && frames[1].payload == Array("frag1frag2".utf8), "then the reassembled echo")
        #expect(Self.closeCode(of: frames[2]) == 1000, "then the close reply")
    }

    /// A relay: every message goes to every connection, sent from the handler on the loop
    /// thread. Replies are gathered over a loop turn in one buffer for all connections and
    /// written at its end; a connection served earlier in the turn has its own echoes waiting
    /// there when a later one relays to it, and those must leave first. With 600-byte messages
    /// from eight clients a turn's replies pass ``WebSocketChannel/replyGatheringBytes``, and
    /// the loop sends them mid-turn (once a run, when this test was written).
    @Test(
        "relayed messages keep each sender's order when several connections are served in one loop turn",
        arguments: [20, 600])
    func relayOrder(payloadSize: Int) throws {
        let clientCount = 8
        let burstCount = 3
        let messagesPerBurst = 100
        let open = Recorder<WebSocketConnection>()
        let server = try WebSocketServer(configuration: WebSocketServerConfiguration()) { event in
            switch event {
            case .opened(let connection):
                open.push(connection)
            case .message(_, let message):
                // The first message of client 0's bursts holds the loop for a moment, so that the
                // other clients' bursts are all waiting when it looks again (one turn serves them).
                if case .binary(let bytes) = message, bytes.count == payloadSize, bytes[0] == 0,
                    (Int(bytes[1]) << 8 | Int(bytes[2])) % messagesPerBurst == 0
                {
                    usleep(20_000)
                }
                for connection in open.all { connection.send(message) }
            default: break
            }
        }
        let port = try server.start().port
        defer { server.shutdown(timeout: .seconds(1)) }
        var clients: [TestSocket] = []
        for _ in 0..<clientCount {
            let client = try TestSocket(port: port, timeoutSeconds: 10)
            try client.send(TestSocket.upgradeRequest())
            let head = try client.receiveHead()
            try #require(head.hasPrefix("HTTP/1.1 101"), "the handshake should succeed, got '\(head.prefix(40))'")
            clients.append(client)
        }
        try #require(open.wait(seconds: 5) { $0.count == clientCount }, "every connection should open")

        // Each payload names its sender and sequence number; bursts from every client in turn,
        // built beforehand and sent back to back, so that the server's loop finds several
        // connections readable at once.
        var bursts: [[[UInt8]]] = []
        for burst in 0..<burstCount {
            bursts.append(
                (0..<clientCount).map { sender in
                    (0..<messagesPerBurst).flatMap { index in
                        let sequence = burst * messagesPerBurst + index
                        return BadFrameCase.frame(
                            0x82,
                            [UInt8(sender), UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
                                + Array(repeating: 0xAB, count: payloadSize - 3))
                    }
                })
        }
        for burst in bursts {
            for (client, bytes) in zip(clients, burst) { try client.send(bytes) }
        }
        let total = clientCount * burstCount * messagesPerBurst
        let frameSize = (payloadSize <= 125 ? 2 : 4) + payloadSize
        for (receiver, client) in clients.enumerated() {
            let frames = try decodeFrames([try client.receive(exactly: total * frameSize)], role: .client)
            #expect(frames.count == total, "client \(receiver) should receive every relayed message")
            var nextSequence = Array(repeating: 0, count: clientCount)
            for frame in frames {
                try #require(frame.header.opcode == .binary && frame.payload.count == payloadSize, "client \(receiver) got a damaged frame")
                let sender = Int(frame.payload[0])
                let sequence = Int(frame.payload[1]) << 8 | Int(frame.payload[2])
                try #require(sender < clientCount, "client \(receiver) got a message from an unknown sender \(sender)")
                #expect(sequence == nextSequence[sender], "client \(receiver): sender \(sender)'s message \(sequence) arrived out of order")
                nextSequence[sender] = sequence + 1
            }
            #expect(
                nextSequence == Array(repeating: burstCount * messagesPerBurst, count: clientCount),
                "client \(receiver) should get every sender's messages")
        }
    }

    @Test("a message after the peer's close frame in the same read is not delivered")
    func nothingAfterClose() throws {
        let bytes =
            BadFrameCase.frame(0x81, Array("before".utf8)) + BadFrameCase.close(1000)
            + BadFrameCase.frame(0x81, Array("after".utf8))
        let frames = try Self.replies(to: bytes)
        #expect(
            frames.map(\.header.opcode) == [.text, .close],
            "only the message before the close is echoed, got \(frames.map(\.header.opcode))")
        #expect(frames.first?.payload == Array("before".utf8), "the echo should be of the first message")
        #expect(Self.closeCode(of: frames.last) == 1000, "the close reply should echo 1000")
    }
}

import Testing
import TickwireZlib

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One malformed conversation after a good handshake, and the close code RFC 6455 demands for it.
struct BadFrameCase: Sendable, CustomStringConvertible {
    let description: String
    let offersDeflate: Bool
    let bytes: [UInt8]
    let expectedCode: UInt16

    /// A frame written byte by byte by the test (not by the library's encoder): `first` is the
    /// FIN/RSV/opcode byte; `declaredLength` may claim more than the payload sent.
    static func frame(_ first: UInt8, _ payload: [UInt8], masked: Bool = true, declaredLength: Int? = nil) -> [UInt8] {
        let length = declaredLength ?? payload.count
        var bytes: [UInt8] = [first]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length <= 125 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(length) >> (8 * $0)) }
        }
        let key: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        if masked { bytes += key }
        bytes += payload.enumerated().map { masked ? $0.element ^ key[$0.offset & 3] : $0.element }
        return bytes
    }

    static func close(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
        frame(0x88, [UInt8(code >> 8), UInt8(code & 0xFF)] + reason)
    }

    /// `message` deflated as permessage-deflate sends it: raw deflate, sync flush, tail removed.
    static func deflated(_ message: [UInt8]) -> [UInt8] {
        guard let deflater = try? Deflater(format: .raw) else { return [] }
        var output: [UInt8] = []
        message.withUnsafeBytes { deflater.compress($0, flush: .sync, appendingTo: &output) }
        return Array(output.dropLast(4))
    }

    static let all: [BadFrameCase] = [
        BadFrameCase(
            description: "an unmasked client frame", offersDeflate: false,
            bytes: frame(0x81, Array("hi".utf8), masked: false), expectedCode: 1002),
        BadFrameCase(
            description: "invalid UTF-8 in a text message", offersDeflate: false,
            bytes: frame(0x81, [0x68, 0xC3, 0x28]), expectedCode: 1007),
        BadFrameCase(
            description: "invalid UTF-8 split across fragments", offersDeflate: false,
            bytes: frame(0x01, [0x68, 0xE2, 0x82]) + frame(0x80, [0x41]), expectedCode: 1007),
        BadFrameCase(
            description: "invalid UTF-8 in a compressed text message", offersDeflate: true,
            bytes: frame(0xC1, deflated([0x68, 0xC3, 0x28])), expectedCode: 1007),
        BadFrameCase(
            description: "invalid UTF-8 in a close reason", offersDeflate: false,
            bytes: close(1000, [0xFF, 0xFE]), expectedCode: 1007),
        BadFrameCase(description: "reserved data opcode 3", offersDeflate: false, bytes: frame(0x83, [1]), expectedCode: 1002),
        BadFrameCase(description: "reserved control opcode 11", offersDeflate: false, bytes: frame(0x8B, []), expectedCode: 1002),
        BadFrameCase(description: "RSV1 without permessage-deflate", offersDeflate: false, bytes: frame(0xC2, [1]), expectedCode: 1002),
        BadFrameCase(description: "RSV2 set", offersDeflate: true, bytes: frame(0xA2, [1]), expectedCode: 1002),
        BadFrameCase(description: "RSV3 set", offersDeflate: true, bytes: frame(0x92, [1]), expectedCode: 1002),
        BadFrameCase(
            description: "RSV1 on a continuation frame", offersDeflate: true,
            bytes: frame(0x42, deflated([1, 2])) + frame(0xC0, [0]), expectedCode: 1002),
        BadFrameCase(
            description: "a continuation with no message started", offersDeflate: false,
            bytes: frame(0x80, [1]), expectedCode: 1002),
        BadFrameCase(
            description: "a new message inside a fragmented one", offersDeflate: false,
            bytes: frame(0x02, [1]) + frame(0x82, [2]), expectedCode: 1002),
        BadFrameCase(description: "a fragmented ping", offersDeflate: false, bytes: frame(0x09, [1]), expectedCode: 1002),
        BadFrameCase(
            description: "a 126-byte ping", offersDeflate: false,
            bytes: frame(0x89, [UInt8](repeating: 0, count: 126)), expectedCode: 1002),
        BadFrameCase(description: "a one-byte close payload", offersDeflate: false, bytes: frame(0x88, [3]), expectedCode: 1002),
        BadFrameCase(description: "close code 999", offersDeflate: false, bytes: close(999), expectedCode: 1002),
        BadFrameCase(description: "close code 1005 on the wire", offersDeflate: false, bytes: close(1005), expectedCode: 1002),
        BadFrameCase(description: "close code 1006 on the wire", offersDeflate: false, bytes: close(1006), expectedCode: 1002),
        BadFrameCase(description: "close code 1015 on the wire", offersDeflate: false, bytes: close(1015), expectedCode: 1002),
        BadFrameCase(description: "close code 2999", offersDeflate: false, bytes: close(2999), expectedCode: 1002),
        BadFrameCase(description: "close code 5000", offersDeflate: false, bytes: close(5000), expectedCode: 1002),
        BadFrameCase(
            description: "a frame header one byte over the frame limit (no payload sent)", offersDeflate: false,
            bytes: frame(0x82, [], declaredLength: WebSocketServerBadInputTests.frameLimit + 1), expectedCode: 1009),
        BadFrameCase(
            description: "a 64-bit length with the top bit set", offersDeflate: false,
            bytes: [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], expectedCode: 1002),
        BadFrameCase(
            description: "fragments under the frame limit adding up past the message limit", offersDeflate: false,
            bytes: (0..<5).flatMap { index in
                frame(index == 0 ? 0x02 : (index == 4 ? 0x80 : 0x00), [UInt8](repeating: 7, count: 60 * 1024))
            }, expectedCode: 1009),
        BadFrameCase(
            description: "a deflate bomb: 8 KiB that inflates to 8 MiB", offersDeflate: true,
            bytes: frame(0xC2, deflated([UInt8](repeating: 0, count: 8 << 20))), expectedCode: 1009),
        // RFC 7692 only says to fail the connection; 1002, as Python websockets does.
        BadFrameCase(
            description: "corrupt compressed data", offersDeflate: true,
            bytes: frame(0xC2, [0xFF, 0xFF, 0xFF, 0xFF, 0x00]), expectedCode: 1002),
    ]
}

/// Malformed input over real sockets: a raw client completes the handshake, writes crafted bytes,
/// and checks the close code the server answers with, that the server hangs up, and that the
/// connection is gone from the server afterwards (no leak); the server keeps serving others.
@Suite("WebSocket server: bad input over real sockets")
struct WebSocketServerBadInputTests {
    static let frameLimit = 64 * 1024
    static let messageLimit = 256 * 1024

    static func configuration() -> WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration()
        configuration.compression = PerMessageDeflateConfiguration()
        configuration.protocolConfiguration = WebSocketConfiguration(
            limits: WebSocketLimits(
                maximumFramePayloadBytes: frameLimit, maximumMessageBytes: messageLimit))
        configuration.handshakeTimeout = .seconds(2)
        configuration.closeTimeout = .seconds(1)
        return configuration
    }

    @Test("bad frames are refused with the close code RFC 6455 names, and the server hangs up", arguments: BadFrameCase.all)
    func badFrame(_ badCase: BadFrameCase) throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(Self.configuration(), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 5)
        let offer = badCase.offersDeflate ? ["Sec-WebSocket-Extensions: permessage-deflate"] : []
        try client.send(TestSocket.upgradeRequest(extraHeaders: offer))
        let head = try client.receiveHead()
        try #require(head.hasPrefix("HTTP/1.1 101"), "the handshake should succeed first, got '\(head.prefix(40))'")
        #expect(head.contains("permessage-deflate") == badCase.offersDeflate, "deflate should be agreed exactly when offered")
        try? client.send(badCase.bytes)  // the server may hang up before it has read everything
        let (reply, hungUp) = Self.readUntilHangUp(client)
        #expect(hungUp, "the server should close the TCP connection after \(badCase), not leave it open")
        let code = Self.closeCode(in: reply)
        #expect(
            code == badCase.expectedCode,
            "\(badCase) should be answered with close \(badCase.expectedCode), got \(code.map(String.init) ?? "no close frame") (\(reply.prefix(8)))"
        )
        #expect(Self.waitForNoConnections(server), "the server should forget the connection; it still counts \(server.connectionCount)")
        try Self.expectStillServing(port: port)
    }

    @Test(
        "malformed upgrade requests get the HTTP status they deserve",
        arguments: [
            ("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", "400"),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n",
                "426"
            ),
            (
                "POST / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                "405"
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n",
                "400"
            ),
            ("\u{1}\u{2}garbage\r\n\r\n", "400"),
        ])
    func malformedHandshake(request: String, expectedStatus: String) throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(Self.configuration(), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 5)
        try client.send(request)
        let head = try client.receiveHead()
        #expect(
            head.hasPrefix("HTTP/1.1 \(expectedStatus)"),
            "expected \(expectedStatus) for \(request.prefix(30).debugDescription), got '\(head.prefix(40))'")
        #expect(Self.waitForNoConnections(server), "the refused connection should be dropped; still \(server.connectionCount)")
        try Self.expectStillServing(port: port)
    }

    @Test("a handshake cut off half-way (client hangs up) leaves nothing behind")
    func truncatedHandshake() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(Self.configuration(), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let request = Array(TestSocket.upgradeRequest().utf8)
        for cut in [1, request.count / 2, request.count - 1] {
            let client = try TestSocket(port: port, timeoutSeconds: 5)
            try client.send(Array(request[..<cut]))
            _ = shutdown(client.descriptor, Int32(SHUT_WR))
            let (reply, hungUp) = Self.readUntilHangUp(client)
            #expect(hungUp, "after \(cut) bytes and a half-close the server should hang up")
            let text = String(decoding: reply, as: UTF8.self)
            #expect(
                reply.isEmpty || text.hasPrefix("HTTP/1.1 400"),
                "the answer to a cut request should be nothing or 400, got '\(text.prefix(40))'")
        }
        #expect(Self.waitForNoConnections(server), "cut handshakes should not linger; still \(server.connectionCount)")
        #expect(!recorder.all.contains { if case .server(.opened) = $0 { true } else { false } }, "no connection should open")
        try Self.expectStillServing(port: port)
    }

    // MARK: - Helpers

    /// Reads until the server hangs up (end of stream or reset) or 5 s pass; `hungUp` is `false` on timeout.
    static func readUntilHangUp(_ client: TestSocket) -> (bytes: [UInt8], hungUp: Bool) {
        var bytes: [UInt8] = []
        while bytes.count < 1 << 20 {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                return (bytes, true)
            } else {
                return (bytes, false)  // the socket's 5 s receive timeout passed
            }
        }
        return (bytes, false)
    }

    /// The status code of the close frame starting `bytes` (server frames are unmasked).
    static func closeCode(in bytes: [UInt8]) -> UInt16? {
        guard bytes.count >= 4, bytes[0] == 0x88, bytes[1] & 0x7F >= 2 else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// Waits up to 5 s for the server's connection count to reach zero.
    static func waitForNoConnections(_ server: WebSocketServer) -> Bool {
        let signal = TestSignal()
        for _ in 0..<100 {
            if server.connectionCount == 0 { return true }
            _ = signal.wait(seconds: 0.05)  // a bounded poll of a counter (nothing signals it)
        }
        return server.connectionCount == 0
    }

    /// A well-behaved raw client still gets its echo.
    static func expectStillServing(port: Int) throws {
        let client = try TestSocket(port: port, timeoutSeconds: 5)
        try client.send(TestSocket.upgradeRequest())
        #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"), "the server should still accept connections")
        try client.send(BadFrameCase.frame(0x81, Array("ok".utf8)))
        #expect(try client.receive(exactly: 4) == [0x81, 0x02, 0x6F, 0x6B], "the server should still echo")
    }
}

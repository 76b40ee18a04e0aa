import Foundation
import Testing

@testable import TickwireWebSocket

/// The WebSocket vectors of `Protocol/vectors/websocket-*.hex`: decoded by a machine in the
/// role the vector names, then re-encoded byte for byte.
@Suite("Protocol vectors (WebSocket)")
struct ProtocolVectorTests {
    struct Vector {
        var metadata: [String: String] = [:]
        var bytes: [UInt8] = []
    }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protocol/vectors")

    func load(_ name: String) throws -> Vector {
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        var vector = Vector()
        var hex = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") {
                let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                if let colon = body.firstIndex(of: ":"), !body[..<colon].contains(" ") {
                    vector.metadata[String(body[..<colon])] = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            } else {
                hex += line.filter { !$0.isWhitespace }
            }
        }
        vector.bytes = bytes(hex: hex)
        return vector
    }

    @Test("a masked client binary message decodes to its payload and re-encodes with its key")
    func binaryMasked() throws {
        let vector = try load("websocket-binary-masked.hex")
        let payload = bytes(hex: try #require(vector.metadata["payload"]))
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        #expect(try server.receive(vector.bytes, output: &output) == [.binary(payload)])
        let client = try WebSocketProtocolMachine(role: .client, maskingKeys: { WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D) })
        var wire: [UInt8] = []
        try client.sendBinary(payload, output: &wire)
        #expect(wire == vector.bytes, "sending the payload with the vector's key must give the vector's bytes")
    }

    @Test("the room-full close decodes to code 4001 and re-encodes byte for byte")
    func closeRoomFull() throws {
        let vector = try load("websocket-close-room-full.hex")
        // 4001 is the game protocol's room-full code (TickwireSim); to this layer, an application code.
        let roomFull = try #require(WebSocketCloseCode(rawValue: 4001))
        let client = try WebSocketProtocolMachine(role: .client)
        var output: [UInt8] = []
        let events = try client.receive(vector.bytes, output: &output)
        #expect(events == [.close(WebSocketCloseFrame(code: roomFull, reason: "room full"))])
        #expect(vector.metadata["close"] == "4001 room full")
        let server = try WebSocketProtocolMachine(role: .server)
        var wire: [UInt8] = []
        try server.close(code: roomFull, reason: "room full", output: &wire)
        #expect(wire == vector.bytes)
    }

    @Test("the keepalive ping is answered with the vector's pong")
    func keepalivePing() throws {
        let vector = try load("websocket-keepalive-ping.hex")
        let server = try WebSocketProtocolMachine(role: .server)
        var output: [UInt8] = []
        let ping = bytes(hex: try #require(vector.metadata["ping"]))
        #expect(try server.receive(vector.bytes, output: &output) == [.ping(ping)])
        #expect(output == bytes(hex: try #require(vector.metadata["reply"])), "the pong must echo the sequence number unmasked")
        var keepalive = WebSocketKeepalive(interval: 1, timeout: 1, now: 0)
        #expect(keepalive.poll(now: 1) == .sendPing(ping), "the keepalive helper's first ping payload is the vector's")
    }

    @Test("the compressed Hello inflates and our deflater produces the same bytes")
    func deflateHello() throws {
        let vector = try load("websocket-deflate-hello.hex")
        let client = try WebSocketProtocolMachine(role: .client, compression: PerMessageDeflateParameters())
        var output: [UInt8] = []
        #expect(try client.receive(vector.bytes, output: &output) == [.text("Hello")])
        let server = try WebSocketProtocolMachine(role: .server, compression: PerMessageDeflateParameters())
        var wire: [UInt8] = []
        try server.sendText("Hello", output: &wire)
        #expect(wire == vector.bytes, "a fresh deflater at level 6 must produce RFC 7692's bytes for Hello")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// Property: whatever one machine sends, the peer machine receives byte for byte,
/// whatever the chunking of the stream, with and without permessage-deflate and context takeover.
@Suite("WebSocket round trip")
struct WebSocketRoundTripTests {
    struct Setup: CustomTestStringConvertible, Sendable {
        var name: String
        var compression: PerMessageDeflateParameters?
        var fragmentBytes: Int?
        var testDescription: String { name }
    }

    static let setups: [Setup] = [
        Setup(name: "plain", compression: nil, fragmentBytes: nil),
        Setup(name: "plain, fragmented", compression: nil, fragmentBytes: 100),
        Setup(name: "deflate with context takeover", compression: PerMessageDeflateParameters(), fragmentBytes: nil),
        Setup(
            name: "deflate, no context takeover either way",
            compression: PerMessageDeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true), fragmentBytes: nil),
        Setup(
            name: "deflate, 9-bit windows, fragmented",
            compression: PerMessageDeflateParameters(serverMaxWindowBits: 9, clientMaxWindowBits: 9), fragmentBytes: 333),
        Setup(
            name: "deflate, client no takeover, level 1",
            compression: PerMessageDeflateParameters(clientNoContextTakeover: true, serverMaxWindowBits: 12, compressionLevel: 1),
            fragmentBytes: nil),
        Setup(
            name: "deflate, peer window 8 on receive",
            compression: PerMessageDeflateParameters(serverMaxWindowBits: 9, clientMaxWindowBits: 8),
            fragmentBytes: nil),
    ]

    enum Message: Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// A random message: repetitive (compressible) or random bytes, text or binary, 0 to ~70 KB.
    static func randomMessage(using generator: inout SplitMix64) -> Message {
        let sizes = [0, 1, 2, 125, 126, 127, 1000, 65535, 65536, 70_000]
        let size =
            Bool.random(using: &generator) ? sizes.randomElement(using: &generator) ?? 0 : Int.random(in: 0...3000, using: &generator)
        if Bool.random(using: &generator) {
            let words = ["tick", "wire", "snapshot", "delta", "κόσμε", "🎮", "ack", " "]
            var text = ""
            while text.utf8.count < size { text += words.randomElement(using: &generator) ?? "" }
            return .text(text)
        }
        if Bool.random(using: &generator) {
            return .binary(randomBytes(size, using: &generator))
        }
        let pattern = randomBytes(Int.random(in: 1...16, using: &generator), using: &generator)
        return .binary((0..<size).map { pattern[$0 % pattern.count] })
    }

    func run(_ setup: Setup, from senderRole: WebSocketRole, seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let keys = SeededMaskingKeys(seed: seed ^ 0xFFFF)
        let configuration = WebSocketConfiguration(outgoingFragmentBytes: setup.fragmentBytes)
        let sender = try WebSocketProtocolMachine(
            role: senderRole, configuration: configuration,
            compression: setup.compression, maskingKeys: keys.next)
        let receiver = try WebSocketProtocolMachine(
            role: senderRole == .client ? .server : .client,
            configuration: configuration, compression: setup.compression)
        var sent: [Message] = []
        var wire: [UInt8] = []
        for _ in 0..<40 {
            let message = Self.randomMessage(using: &generator)
            switch message {
            case .text(let text): try sender.sendText(text, output: &wire)
            case .binary(let data): try sender.sendBinary(data, output: &wire)
            }
            sent.append(message)
            if Int.random(in: 0..<8, using: &generator) == 0 { try sender.sendPing([1, 2, 3], output: &wire) }
        }
        try sender.close(code: .normalClosure, reason: "done", output: &wire)
        var received: [Message] = []
        var replies: [UInt8] = []
        var closed = false
        for chunk in randomChunks(wire, maximum: Int.random(in: 1...5000, using: &generator), using: &generator) {
            let result = chunk.withUnsafeBytes { buffer in
                Result { () throws(WebSocketError) in
                    try receiver.receive(buffer, output: &replies) { event in
                        switch event {
                        case .text(let text): received.append(.text(text))
                        case .binary(let data): received.append(.binary(data))
                        case .close(let frame): closed = frame.code == .normalClosure && frame.reason == "done"
                        case .ping, .pong: break
                        }
                    }
                }
            }
            _ = try result.get()
        }
        #expect(received.count == sent.count, "\(setup.name), seed \(seed): every message must arrive")
        for (index, (got, expected)) in zip(received, sent).enumerated() where got != expected {
            Issue.record("\(setup.name), seed \(seed): message \(index) differs from what was sent")
        }
        #expect(closed && receiver.state == .closed, "\(setup.name): the close must arrive last with its code and reason")
        // The replies (pongs, close reply) must be valid frames the sender accepts.
        let result = replies.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in try sender.receive(buffer, output: &wire) { _ in } }
        }
        _ = try result.get()
        #expect(sender.state == .closed, "\(setup.name): the sender must see the close reply")
    }

    @Test("client to server: every message arrives intact under random chunking", arguments: setups)
    func clientToServer(setup: Setup) throws {
        for seed in 0..<4 as Range<UInt64> { try run(setup, from: .client, seed: seed * 7919 + 1) }
    }

    @Test("server to client: every message arrives intact under random chunking", arguments: setups)
    func serverToClient(setup: Setup) throws {
        for seed in 0..<4 as Range<UInt64> { try run(setup, from: .server, seed: seed * 104_729 + 2) }
    }
}

import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// Bytes from a hex string; spaces are ignored.
func bytes(hex: String) -> [UInt8] {
    let digits = hex.utf8.filter { $0 != UInt8(ascii: " ") }
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) ?? 0
    }
}

/// Lowercase hex of bytes.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

/// Decodes whole frames from `chunks` with a `WebSocketFrameDecoder`, unmasking payloads,
/// as a test-only reassembly of the decoder's elements into `WebSocketFrame`s.
func decodeFrames(
    _ chunks: [[UInt8]], role: WebSocketRole, limit: Int = WebSocketLimits.default.maximumFramePayloadBytes,
    allowsCompressedMessages: Bool = false
) throws(WebSocketError) -> [WebSocketFrame] {
    var decoder = WebSocketFrameDecoder(role: role, maximumFramePayloadBytes: limit, allowsCompressedMessages: allowsCompressedMessages)
    var frames: [WebSocketFrame] = []
    var header: WebSocketFrameHeader?
    var payload: [UInt8] = []
    for chunk in chunks {
        let result = chunk.withUnsafeBytes { buffer in
            Result { () throws(WebSocketError) in
                var index = 0
                while let element = try decoder.next(in: buffer, at: &index) {
                    switch element {
                    case .header(let decoded):
                        header = decoded
                        payload = []
                    case .payload(let range, let offset):
                        var piece = Array(buffer[range])
                        if let key = header?.maskingKey {
                            piece.withUnsafeMutableBytes { key.apply(to: $0, phase: offset) }
                        }
                        payload += piece
                    case .end:
                        if let header { frames.append(WebSocketFrame(header: header, payload: payload)) }
                    }
                }
            }
        }
        try result.get()
    }
    return frames
}

/// Splits `bytes` into chunks of random sizes in `1...maximum`, drawn from `generator`.
func randomChunks(_ bytes: [UInt8], maximum: Int, using generator: inout SplitMix64) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var index = 0
    while index < bytes.count {
        let size = Int.random(in: 1...max(1, maximum), using: &generator)
        let end = min(bytes.count, index + size)
        chunks.append(Array(bytes[index..<end]))
        index = end
    }
    return chunks
}

/// Random bytes from a seeded generator.
func randomBytes(_ count: Int, using generator: inout SplitMix64) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// A deterministic masking key source for tests: keys drawn from a seeded SplitMix64
/// (test-only stand-in for the system CSPRNG).
final class SeededMaskingKeys {
    var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    func next() -> WebSocketMaskingKey { WebSocketMaskingKey.random(using: &generator) }
}

import Testing

@testable import TickwireCodec

/// ``Message/Hello/ConnectToken/init(encoded:)``: the 1056-byte field a matchmaker hands out as
/// `helloToken`, read with the codec's reader (big-endian expire timestamp, nonce, private part).
@Suite("Hello connect token field")
struct MessageHelloConnectTokenTests {
    static let token = Message.Hello.ConnectToken(
        expireTimestamp: 0x0102_0304_0506_0708, nonce: Array(repeating: 0xAB, count: 24),
        encryptedPrivateData: (0..<1024).map { UInt8(truncatingIfNeeded: $0) })

    /// The field's bytes, as a hello carries them.
    static func encoded(_ token: Message.Hello.ConnectToken) -> [UInt8] {
        var writer = ByteWriter()
        token.encode(into: &writer)
        return writer.bytes
    }

    @Test("the field's bytes read back into the same token, the expire timestamp big-endian first")
    func roundTrip() throws {
        let token = try #require(Self.token)
        let bytes = Self.encoded(token)
        #expect(bytes.count == Message.Hello.ConnectToken.encodedBytes)
        #expect(Array(bytes.prefix(8)) == [1, 2, 3, 4, 5, 6, 7, 8], "big-endian, as every Tickwire integer")
        #expect(try Message.Hello.ConnectToken(encoded: bytes) == token)
    }

    @Test("one byte short is refused as truncated; one byte more as trailing bytes")
    func wrongSizes() throws {
        let bytes = Self.encoded(try #require(Self.token))
        #expect(throws: FrameError.self, "1055 bytes are refused") { try Message.Hello.ConnectToken(encoded: Array(bytes.dropLast())) }
        #expect(throws: FrameError.trailingBytes(type: MessageType.hello.rawValue, count: 1), "1057 bytes are refused") {
            try Message.Hello.ConnectToken(encoded: bytes + [0])
        }
    }
}

import Testing
import TickwireCodec

@Suite("A hello's connect token field on its own (PROTOCOL.md 5.3.1), as a matchmaker's helloToken carries it")
struct MessageHelloConnectTokenTests {
    @Test("encoded is the expire timestamp (big-endian), the nonce and the private part: 1056 bytes that decode back")
    func roundTrip() throws {
        let nonce = (0..<24).map { UInt8($0) }
        let encrypted = (0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let token = try #require(
            Message.Hello.ConnectToken(expireTimestamp: 0x0102_0304_0506_0708, nonce: nonce, encryptedPrivateData: encrypted))
        let bytes = token.encoded
        #expect(bytes.count == Message.Hello.ConnectToken.encodedBytes && bytes.count == 1056)
        #expect(Array(bytes.prefix(8)) == [1, 2, 3, 4, 5, 6, 7, 8], "the expire timestamp is big-endian, as every integer of a hello")
        #expect(Array(bytes[8..<32]) == nonce && Array(bytes[32...]) == encrypted)
        #expect(try Message.Hello.ConnectToken(decoding: bytes) == token)
    }

    @Test("1055 bytes are truncated and 1057 are one too many: both refused")
    func wrongLengths() throws {
        let bytes = [UInt8](repeating: 9, count: 1056)
        #expect(throws: FrameError.self, "one byte short") { try Message.Hello.ConnectToken(decoding: Array(bytes.dropLast())) }
        #expect(throws: FrameError.self, "one byte over") { try Message.Hello.ConnectToken(decoding: bytes + [0]) }
        #expect(try Message.Hello.ConnectToken(decoding: bytes).expireTimestamp == 0x0909_0909_0909_0909)
    }
}

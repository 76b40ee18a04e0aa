import Foundation
import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireTokens

/// `Protocol/vectors/tokens/token-01-connect-token.hex` and the hello frames that carry it:
/// a connect token minted from fixed inputs opens, with the vector's key, to the vector's identity.
///
/// `TICKWIRE_WRITE_TOKEN_VECTORS=1 swift test --filter ConnectTokenVectorTests` writes the three
/// files again from ``TokenVectorInputs`` (the bytes only change if the inputs or libsodium do).
@Suite("Connect token vectors")
struct ConnectTokenVectorTests {
    static let tokenVector = "vectors/tokens/token-01-connect-token.hex"
    static let helloVector = "vectors/frame-hello-connect-token.hex"
    static let truncatedVector = "vectors/frame-error-hello-connect-token-truncated.hex"

    @Test("the token vector is the token its inputs mint, and opens to its identity")
    func tokenVector() throws {
        try writeVectorsIfAsked()
        let vector = try TokenVector.load(Self.tokenVector)
        let token = try TokenVectorInputs.token()
        #expect(vector.bytes == token.serialized(), "the vector's 2048 bytes are the token minted from TokenVectorInputs")
        #expect(try vector.hexField("key") == TokenVectorInputs.key.bytes)
        #expect(try vector.integer("protocol id") == TokenVectorInputs.protocolID)
        let read = try ConnectToken(bytes: vector.bytes)
        let verifier = NetcodeConnectTokenVerifier(
            key: try NetcodeKey(bytes: try vector.hexField("key")), protocolID: try vector.integer("protocol id"),
            clock: .fixed(try vector.integer("now")))
        let verified = try verifier.verify(try #require(read.helloToken))
        #expect(verified.identity.userID == (try vector.integer("user id")))
        #expect(verified.room == (try vector.field("room")))
        #expect(verified.identity.displayName == (try vector.field("display name")))
        #expect(verified.identity.claims == (try vector.hexField("claims")))
        #expect(verified.expireTimestamp == read.expireTimestamp)
        // The private part is bytes 61..<1085 of the token (after version info, protocol id, two
        // timestamps and the nonce); its last 16 are the tag a host remembers.
        #expect(verified.tag == Array(vector.bytes[1069..<1085]))
    }

    @Test("the hello vector carries the token vector's parts and re-encodes byte for byte")
    func helloVector() throws {
        try writeVectorsIfAsked()
        let frame = try TokenVector.load(Self.helloVector).bytes
        let hello = try TokenVectorInputs.hello()
        let decoded = try FrameDecompressor(mode: .none).decode(frame)
        #expect(decoded == .hello(hello))
        #expect(try FrameCompressor(mode: .none).encode(.hello(hello)) == frame)
        #expect(frame.count == 1 + 16 + Message.Hello.ConnectToken.encodedBytes + 4, "type, 16 bytes of fields, the token, the payload")
    }

    @Test("a hello whose connect token ends early is refused as truncated, with the field's missing bytes")
    func truncatedVector() throws {
        try writeVectorsIfAsked()
        let vector = try TokenVector.load(Self.truncatedVector)
        #expect(throws: FrameError.truncated(offset: 34, needed: 14)) { try FrameDecompressor(mode: .none).decode(vector.bytes) }
        #expect(try vector.field("error") == "truncated(offset: 34, needed: 14)")
    }

    /// Writes the three vectors from ``TokenVectorInputs`` when `TICKWIRE_WRITE_TOKEN_VECTORS` is set.
    private func writeVectorsIfAsked() throws {
        guard ProcessInfo.processInfo.environment["TICKWIRE_WRITE_TOKEN_VECTORS"] != nil else { return }
        let token = try TokenVectorInputs.token()
        let tokenText = """
            # A netcode.io 1.02 connect token (NETCODE.md; 2048 bytes) minted for Tickwire (PROTOCOL.md 5.3.1):
            # its private part, sealed with the key below, holds user id 42 and user data in Tickwire's
            # layout (5.3.2, the bytes of user-data-01-room-name-claims.hex). A verifier with this key and
            # protocol id, at the time `now`, opens it to the identity below. Fixed inputs: create timestamp
            # \(TokenVectorInputs.createTimestamp), nonce 40 41 … 57, client-to-server key 80 81 … 9f,
            # server-to-client key a0 a1 … bf, timeout 10 s, one server 127.0.0.1:40000.
            # key: \(TokenVector.hex(TokenVectorInputs.key.bytes))
            # protocol id: 0x\(String(TokenVectorInputs.protocolID, radix: 16))
            # now: \(TokenVectorInputs.expireTimestamp - 30)
            # user id: \(TokenVectorInputs.userID)
            # room: red
            # display name: Ada
            # claims: 072a

            """
        try (tokenText + TokenVector.hexLines(token.serialized())).write(
            to: TokenVector.protocolDirectory.appendingPathComponent(Self.tokenVector), atomically: true, encoding: .utf8)
        let frame = try FrameCompressor(mode: .none).encode(.hello(try TokenVectorInputs.hello()))
        let helloText = """
            # Hello (type 0x01) carrying a connect token (PROTOCOL.md 5.3.1): flags bit 1.
            #   01                        type byte: hello
            #   00 01                     protocol version 1
            #   01 23 45 67 89 ab cd ef   schema fingerprint
            #   03                        compression modes: perFrame and streaming
            #   02                        flags: bit 1 = a connect token follows (no resume token)
            #   03 72 65 64               room name: length 3, "red"
            #   00 00 00 00 6b 49 d2 3c   connect token: expire timestamp 1800000060 (u64 big-endian)
            #   40 41 … 57                  nonce (24 bytes)
            #   …                           encrypted private connect token (1024 bytes), the one of
            #                               vectors/tokens/token-01-connect-token.hex (its bytes 61–1084)
            #   03 61 64 61               application payload: length 3, "ada"

            """
        try (helloText + TokenVector.hexLines(frame)).write(
            to: TokenVector.protocolDirectory.appendingPathComponent(Self.helloVector), atomically: true, encoding: .utf8)
        let truncated = Array(frame.prefix(1 + 16 + 8 + 10))
        let truncatedText = """
            # A hello whose flags announce a connect token (bit 1) that ends inside its nonce: after
            # the expire timestamp only 10 of the nonce's 24 bytes are left, so the body (34 bytes) is
            # refused where it ends, 14 bytes short of the nonce.
            # error: truncated(offset: 34, needed: 14)

            """
        try (truncatedText + TokenVector.hexLines(truncated)).write(
            to: TokenVector.protocolDirectory.appendingPathComponent(Self.truncatedVector), atomically: true, encoding: .utf8)
    }
}

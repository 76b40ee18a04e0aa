import Foundation
import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireTokens
import TickwireVectorTestSupport

/// `Protocol/vectors/tokens/token-01-connect-token.hex` and the hello frames that carry it:
/// a connect token minted from fixed inputs opens, with the vector's key, to the vector's identity;
/// `token-error-expired.hex` and `token-error-invalid.hex` are refused as `tokenExpired` and
/// `tokenInvalid` (`PROTOCOL.md` 5.3.1).
///
/// `TICKWIRE_WRITE_TOKEN_VECTORS=1 swift test --filter ConnectTokenVectorTests` writes the five
/// files again from ``TokenVectorInputs`` (the bytes only change if the inputs or libsodium do).
@Suite("Connect token vectors")
struct ConnectTokenVectorTests {
    static let tokenVector = "vectors/tokens/token-01-connect-token.hex"
    static let helloVector = "vectors/frame-hello-connect-token.hex"
    static let truncatedVector = "vectors/frame-error-hello-connect-token-truncated.hex"
    static let expiredVector = "vectors/tokens/token-error-expired.hex"
    static let invalidVector = "vectors/tokens/token-error-invalid.hex"
    /// The refusals a tokens vector's `# error:` line names (`CONFORMANCE.md`), as a verifier's reject reasons.
    static let refusals: [String: Message.Reject.Reason] = ["tokenExpired": .tokenExpired, "tokenInvalid": .tokenInvalid]
    /// The byte of the token that `token-error-invalid.hex` changes: the encrypted private part's first.
    static let forgedByte = 61

    @Test("the token vector is the token its inputs mint, and opens to its identity")
    func tokenVector() throws {
        try writeVectorsIfAsked()
        let vector = try VectorFile.load(Self.tokenVector)
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
        let frame = try VectorFile.load(Self.helloVector).bytes
        let hello = try TokenVectorInputs.hello()
        let decoded = try FrameDecompressor(mode: .none).decode(frame)
        #expect(decoded == .hello(hello))
        #expect(try FrameCompressor(mode: .none).encode(.hello(hello)) == frame)
        #expect(frame.count == 1 + 16 + Message.Hello.ConnectToken.encodedBytes + 4, "type, 16 bytes of fields, the token, the payload")
    }

    @Test("a hello whose connect token ends early is refused as truncated, with the field's missing bytes")
    func truncatedVector() throws {
        try writeVectorsIfAsked()
        let vector = try VectorFile.load(Self.truncatedVector)
        #expect(throws: FrameError.truncated(offset: 34, needed: 14)) { try FrameDecompressor(mode: .none).decode(vector.bytes) }
        #expect(try vector.field("error") == "truncated(offset: 34, needed: 14)")
    }

    @Test(
        "each token error vector is refused with its error, by a verifier holding its key and protocol id at its time",
        arguments: [(expiredVector, "tokenExpired"), (invalidVector, "tokenInvalid")])
    func errorVector(path: String, expected: String) throws {
        try writeVectorsIfAsked()
        let vector = try VectorFile.load(path)
        #expect(try vector.field("error") == expected, "\(path) names the refusal this test expects")
        let verifier = NetcodeConnectTokenVerifier(
            key: try NetcodeKey(bytes: try vector.hexField("key")), protocolID: try vector.integer("protocol id"),
            clock: .fixed(try vector.integer("now")))
        let token = try #require(try ConnectToken(bytes: vector.bytes).helloToken, "\(path) is a token a hello carries")
        do {
            let verified = try verifier.verify(token)
            Issue.record("\(path) opened to user id \(verified.identity.userID); it must be refused with \(expected)")
        } catch {
            #expect(error.reason == Self.refusals[expected], "\(path) must be refused with \(expected), got \(error)")
        }
    }

    @Test("the token error vectors are the token vector at its expiry, and with one bit of its private part changed")
    func errorVectorBytes() throws {
        let minted = try TokenVectorInputs.token().serialized()
        let expired = try VectorFile.load(Self.expiredVector)
        #expect(expired.bytes == minted, "token-error-expired.hex holds token-01's bytes")
        #expect(try expired.integer("now") == TokenVectorInputs.expireTimestamp, "it is opened at its expire timestamp: expire <= now")
        var forged = minted
        forged[Self.forgedByte] ^= 0x01
        let invalid = try VectorFile.load(Self.invalidVector)
        #expect(invalid.bytes == forged, "token-error-invalid.hex is token-01 with bit 0 of byte \(Self.forgedByte) flipped")
        #expect(try invalid.integer("now") < TokenVectorInputs.expireTimestamp, "it has not expired, so it is refused as invalid")
    }

    /// Writes the five vectors from ``TokenVectorInputs`` when `TICKWIRE_WRITE_TOKEN_VECTORS` is set.
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
            # key: \(VectorFile.hex(TokenVectorInputs.key.bytes))
            # protocol id: 0x\(String(TokenVectorInputs.protocolID, radix: 16))
            # now: \(TokenVectorInputs.expireTimestamp - 30)
            # user id: \(TokenVectorInputs.userID)
            # room: red
            # display name: Ada
            # claims: 072a

            """
        try (tokenText + VectorFile.hexLines(token.serialized())).write(
            to: VectorFile.protocolDirectory.appendingPathComponent(Self.tokenVector), atomically: true, encoding: .utf8)
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
        try (helloText + VectorFile.hexLines(frame)).write(
            to: VectorFile.protocolDirectory.appendingPathComponent(Self.helloVector), atomically: true, encoding: .utf8)
        let truncated = Array(frame.prefix(1 + 16 + 8 + 10))
        let truncatedText = """
            # A hello whose flags announce a connect token (bit 1) that ends inside its nonce: after
            # the expire timestamp only 10 of the nonce's 24 bytes are left, so the body (34 bytes) is
            # refused where it ends, 14 bytes short of the nonce.
            # error: truncated(offset: 34, needed: 14)

            """
        try (truncatedText + VectorFile.hexLines(truncated)).write(
            to: VectorFile.protocolDirectory.appendingPathComponent(Self.truncatedVector), atomically: true, encoding: .utf8)
        let inputs = """
            # key: \(VectorFile.hex(TokenVectorInputs.key.bytes))
            # protocol id: 0x\(String(TokenVectorInputs.protocolID, radix: 16))

            """
        let expiredText = """
            # The connect token of token-01-connect-token.hex, opened at its expire timestamp (1800000060):
            # a verifier refuses a token whose expire timestamp is not after its clock (expire <= now) as
            # token expired (reject 11, PROTOCOL.md 5.3.1), before it decrypts anything.
            \(inputs)# now: \(TokenVectorInputs.expireTimestamp)
            # error: tokenExpired

            """
        try (expiredText + VectorFile.hexLines(token.serialized())).write(
            to: VectorFile.protocolDirectory.appendingPathComponent(Self.expiredVector), atomically: true, encoding: .utf8)
        var forged = token.serialized()
        forged[Self.forgedByte] ^= 0x01
        let invalidText = """
            # The connect token of token-01-connect-token.hex with one bit of its encrypted private part
            # changed (byte 61, the private part's first: fe becomes ff), as a forger would: the private part
            # no longer authenticates with the key and protocol id, so a verifier refuses it as token invalid
            # (reject 10, PROTOCOL.md 5.3.1). Its expire timestamp is still after `now`.
            \(inputs)# now: \(TokenVectorInputs.expireTimestamp - 30)
            # error: tokenInvalid

            """
        try (invalidText + VectorFile.hexLines(forged)).write(
            to: VectorFile.protocolDirectory.appendingPathComponent(Self.invalidVector), atomically: true, encoding: .utf8)
    }
}

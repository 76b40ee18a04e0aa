import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

@Suite("HS256 web tokens")
struct HS256WebTokenTests {
    static let secret = Array("a secret of thirty-two bytes, ok".utf8)
    static let now: Int64 = 1_800_000_000

    /// RFC 7515 appendix A.1: the example HS256 JWS, its key (the JWK's `k`), and its payload.
    @Test("verifies RFC 7515's HS256 example, and refuses it once its exp has passed")
    func rfc7515Example() throws {
        let token =
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let key = try #require(Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"))
        let tokens = try HS256WebToken(secret: key, leewaySeconds: 0)
        let claims = try tokens.verify(token, now: 1_300_819_379)
        #expect(claims.expiresAt == 1_300_819_380)
        #expect(claims.payload["iss"]?.stringValue == "joe")
        #expect(claims.payload["http://example.com/is_root"] == .bool(true))
        #expect(throws: WebTokenError.expired(at: 1_300_819_380)) { try tokens.verify(token, now: 1_300_819_380) }
    }

    @Test("a signed token verifies with its claims, through a Bearer header too")
    func signAndVerify() throws {
        let tokens = try HS256WebToken(secret: Self.secret)
        let token = try tokens.sign(.object(["sub": .string("u-42"), "name": .string("Alice"), "exp": .number(Double(Self.now + 60))]))
        let claims = try tokens.verify(token, now: Self.now)
        #expect(claims.subject == "u-42" && claims.name == "Alice" && claims.expiresAt == Self.now + 60)
        #expect(try tokens.verify(authorization: "Bearer \(token)", now: Self.now) == claims)
        #expect(try tokens.verify(authorization: "bearer  \(token) ", now: Self.now) == claims, "the scheme is case-insensitive")
        #expect(throws: WebTokenError.missingBearer) { try tokens.verify(authorization: nil, now: Self.now) }
        #expect(throws: WebTokenError.missingBearer) { try tokens.verify(authorization: "Basic abc", now: Self.now) }
    }

    @Test("a changed payload, another secret or a cut signature is refused as badSignature")
    func forgeries() throws {
        let tokens = try HS256WebToken(secret: Self.secret)
        let token = try tokens.sign(.object(["name": .string("Alice"), "exp": .number(Double(Self.now + 60))]))
        let parts = token.split(separator: ".").map(String.init)
        let bob = Base64URL.encode(Array(JSONValue.object(["name": .string("Bob"), "exp": .number(Double(Self.now + 60))]).text.utf8))
        #expect(throws: WebTokenError.badSignature) { try tokens.verify(parts[0] + "." + bob + "." + parts[2], now: Self.now) }
        let other = try HS256WebToken(secret: Array(repeating: 7, count: 32))
        #expect(throws: WebTokenError.badSignature) { try other.verify(token, now: Self.now) }
        #expect(throws: WebTokenError.badSignature) {
            try tokens.verify(parts[0] + "." + parts[1] + "." + parts[2].dropLast(3), now: Self.now)
        }
    }

    @Test("alg none, another algorithm and critical extensions are refused before the signature")
    func algorithms() throws {
        let tokens = try HS256WebToken(secret: Self.secret)
        let payload = Base64URL.encode(Array(#"{"exp":1900000000}"#.utf8))
        func token(header: String, signature: String = "") -> String {
            Base64URL.encode(Array(header.utf8)) + "." + payload + "." + signature
        }
        #expect(throws: WebTokenError.unsupportedAlgorithm("none")) { try tokens.verify(token(header: #"{"alg":"none"}"#), now: Self.now) }
        #expect(throws: WebTokenError.unsupportedAlgorithm("HS512")) {
            try tokens.verify(token(header: #"{"alg":"HS512"}"#), now: Self.now)
        }
        #expect(throws: WebTokenError.unsupportedAlgorithm("HS256 with critical extensions")) {
            try tokens.verify(token(header: #"{"alg":"HS256","crit":["x"]}"#), now: Self.now)
        }
        #expect(throws: WebTokenError.malformed("the header has no alg")) { try tokens.verify(token(header: "{}"), now: Self.now) }
    }

    @Test("exp and nbf are checked with the leeway; a token without exp is refused unless allowed")
    func times() throws {
        let tokens = try HS256WebToken(secret: Self.secret, leewaySeconds: 30)
        let expiring = try tokens.sign(.object(["exp": .number(Double(Self.now))]))
        #expect(throws: Never.self) { try tokens.verify(expiring, now: Self.now + 29) }
        #expect(throws: WebTokenError.expired(at: Self.now)) { try tokens.verify(expiring, now: Self.now + 30) }
        let early = try tokens.sign(.object(["exp": .number(Double(Self.now + 600)), "nbf": .number(Double(Self.now + 100))]))
        #expect(throws: Never.self) { try tokens.verify(early, now: Self.now + 70) }
        #expect(throws: WebTokenError.notYetValid(until: Self.now + 100)) { try tokens.verify(early, now: Self.now + 69) }
        let endless = try tokens.sign(.object(["sub": .string("u")]))
        #expect(throws: WebTokenError.missingExpiry) { try tokens.verify(endless, now: Self.now) }
        let lenient = try HS256WebToken(secret: Self.secret, requiresExpiry: false)
        #expect(try lenient.verify(endless, now: Self.now).subject == "u")
        let wrongType = try tokens.sign(.object(["exp": .string("soon")]))
        #expect(throws: WebTokenError.malformed("the exp claim is not a whole number of seconds")) {
            try tokens.verify(wrongType, now: Self.now)
        }
    }

    @Test("malformed forms: parts, base64url, JSON, a payload that is no object")
    func malformed() throws {
        let tokens = try HS256WebToken(secret: Self.secret)
        #expect(throws: WebTokenError.malformed("2 parts, not 3")) { try tokens.verify("a.b", now: Self.now) }
        #expect(throws: WebTokenError.malformed("the header is not base64url")) { try tokens.verify("a=.b.c", now: Self.now) }
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        #expect(throws: WebTokenError.malformed("the signature is not base64url")) { try tokens.verify(header + ".e30.a+b", now: Self.now) }
        let notJSON = Base64URL.encode(Array("{alg}".utf8))
        #expect(throws: WebTokenError.self) { try tokens.verify(notJSON + ".e30.", now: Self.now) }
        // A correctly signed payload that is an array, not an object.
        let input = header + "." + Base64URL.encode(Array("[1]".utf8))
        let tag = try #require(HMACSHA256.tagForTests(input, key: Self.secret))
        #expect(throws: WebTokenError.malformed("the payload is not a JSON object")) { try tokens.verify(input + "." + tag, now: Self.now) }
    }

    @Test("a token of maximumTokenBytes is read; one byte more is refused before any work")
    func sizeLimit() throws {
        let tokens = try HS256WebToken(secret: Self.secret, requiresExpiry: false)
        let limit = HS256WebToken.maximumTokenBytes
        // The token grows with the padding claim; find the padding that makes it exactly the limit.
        let atLimit = try #require(
            (0..<limit).lazy.compactMap { count in try? tokens.sign(.object(["p": .string(String(repeating: "x", count: count))])) }
                .first { $0.utf8.count == limit })
        #expect(try tokens.verify(atLimit, now: Self.now).payload["p"] != nil)
        #expect(throws: WebTokenError.tooLong(bytes: limit + 1, limit: limit)) { try tokens.verify(atLimit + "A", now: Self.now) }
        let tooLarge = JSONValue.object(["p": .string(String(repeating: "x", count: limit))])
        #expect(throws: WebTokenError.self, "sign refuses a token past the limit") { try tokens.sign(tooLarge) }
    }

    @Test("a secret shorter than 32 bytes is refused")
    func shortSecret() {
        #expect(throws: WebTokenError.secretTooShort(bytes: 31, minimum: 32)) { try HS256WebToken(secret: Array(repeating: 1, count: 31)) }
        #expect(throws: Never.self) { try HS256WebToken(secret: Array(repeating: 1, count: 32)) }
    }

    @Test("base64url: canonical unpadded text only")
    func base64URL() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("-_8=") == nil, "no padding")
        #expect(Base64URL.decode("+/8") == nil, "not the standard alphabet")
        #expect(Base64URL.decode("-_9") == nil, "unused bits set")
        #expect(Base64URL.decode("A") == nil, "a length no bytes have")
        #expect(Base64URL.decode("") == [])
    }
}

extension HMACSHA256 {
    /// A test helper: the base64url HMAC-SHA-256 tag of `input`.
    static func tagForTests(_ input: String, key: [UInt8]) -> String? {
        tag(of: Array(input.utf8), key: key).map(Base64URL.encode)
    }
}

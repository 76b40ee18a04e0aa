import TickwireFoundation
import TickwireIO

/// JSON Web Tokens signed with HMAC-SHA-256 (RFC 7519 over RFC 7515's compact form, `alg`
/// `HS256`): what a game's web backend hands a logged-in player, and what a matchmaker's
/// `authenticate` hook checks before it gives that player a seat.
///
/// ```swift
/// let tokens = try HS256WebToken(secret: Array(secretFileContents))
/// let claims = try tokens.verify(authorization: request.headers["authorization"], now: unixSeconds)
/// // claims.subject is the user id, claims.name the name to show.
/// ```
///
/// The verifier is strict: only `HS256` (a token saying `none`, another algorithm, or naming
/// critical extensions is refused), canonical unpadded base64url, JSON objects read by
/// `JSONParser` (no repeated members), a constant-time signature comparison, `exp` required
/// by default and `exp`/`nbf` checked with ``leewaySeconds`` of clock skew. The HMAC is OpenSSL's.
public struct HS256WebToken: Sendable {
    /// The longest token read: 4096 bytes (a token past it is refused before any work).
    public static let maximumTokenBytes = 4096
    /// The shortest secret accepted: 32 bytes, the hash's size (RFC 7518 section 3.2).
    public static let minimumSecretBytes = 32

    private let secret: [UInt8]
    /// Seconds of clock skew allowed on either side of `exp` and `nbf` (default 30).
    public var leewaySeconds: Int64
    /// Whether a token without `exp` is refused (default `true`: a token that never expires
    /// cannot be taken back).
    public var requiresExpiry: Bool

    /// A verifier and signer for one secret.
    ///
    /// - Parameters:
    ///   - secret: The shared secret, at least ``minimumSecretBytes``.
    ///   - leewaySeconds: Clock skew allowed around `exp` and `nbf`.
    ///   - requiresExpiry: Whether a token without `exp` is refused.
    /// - Throws: ``WebTokenError/secretTooShort(bytes:minimum:)``.
    public init(secret: [UInt8], leewaySeconds: Int64 = 30, requiresExpiry: Bool = true) throws(WebTokenError) {
        guard secret.count >= Self.minimumSecretBytes else {
            throw .secretTooShort(bytes: secret.count, minimum: Self.minimumSecretBytes)
        }
        self.secret = secret
        self.leewaySeconds = leewaySeconds
        self.requiresExpiry = requiresExpiry
    }

    /// Verifies the token of an `Authorization: Bearer <token>` header.
    ///
    /// - Parameters:
    ///   - authorization: The header's value, or `nil` when the request had none.
    ///   - now: The time, in Unix seconds.
    /// - Returns: The token's claims.
    /// - Throws: ``WebTokenError/missingBearer`` without a bearer token, else as ``verify(_:now:)``.
    public func verify(authorization: String?, now: Int64) throws(WebTokenError) -> WebTokenClaims {
        guard let authorization else { throw .missingBearer }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        // The scheme is case-insensitive (RFC 9110 section 11.1).
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .missingBearer }
        return try verify(String(parts[1]).trimmingWhitespace, now: now)
    }

    /// Verifies a token: its size, form, algorithm, signature, then its times.
    ///
    /// - Parameters:
    ///   - token: The compact form, `header.payload.signature`.
    ///   - now: The time, in Unix seconds.
    /// - Returns: The token's claims.
    /// - Throws: ``WebTokenError``, the first check that fails in the order above.
    public func verify(_ token: String, now: Int64) throws(WebTokenError) -> WebTokenClaims {
        let size = token.utf8.count
        guard size <= Self.maximumTokenBytes else { throw .tooLong(bytes: size, limit: Self.maximumTokenBytes) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("\(parts.count) parts, not 3") }
        let header = try Self.object(parts[0], what: "header")
        guard let algorithm = header["alg"]?.stringValue else { throw .malformed("the header has no alg") }
        guard algorithm == "HS256" else { throw .unsupportedAlgorithm(algorithm) }
        guard header["crit"] == nil else { throw .unsupportedAlgorithm("HS256 with critical extensions") }
        guard let signature = Base64URL.decode(parts[2]) else { throw .malformed("the signature is not base64url") }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard let expected = HMACSHA256.tag(of: signingInput, key: secret) else { throw .badSignature }
        guard HMACSHA256.constantTimeEqual(signature, expected) else { throw .badSignature }
        let claims = try WebTokenClaims(payload: try Self.object(parts[1], what: "payload"))
        if let expiresAt = claims.expiresAt {
            guard now < expiresAt &+ leewaySeconds else { throw .expired(at: expiresAt) }
        } else if requiresExpiry {
            throw .missingExpiry
        }
        if let notBefore = claims.notBefore, now &+ leewaySeconds < notBefore { throw .notYetValid(until: notBefore) }
        return claims
    }

    /// Signs a payload with this secret (for a web backend written in Swift, and for tests).
    ///
    /// - Parameter payload: The claims, a JSON object (give it an `exp`).
    /// - Returns: The token, `header.payload.signature`, header `{"alg":"HS256","typ":"JWT"}`.
    /// - Throws: ``WebTokenError/malformed(_:)`` when the payload is not an object, or the token
    ///   would be longer than ``maximumTokenBytes``.
    public func sign(_ payload: JSONValue) throws(WebTokenError) -> String {
        guard case .object = payload else { throw .malformed("the payload is not a JSON object") }
        let header = JSONValue.object(["alg": .string("HS256"), "typ": .string("JWT")])
        let signingInput = Base64URL.encode(Array(header.text.utf8)) + "." + Base64URL.encode(Array(payload.text.utf8))
        guard let tag = HMACSHA256.tag(of: Array(signingInput.utf8), key: secret) else { throw .malformed("OpenSSL could not sign") }
        let token = signingInput + "." + Base64URL.encode(tag)
        guard token.utf8.count <= Self.maximumTokenBytes else {
            throw .tooLong(bytes: token.utf8.count, limit: Self.maximumTokenBytes)
        }
        return token
    }

    private static func object(_ part: Substring, what: String) throws(WebTokenError) -> JSONValue {
        guard let bytes = Base64URL.decode(part) else { throw .malformed("the \(what) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .malformed("the \(what): \(error)")
        }
        guard case .object = value else { throw .malformed("the \(what) is not a JSON object") }
        return value
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

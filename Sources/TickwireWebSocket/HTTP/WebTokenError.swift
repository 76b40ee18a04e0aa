/// Why an ``HS256WebToken`` refused a token. Each refusal is final for that token: a matchmaker
/// answers it with HTTP 401 and ``description`` as the reason.
public enum WebTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The token is longer than ``HS256WebToken/maximumTokenBytes``.
    case tooLong(bytes: Int, limit: Int)
    /// No `Authorization: Bearer …` header.
    case missingBearer
    /// Not three base64url parts of JSON objects, or a claim of the wrong type; the text says which.
    case malformed(String)
    /// A header whose `alg` is not `HS256` (`none` included), or that names critical extensions.
    case unsupportedAlgorithm(String)
    /// The signature is not the secret's: the token was forged or changed.
    case badSignature
    /// The `exp` claim has passed (Unix seconds).
    case expired(at: Int64)
    /// The `nbf` claim has not come yet (Unix seconds).
    case notYetValid(until: Int64)
    /// The token has no `exp` claim, and the verifier requires one.
    case missingExpiry
    /// The secret is shorter than ``HS256WebToken/minimumSecretBytes`` (RFC 7518 section 3.2).
    case secretTooShort(bytes: Int, minimum: Int)

    /// The reason, for a person and for an HTTP 401's body.
    public var description: String {
        switch self {
        case .tooLong(let bytes, let limit): "the token is \(bytes) bytes, over the limit of \(limit)"
        case .missingBearer: "no Authorization: Bearer token"
        case .malformed(let what): "a malformed token: \(what)"
        case .unsupportedAlgorithm(let algorithm): "the token's algorithm \(algorithm) is not HS256"
        case .badSignature: "the token's signature does not match"
        case .expired(let at): "the token expired at \(at) (Unix seconds)"
        case .notYetValid(let until): "the token is not valid before \(until) (Unix seconds)"
        case .missingExpiry: "the token has no exp claim"
        case .secretTooShort(let bytes, let minimum): "the secret is \(bytes) bytes; HS256 needs at least \(minimum)"
        }
    }
}

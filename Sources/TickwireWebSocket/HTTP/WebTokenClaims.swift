import TickwireFoundation

/// What a verified web token says: its registered claims read out, and the whole payload for the
/// game's own.
public struct WebTokenClaims: Hashable, Sendable {
    /// `sub`: whom the token is about (the user id), if given.
    public let subject: String?
    /// `name`: the name to show (OpenID Connect's claim), if given.
    public let name: String?
    /// `exp`: when it expires, in Unix seconds, if given.
    public let expiresAt: Int64?
    /// `nbf`: when it becomes valid, in Unix seconds, if given.
    public let notBefore: Int64?
    /// `iat`: when it was issued, in Unix seconds, if given.
    public let issuedAt: Int64?
    /// The whole payload, a JSON object.
    public let payload: JSONValue

    /// Reads the registered claims of a payload.
    ///
    /// - Parameter payload: The token's payload.
    /// - Throws: ``WebTokenError/malformed(_:)`` when the payload is not an object or a registered
    ///   claim has the wrong type (`sub` and `name` strings; `exp`, `nbf` and `iat` whole numbers).
    public init(payload: JSONValue) throws(WebTokenError) {
        guard case .object = payload else { throw .malformed("the payload is not a JSON object") }
        func text(_ claim: String) throws(WebTokenError) -> String? {
            guard let value = payload[claim] else { return nil }
            guard let text = value.stringValue else { throw .malformed("the \(claim) claim is not a string") }
            return text
        }
        func seconds(_ claim: String) throws(WebTokenError) -> Int64? {
            guard let value = payload[claim] else { return nil }
            guard let seconds = value.integerValue else { throw .malformed("the \(claim) claim is not a whole number of seconds") }
            return seconds
        }
        subject = try text("sub")
        name = try text("name")
        expiresAt = try seconds("exp")
        notBefore = try seconds("nbf")
        issuedAt = try seconds("iat")
        self.payload = payload
    }
}

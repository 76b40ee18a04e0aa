import TickwireSim
import TickwireTokens
import TickwireWebSocket

/// The built-in ``MatchmakerAuthenticator``s: guests, and players holding a bearer web token.
public enum MatchmakerAuthentication {
    /// The first user id of guests: 2^63. A guest's id is 2^63 + its guest number, so that no
    /// guest shares an id with a bearer token's user (whose ids are below 2^63).
    public static let firstGuestUserID: UInt64 = 1 << 63
    /// The name a guest is shown under when it asks for none.
    public static let defaultGuestName = "guest"

    /// Every player is a guest: shown as its `name` option (default ``defaultGuestName``), `#`
    /// and a number the fleet gives it once (`ada#7`), with the user id 2^63 + that number. The
    /// request's headers are not read.
    public static let guests: MatchmakerAuthenticator = { request throws(MatchmakerAuthenticationError) in
        let number = try await request.nextGuestNumber()
        guard number < firstGuestUserID else { throw .store(.unavailable("the fleet's guest numbers reached 2^63")) }
        return MatchmakerIdentity(
            userID: firstGuestUserID + number, displayName: (request.requestedName ?? defaultGuestName) + "#" + String(number))
    }

    /// Players holding an HS256 web token (`Authorization: Bearer …`) that the game's web
    /// backend signed with `verifier`'s secret: `sub` names the user and `name` (else `sub`) the
    /// name it is shown under; `exp` is checked (and required, unless `verifier` was made with
    /// `requiresExpiry: false`). A missing, forged, malformed or expired token is refused with
    /// 401 and the ``WebTokenError``'s words.
    ///
    /// The user id is `sub` when `sub` is a decimal number below 2^63 written without leading
    /// zeros; any other `sub` is hashed: the first 8 bytes of its SHA-1, big-endian, with the top
    /// bit cleared (below 2^63 too, apart from guests). A name over 64 UTF-8 bytes (the token's
    /// user data) is cut at a character boundary.
    ///
    /// - Parameters:
    ///   - verifier: The verifier holding the secret.
    ///   - clock: The clock `exp` is judged by (the wall clock by default).
    /// - Returns: The authenticator.
    public static func bearer(_ verifier: HS256WebToken, clock: TokenClock = .system) -> MatchmakerAuthenticator {
        { request throws(MatchmakerAuthenticationError) in
            let claims: WebTokenClaims
            do throws(WebTokenError) {
                claims = try verifier.verify(authorization: request.head.headers["Authorization"], now: Int64(clamping: clock.now))
            } catch {
                throw .unauthorized(error.description)
            }
            guard let subject = claims.subject, !subject.isEmpty else { throw .unauthorized("the token has no sub claim") }
            let name = shortened(claims.name ?? subject, toBytes: ConnectTokenUserData.maximumDisplayNameBytes)
            return MatchmakerIdentity(userID: userID(ofSubject: subject), displayName: name)
        }
    }

    /// ``bearer(_:clock:)`` with a verifier of `secret` (exp required, 30 s of leeway).
    ///
    /// - Parameters:
    ///   - secret: The secret shared with the game's web backend, at least 32 bytes.
    ///   - clock: The clock `exp` is judged by.
    /// - Returns: The authenticator.
    /// - Throws: ``WebTokenError/secretTooShort(bytes:minimum:)``.
    public static func bearer(secret: [UInt8], clock: TokenClock = .system) throws(WebTokenError) -> MatchmakerAuthenticator {
        bearer(try HS256WebToken(secret: secret), clock: clock)
    }

    /// The user id of a web token's `sub`: itself when it is a canonical decimal number below
    /// 2^63, else the first 8 bytes (big-endian) of its SHA-1 with the top bit cleared.
    ///
    /// - Parameter subject: The `sub` claim.
    /// - Returns: The user id, below 2^63.
    public static func userID(ofSubject subject: String) -> UInt64 {
        if let number = UInt64(subject), number < firstGuestUserID, String(number) == subject { return number }
        let digest = SHA1.hash(Array(subject.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value & ~firstGuestUserID
    }

    /// `text` cut to at most `limit` UTF-8 bytes, at a character boundary.
    static func shortened(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= limit else { break }
            result.append(character)
        }
        return result
    }
}

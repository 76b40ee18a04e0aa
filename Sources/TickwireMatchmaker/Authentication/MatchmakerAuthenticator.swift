import TickwireFoundation
import TickwireSim
import TickwireWebSocket

/// What a ``MatchmakerAuthenticator`` is asked: the request's head (its `Authorization` and
/// other headers), its options, the address it came from, and where guest numbers come from.
public struct MatchmakerAuthenticationRequest: Sendable {
    /// The request line and header fields.
    public let head: HTTPRequestHead
    /// The body's options object (`{}` for an empty body): `name`, `private`, and the game's own
    /// members, untouched.
    public let options: [String: JSONValue]
    /// The address the request came from (a numeric host), or `nil` when unknown.
    public let remoteHost: String?
    private let guestNumbers: @Sendable () async throws(MatchmakingError) -> UInt64

    /// A request, as the service makes it (and tests of an authenticator).
    ///
    /// - Parameters:
    ///   - head: The request head.
    ///   - options: The options object's members.
    ///   - remoteHost: The peer's address, or `nil`.
    ///   - guestNumbers: Gives the fleet's next guest number (``MatchmakerStore/nextGuestNumber()``).
    public init(
        head: HTTPRequestHead, options: [String: JSONValue], remoteHost: String?,
        guestNumbers: @escaping @Sendable () async throws(MatchmakingError) -> UInt64
    ) {
        self.head = head
        self.options = options
        self.remoteHost = remoteHost
        self.guestNumbers = guestNumbers
    }

    /// A number the whole fleet gives one guest only (1, 2, 3…).
    ///
    /// - Returns: The number.
    /// - Throws: ``MatchmakerAuthenticationError/store(_:)`` when the store cannot be reached.
    public func nextGuestNumber() async throws(MatchmakerAuthenticationError) -> UInt64 {
        do {
            return try await guestNumbers()
        } catch {
            throw .store(error)
        }
    }

    /// The `name` option trimmed of spaces, or `nil` when there is none. The service has checked
    /// it already: a string of 1 to ``MatchmakerService/maximumNameBytes`` UTF-8 bytes.
    public var requestedName: String? {
        options["name"]?.stringValue.map(MatchmakerService.trimmed)
    }
}

/// The game's `authenticate` hook: turns a request for a seat into the player's verified
/// identity, or refuses it (``MatchmakerAuthenticationError``: 401, 403 or the store's 503).
///
/// Built-ins: ``MatchmakerAuthentication/guests`` and ``MatchmakerAuthentication/bearer(_:clock:)``.
/// A game's own hook may wrap one of them and check more (a ban list, a mode the player paid for):
///
/// ```swift
/// let bearer = try MatchmakerAuthentication.bearer(secret: secret)
/// let authenticate: MatchmakerAuthenticator = { request throws(MatchmakerAuthenticationError) in
///     let identity = try await bearer(request)
///     guard !banned.contains(identity.userID) else { throw .forbidden("you are banned") }
///     return identity
/// }
/// ```
public typealias MatchmakerAuthenticator =
    @Sendable (MatchmakerAuthenticationRequest) async throws(MatchmakerAuthenticationError) -> MatchmakerIdentity

import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The arena's matchmaker (`Protocol/MATCHMAKER.md`), as `arena serve --redis … --udp-key …` and
/// `arena matchmaker` answer it: one mode, ``mode``, over the fleet's store, with connect tokens
/// sealed with the fleet's key (``makeService(key:)``), for guests or (``jwtSecret``) for holders
/// of a signed bearer token.
package struct ArenaMatchmaking: Sendable {
    /// The arena's one mode.
    package static let mode = "arena"

    /// Where seats are reserved and rooms listed: the fleet's Redis (`RedisMatchmaker`).
    package var store: any MatchmakerStore
    /// The HS256 secret of `--jwt-secret`: with one, only holders of a bearer token signed with
    /// it get seats, under the token's name; `nil`: every player is a guest.
    package var jwtSecret: String?
    /// The matchmaker requests one source address may make at once (0: no limit).
    package var requestsPerAddress = TokenRequestBudget.defaultLimit

    /// Matchmaking over `store`.
    ///
    /// - Parameters:
    ///   - store: The fleet's store.
    ///   - jwtSecret: The bearer tokens' secret, or `nil` for guests.
    ///   - requestsPerAddress: Requests per source address at once (0: no limit).
    package init(
        store: any MatchmakerStore, jwtSecret: String? = nil, requestsPerAddress: Int = TokenRequestBudget.defaultLimit
    ) {
        self.store = store
        self.jwtSecret = jwtSecret
        self.requestsPerAddress = requestsPerAddress
    }

    /// The rules of the arena's matchmaking: rooms of `capacity` players in mode ``mode``.
    ///
    /// - Parameter capacity: Players per room the matchmaker makes.
    /// - Returns: The rules.
    package static func rules(capacity: Int) -> MatchmakingRules {
        MatchmakingRules(capacities: [mode: capacity])
    }

    /// The fleet's key for a matchmaker that runs no room (`arena matchmaker`), read from `path`,
    /// which must exist: a matchmaker that made a key of its own would mint tokens no process accepts.
    ///
    /// - Parameter path: The fleet's key file (`--udp-key`).
    /// - Returns: The key.
    /// - Throws: ``SystemError`` (`ENOENT`) when the file does not exist, or when it cannot be read.
    package static func existingKey(at path: String) throws(SystemError) -> NetcodeKey {
        guard access(path, F_OK) == 0 else {
            throw SystemError(
                call: "the matchmaker's --udp-key \(path) does not exist: give the key file every process of the fleet reads",
                code: ENOENT)
        }
        return try ArenaUDP.key(at: path)
    }

    /// The service answering the matchmaker's requests.
    ///
    /// - Parameter key: The fleet's key, which every process checks tokens with.
    /// - Returns: The service.
    /// - Throws: ``SystemError`` (`EINVAL`) when ``jwtSecret`` is too short to be a secret.
    package func makeService(key: NetcodeKey) throws(SystemError) -> MatchmakerService {
        let issuer = ConnectTokenIssuer(key: key, protocolID: ArenaUDP.protocolID)
        var authenticator = MatchmakerAuthentication.guests
        if let jwtSecret {
            do throws(WebTokenError) {
                authenticator = try MatchmakerAuthentication.bearer(secret: Array(jwtSecret.utf8))
            } catch {
                throw SystemError(call: "--jwt-secret: \(error)", code: EINVAL)
            }
        }
        return MatchmakerService(
            store: store, issuer: issuer, authenticator: authenticator, budget: TokenRequestBudget(limit: requestsPerAddress))
    }
}

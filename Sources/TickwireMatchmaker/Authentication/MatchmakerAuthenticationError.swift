import TickwireSim

/// Why a ``MatchmakerAuthenticator`` gave no identity: the status and reason a matchmaker answers.
public struct MatchmakerAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case unauthorized(String)
        case forbidden(String)
        case store(MatchmakingError)
    }

    let kind: Kind

    /// The player did not prove who it is (`401 unauthorized`): no bearer token, or one that is
    /// forged, malformed or expired.
    ///
    /// - Parameter reason: Why, for a person.
    /// - Returns: The error.
    public static func unauthorized(_ reason: String) -> MatchmakerAuthenticationError {
        MatchmakerAuthenticationError(kind: .unauthorized(reason))
    }

    /// The game refuses the player it knows (`403 forbidden`): banned, or not allowed this mode.
    ///
    /// - Parameter reason: Why, for a person.
    /// - Returns: The error.
    public static func forbidden(_ reason: String) -> MatchmakerAuthenticationError {
        MatchmakerAuthenticationError(kind: .forbidden(reason))
    }

    /// The matchmaker's store failed while authenticating (a guest number could not be had): its
    /// status (`503 unavailable`).
    ///
    /// - Parameter error: The store's error.
    /// - Returns: The error.
    public static func store(_ error: MatchmakingError) -> MatchmakerAuthenticationError {
        MatchmakerAuthenticationError(kind: .store(error))
    }

    /// The HTTP status the matchmaker answers: 401, 403, or the store error's.
    public var httpStatus: Int {
        switch kind {
        case .unauthorized: 401
        case .forbidden: 403
        case .store(let error): error.httpStatus
        }
    }

    /// The reason, for a person (the answer's `reason`).
    public var description: String {
        switch kind {
        case .unauthorized(let reason), .forbidden(let reason): reason
        case .store(let error): error.description
        }
    }
}

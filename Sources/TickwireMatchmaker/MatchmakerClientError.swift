import TickwireIO
import TickwireSim

/// Why a ``Matchmaker`` request gave no seat or listing: the matchmaker's refusal (its HTTP status,
/// `error` code and `reason`, `Protocol/MATCHMAKER.md` section 4), an answer that breaks the
/// contract, a bad matchmaker URL, or the HTTP exchange itself (no connection, a timeout, a limit).
///
/// A refusal is a ``TransportRefusalError``, so that a ``ReconnectingSession`` that asks the
/// matchmaker again ends its loop on a final status (401 or 403: a bearer token refused, the
/// game's `authenticate` hook said no) and retries the others with backoff.
public struct MatchmakerClientError: Error, Hashable, Sendable, CustomStringConvertible, TransportRefusalError {
    package enum Kind: Hashable, Sendable {
        case refused(status: Int, code: String, reason: String, retryAfter: String?, budget: String?)
        case invalidAnswer(status: Int, words: String)
        case invalidURL(String, words: String)
        case invalidRequest(String)
        case exchange(HTTPExchangeError)
    }

    let kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    /// A refusal as MATCHMAKER.md section 4 writes them: a status other than 200 and a JSON
    /// body `{"error": CODE, "reason": TEXT}` (an HTTP layer's plain-text 411 or 413 gives the
    /// code `lengthRequired` or `bodyTooLarge` and its text as the reason).
    static func refused(status: Int, code: String, reason: String, retryAfter: String? = nil, budget: String? = nil)
        -> MatchmakerClientError
    {
        MatchmakerClientError(.refused(status: status, code: code, reason: reason, retryAfter: retryAfter, budget: budget))
    }

    /// The HTTP status the matchmaker answered with: a refusal's, or that of an answer that broke
    /// the contract; `nil` when no answer came (the connection, a timeout, a limit, the URL).
    public var status: Int? {
        switch kind {
        case .refused(let status, _, _, _, _), .invalidAnswer(let status, _): status
        case .invalidURL, .invalidRequest, .exchange: nil
        }
    }

    /// A refusal's `error` code (`roomFull`, `unauthorized`, `tooManyRequests`…, MATCHMAKER.md
    /// section 4); `nil` for any other failure.
    public var code: String? {
        if case .refused(_, let code, _, _, _) = kind { return code }
        return nil
    }

    /// A refusal's `reason`, the matchmaker's words for a person; `nil` for any other failure.
    public var reason: String? {
        if case .refused(_, _, let reason, _, _) = kind { return reason }
        return nil
    }

    /// A refusal's `Retry-After` header (seconds to wait, with `429 tooManyRequests`), or `nil`.
    public var retryAfter: String? {
        if case .refused(_, _, _, let retryAfter, _) = kind { return retryAfter }
        return nil
    }

    /// A refusal's `Tickwire-Refusal` header (the budget it hit, such as
    /// `address_matchmaker_rate_limit; limit=20`), or `nil`.
    public var budget: String? {
        if case .refused(_, _, _, _, let budget) = kind { return budget }
        return nil
    }

    /// Whether no answer came at all: the matchmaker could not be reached, did not answer within
    /// the timeout, or sent more than the client reads (``Matchmaker/maximumResponseBodyBytes``).
    public var isTransportFailure: Bool {
        if case .exchange = kind { return true }
        return false
    }

    /// The refusal as a ``TransportRefusal`` (status, `error` code, `reason`); `nil` for any other failure.
    public var transportRefusal: TransportRefusal? {
        guard case .refused(let status, let code, let reason, _, _) = kind else { return nil }
        return TransportRefusal(status: status, reason: code, text: reason)
    }

    /// What went wrong, in words.
    public var description: String {
        switch kind {
        case .refused(let status, let code, let reason, let retryAfter, let budget):
            "the matchmaker refused: \(status) \(code): \(reason)" + (retryAfter.map { " (Retry-After: \($0) s)" } ?? "")
                + (budget.map { " [\($0)]" } ?? "")
        case .invalidAnswer(let status, let words): "the matchmaker's answer (\(status)) breaks MATCHMAKER.md: \(words)"
        case .invalidURL(let url, let words): "'\(url)' is not a matchmaker URL (http://HOST:PORT): \(words)"
        case .invalidRequest(let words): "the request cannot be made: \(words)"
        case .exchange(let error): "the matchmaker could not be asked: \(error)"
        }
    }
}

/// The connect tokens a host has let in, remembered until they expire so that each joins once
/// (`Protocol/PROTOCOL.md` 5.3.1): a bounded set of tags.
///
/// When it holds ``capacity`` tokens none of which has expired, it refuses new ones
/// (``Outcome/full``) rather than forget one that could then join again.
public struct UsedConnectTokens: Sendable {
    /// What became of a token offered to the set.
    public enum Outcome: Hashable, Sendable {
        /// First use: the token is now remembered.
        case admitted
        /// The token was used before and has not expired.
        case alreadyUsed
        /// The set holds ``UsedConnectTokens/capacity`` tokens, none expired.
        case full
    }

    /// The most tokens remembered at once.
    public let capacity: Int
    private var expiries: [[UInt8]: UInt64] = [:]
    /// The earliest expiry among the remembered tokens: nothing can be forgotten before it.
    private var earliestExpiry = UInt64.max

    /// An empty set.
    ///
    /// - Parameter capacity: The most tokens remembered at once (at least 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many tokens are remembered.
    public var count: Int { expiries.count }

    /// Says what ``use(tag:expireTimestamp:now:)`` would answer, without remembering the token
    /// (it may forget expired ones).
    ///
    /// - Parameters:
    ///   - tag: The token's tag.
    ///   - now: The time now (Unix seconds).
    /// - Returns: ``Outcome/admitted`` when the token would go in.
    public mutating func check(tag: [UInt8], now: UInt64) -> Outcome {
        if let expiry = expiries[tag], expiry > now { return .alreadyUsed }
        if expiries.count >= capacity { forgetExpired(now: now) }
        return expiries.count < capacity || expiries[tag] != nil ? .admitted : .full
    }

    /// Offers a token that opened: remembers it on its first use.
    ///
    /// - Parameters:
    ///   - tag: The token's tag.
    ///   - expireTimestamp: When it expires (Unix seconds): it is remembered until then.
    ///   - now: The time now (Unix seconds).
    /// - Returns: ``Outcome/admitted``, ``Outcome/alreadyUsed`` or ``Outcome/full``.
    public mutating func use(tag: [UInt8], expireTimestamp: UInt64, now: UInt64) -> Outcome {
        if let expiry = expiries[tag], expiry > now { return .alreadyUsed }
        if expiries.count >= capacity { forgetExpired(now: now) }
        guard expiries.count < capacity else { return .full }
        expiries[tag] = expireTimestamp
        earliestExpiry = min(earliestExpiry, expireTimestamp)
        return .admitted
    }

    /// Forgets the tokens that have expired by `now` (an expired token is refused as expired
    /// before it reaches the set). A scan of the whole set, run only when the earliest expiry
    /// has passed, so at most once per expiry.
    private mutating func forgetExpired(now: UInt64) {
        guard earliestExpiry <= now else { return }
        expiries = expiries.filter { $0.value > now }
        earliestExpiry = expiries.values.min() ?? .max
    }
}

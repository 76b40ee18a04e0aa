/// How many requests one source address may make (`GET /udp-token`'s guest tokens, a
/// matchmaker's seats): a token bucket per address
/// holding ``limit`` requests, refilled at ``limit`` per ``window`` seconds, so an address may
/// ask ``limit`` times at once and then ``limit`` times in every window after.
///
/// A value type with the time passed in, so that tests run it on a virtual clock. The buckets
/// of quiet addresses (full again) are forgotten once more than ``maximumTrackedAddresses`` are
/// held: a sweep over many source addresses grows it by at most the addresses seen within one
/// ``window`` (a bucket refills within a window, and is then forgotten at the next sweep).
public struct TokenRequestBudget: Sendable {
    /// The default: 32 requests from one address at once, and 32 more every 10 seconds.
    public static let defaultLimit = 32
    /// The window over which a whole bucket refills, in seconds.
    public static let window = 10.0
    /// The most addresses tracked before full buckets are forgotten.
    public static let maximumTrackedAddresses = 16_384

    /// The requests an address may make at once; 0 for no limit.
    public let limit: Int
    private var buckets: [String: Bucket] = [:]

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Double
    }

    /// A budget of `limit` requests per address per ``window``.
    ///
    /// - Parameter limit: Requests at once per address; 0 turns the budget off.
    public init(limit: Int = defaultLimit) {
        self.limit = max(0, limit)
    }

    /// The addresses tracked now.
    public var trackedAddresses: Int { buckets.count }

    /// Takes one request from `address`'s bucket.
    ///
    /// - Parameters:
    ///   - address: The source address (a numeric host), or `nil` when unknown (always admitted).
    ///   - now: The time in seconds, on any monotonic clock.
    /// - Returns: Whether the request is admitted; a refused one takes nothing.
    public mutating func admit(_ address: String?, now: Double) -> Bool {
        guard limit > 0, let address else { return true }
        let capacity = Double(limit)
        let refillPerSecond = capacity / Self.window
        var bucket = buckets[address] ?? Bucket(tokens: capacity, updatedAt: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updatedAt) * refillPerSecond)
        bucket.updatedAt = now
        let isAdmitted = bucket.tokens >= 1
        if isAdmitted { bucket.tokens -= 1 }
        buckets[address] = bucket
        if buckets.count > Self.maximumTrackedAddresses { forgetFullBuckets(now: now, refillPerSecond: refillPerSecond) }
        return isAdmitted
    }

    /// Drops the buckets that have refilled (their addresses start afresh, as they would anyway).
    private mutating func forgetFullBuckets(now: Double, refillPerSecond: Double) {
        let capacity = Double(limit)
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updatedAt) * refillPerSecond < capacity }
    }
}

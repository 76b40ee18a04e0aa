/// How a client waits between reconnection attempts (a WebSocket client, a game session): exponential backoff with jitter.
///
/// The ceiling for attempt *n* (1-based) is `min(cap, base × 2ⁿ⁻¹)`; the delay is drawn uniformly
/// from `[ceiling × (1 − jitter), ceiling]` so that many clients dropped at once do not return in
/// lock step. The attempt count resets after a connection opens.
public struct ReconnectPolicy: Hashable, Sendable {
    /// Whether to reconnect at all.
    public var isEnabled: Bool
    /// The first delay's ceiling. Default 1 s.
    public var baseDelay: Duration
    /// The largest delay. Default 30 s.
    public var maximumDelay: Duration
    /// The fraction of the ceiling that is randomized, 0 (none) ... 1 ("full jitter"). Default 0.5.
    public var jitter: Double
    /// Stop after this many failed attempts in a row; `nil` retries forever.
    public var maximumAttempts: Int?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - isEnabled: Whether to reconnect at all.
    ///   - baseDelay: The first delay's ceiling.
    ///   - maximumDelay: The cap on every delay.
    ///   - jitter: The randomized fraction of each delay, clamped to 0...1.
    ///   - maximumAttempts: Attempts in a row before giving up, or `nil` for no limit.
    public init(
        isEnabled: Bool = true, baseDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.5, maximumAttempts: Int? = nil
    ) {
        self.isEnabled = isEnabled
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maximumAttempts = maximumAttempts
    }

    /// No reconnection: a closed client stays closed.
    public static let disabled = ReconnectPolicy(isEnabled: false)

    /// The delay before attempt `attempt`.
    ///
    /// - Parameters:
    ///   - attempt: The 1-based attempt number.
    ///   - unitRandom: A number in `0..<1` (from the client's generator) that picks the point in the jitter range.
    /// - Returns: The delay, never above ``maximumDelay``.
    public func delay(forAttempt attempt: Int, unitRandom: Double) -> Duration {
        let base = Double(baseDelay.nanoseconds)
        let cap = Double(maximumDelay.nanoseconds)
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let ceiling = min(cap, base * pow2(exponent))
        let fraction = 1 - jitter * min(max(unitRandom, 0), 1)
        return .nanoseconds(Int64(ceiling * fraction))
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            value *= 2
            remaining -= 1
        }
        return value
    }
}

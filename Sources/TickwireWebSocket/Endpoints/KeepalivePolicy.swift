/// Keepalive settings: how often to ping an idle peer and how long to wait for its pong.
public struct KeepalivePolicy: Hashable, Sendable {
    /// Time between pings.
    public var interval: Duration
    /// How long a ping may go unanswered before the connection is declared dead (closed as 1006).
    public var pongTimeout: Duration

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - interval: Time between pings.
    ///   - pongTimeout: The longest wait for a pong.
    public init(interval: Duration = .seconds(15), pongTimeout: Duration = .seconds(10)) {
        self.interval = interval
        self.pongTimeout = pongTimeout
    }
}

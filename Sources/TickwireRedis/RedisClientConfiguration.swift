import TickwireFoundation

/// How a ``RedisClient`` connects, waits and reconnects.
public struct RedisClientConfiguration: Hashable, Sendable {
    /// How long a connection attempt may take (name lookup, TCP connect, `SELECT`). Default 2 s.
    public var connectTimeout: Duration
    /// How long a command may wait for its reply. Past it the connection is taken for dead:
    /// it is closed, every pending command fails with a timeout, and the client reconnects.
    /// Default 2 s.
    public var commandTimeout: Duration
    /// The backoff between reconnection attempts. Default 100 ms doubling to 2 s, half jitter,
    /// forever (a directory must find Redis again well within its claims' TTL).
    public var reconnect: ReconnectPolicy
    /// The seed of the jitter's generator (``SplitMix64``), so that runs can be repeated.
    public var jitterSeed: UInt64
    /// The most commands sent and not yet answered; one more fails at once with
    /// ``RedisError/exceededLimit`` `maximumPendingCommands`. Default 4096.
    public var maximumPendingCommands: Int
    /// The bounds on what Redis sends.
    public var replyLimits: RedisReplyLimits

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - connectTimeout: How long a connection attempt may take.
    ///   - commandTimeout: How long a command may wait for its reply.
    ///   - reconnect: The backoff between reconnection attempts.
    ///   - jitterSeed: The seed of the jitter's generator.
    ///   - maximumPendingCommands: The most commands in flight.
    ///   - replyLimits: The bounds on what Redis sends.
    public init(
        connectTimeout: Duration = .seconds(2), commandTimeout: Duration = .seconds(2),
        reconnect: ReconnectPolicy = ReconnectPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(2)),
        jitterSeed: UInt64 = 0x7EDD_15, maximumPendingCommands: Int = 4096, replyLimits: RedisReplyLimits = RedisReplyLimits()
    ) {
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.reconnect = reconnect
        self.jitterSeed = jitterSeed
        self.maximumPendingCommands = maximumPendingCommands
        self.replyLimits = replyLimits
    }
}

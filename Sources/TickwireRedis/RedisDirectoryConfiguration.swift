/// How a ``RedisRoomDirectory`` names its keys, identifies its process and keeps its claims.
///
/// The keys (README, "Rooms across processes on Redis"): `PREFIX:process:ID` (this process's
/// registration, JSON, expiring after ``claimTTL``), `PREFIX:processes` (a set of process ids),
/// `PREFIX:room:NAME:owner` (the claim: the holder's process id, expiring after ``claimTTL``) and
/// `PREFIX:room:NAME:state` (the last saved state, expiring after ``stateTTL``).
public struct RedisDirectoryConfiguration: Hashable, Sendable {
    /// The Redis server.
    public var url: RedisURL
    /// Where clients reach this process (`ws://HOST:PORT`), given to the other processes.
    public var publicURL: String
    /// Where this process serves UDP (`udp://HOST:PORT`, the numeric address its netcode.io
    /// connect tokens name), registered beside ``publicURL`` (the record's `udp` field), or `nil`
    /// (default) for a process without UDP. Other processes send their UDP clients here, with a
    /// token for it (PROTOCOL.md 1A.11).
    public var publicUDPURL: String?
    /// The first part of every key, so that several fleets can share one Redis. Default `tickwire`.
    public var keyPrefix: String
    /// This process's id in the fleet. Default: 16 random hex digits, new for every directory.
    public var processID: String
    /// How often the registration and the claims are renewed. Default 1 s.
    public var heartbeatInterval: Duration
    /// How long a registration or a claim lives without renewal: a process that dies loses its
    /// rooms this long after its last heartbeat. Default 3 s (three heartbeats).
    public var claimTTL: Duration
    /// How long a room's saved state is kept after its last save. Default 24 h.
    public var stateTTL: Duration
    /// The Redis client's timeouts, backoff and limits.
    public var client: RedisClientConfiguration

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - url: The Redis server.
    ///   - publicURL: Where clients reach this process.
    ///   - publicUDPURL: Where it serves UDP, or `nil`.
    ///   - keyPrefix: The first part of every key.
    ///   - processID: This process's id, or `nil` for 16 random hex digits.
    ///   - heartbeatInterval: How often registration and claims are renewed.
    ///   - claimTTL: How long a registration or claim lives without renewal.
    ///   - stateTTL: How long a saved state is kept.
    ///   - client: The Redis client's configuration.
    public init(
        url: RedisURL, publicURL: String, publicUDPURL: String? = nil, keyPrefix: String = "tickwire", processID: String? = nil,
        heartbeatInterval: Duration = .seconds(1), claimTTL: Duration = .seconds(3), stateTTL: Duration = .seconds(86_400),
        client: RedisClientConfiguration = RedisClientConfiguration()
    ) {
        self.url = url
        self.publicURL = publicURL
        self.publicUDPURL = publicUDPURL
        self.keyPrefix = keyPrefix
        self.processID = processID ?? Self.randomProcessID()
        self.heartbeatInterval = heartbeatInterval
        self.claimTTL = claimTTL
        self.stateTTL = stateTTL
        self.client = client
    }

    /// 16 hex digits from the system's generator.
    static func randomProcessID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `PREFIX:process:ID`.
    func processKey(_ id: String) -> String { "\(keyPrefix):process:\(id)" }
    /// `PREFIX:processes`.
    var processSetKey: String { "\(keyPrefix):processes" }
    /// `PREFIX:room:NAME:owner`.
    func ownerKey(_ room: String) -> String { "\(keyPrefix):room:\(room):owner" }
    /// `PREFIX:room:NAME:state`.
    func stateKey(_ room: String) -> String { "\(keyPrefix):room:\(room):state" }
}

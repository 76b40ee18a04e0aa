/// Everything one frame of the arena shows a player: the world as the client sees it
/// (its own player predicted, everyone else interpolated), plus the heads-up display.
public struct ArenaScene: Hashable, Sendable {
    /// A player as drawn.
    public struct Player: Hashable, Sendable {
        /// Entity id.
        public var id: UInt32
        /// Scoreboard name.
        public var name: String
        /// Position in tiles.
        public var x: Double
        /// Position in tiles.
        public var y: Double
        /// Facing in radians.
        public var heading: Double
        /// Health, 0 when dead.
        public var health: Int
        /// Kills.
        public var score: Int
        /// Whether a bot plays it.
        public var isBot: Bool

        /// Creates a drawn player.
        public init(id: UInt32, name: String, x: Double, y: Double, heading: Double, health: Int, score: Int, isBot: Bool) {
            self.id = id
            self.name = name
            self.x = x
            self.y = y
            self.heading = heading
            self.health = health
            self.score = score
            self.isBot = isBot
        }
    }

    /// A bullet as drawn.
    public struct Bullet: Hashable, Sendable {
        /// Position in tiles.
        public var x: Double
        /// Position in tiles.
        public var y: Double

        /// Creates a drawn bullet.
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// A rail shot's trace, as drawn for a few frames.
    public struct Rail: Hashable, Sendable {
        /// Where the ray started, in tiles.
        public var x: Double
        /// Where the ray started, in tiles.
        public var y: Double
        /// Where it stopped, in tiles.
        public var endX: Double
        /// Where it stopped, in tiles.
        public var endY: Double

        /// Creates a drawn trace.
        public init(x: Double, y: Double, endX: Double, endY: Double) {
            self.x = x
            self.y = y
            self.endX = endX
            self.endY = endY
        }
    }

    /// The walls.
    public var map: ArenaMap
    /// Players, in any order.
    public var players: [Player] = []
    /// Bullets.
    public var bullets: [Bullet] = []
    /// Rail traces.
    public var rails: [Rail] = []
    /// The id of this client's own player, once it has one.
    public var localPlayerID: UInt32?
    /// The room's name.
    public var roomName: String = ""
    /// The connection, in words ("connected", "reconnecting in 2.0 s (attempt 3)").
    public var connectionStatus: String = ""
    /// Whether the connection is healthy (drawn in green, else yellow).
    public var isConnected: Bool = false
    /// Lines of the net graph (ping, jitter, interpolation, sizes, rates), shown when ``showsNetGraph``.
    public var netGraph: [String] = []
    /// Whether the net graph overlay is on.
    public var showsNetGraph: Bool = false
    /// A short line at the bottom (how a second player joins, a notice).
    public var notice: String = ""

    /// Creates a scene.
    ///
    /// - Parameter map: The walls.
    public init(map: ArenaMap) {
        self.map = map
    }
}

/// Everything one frame of the arena shows a player: the world as the client sees it
/// (its own player predicted, everyone else interpolated), plus the heads-up display.
package struct ArenaScene: Hashable, Sendable {
    /// A player as drawn.
    package struct Player: Hashable, Sendable {
        /// Entity id.
        package var id: UInt32
        /// Scoreboard name.
        package var name: String
        /// Position in tiles.
        package var x: Double
        /// Position in tiles.
        package var y: Double
        /// Facing in radians.
        package var heading: Double
        /// Health, 0 when dead.
        package var health: Int
        /// Kills.
        package var score: Int
        /// Whether a bot plays it.
        package var isBot: Bool

        /// Creates a drawn player.
        package init(id: UInt32, name: String, x: Double, y: Double, heading: Double, health: Int, score: Int, isBot: Bool) {
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
    package struct Bullet: Hashable, Sendable {
        /// Position in tiles.
        package var x: Double
        /// Position in tiles.
        package var y: Double

        /// Creates a drawn bullet.
        package init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// A rail shot's trace, as drawn for a few frames.
    package struct Rail: Hashable, Sendable {
        /// Where the ray started, in tiles.
        package var x: Double
        /// Where the ray started, in tiles.
        package var y: Double
        /// Where it stopped, in tiles.
        package var endX: Double
        /// Where it stopped, in tiles.
        package var endY: Double

        /// Creates a drawn trace.
        package init(x: Double, y: Double, endX: Double, endY: Double) {
            self.x = x
            self.y = y
            self.endX = endX
            self.endY = endY
        }
    }

    /// The walls.
    package var map: ArenaMap
    /// Players, in any order.
    package var players: [Player] = []
    /// Bullets.
    package var bullets: [Bullet] = []
    /// Rail traces.
    package var rails: [Rail] = []
    /// The id of this client's own player, once it has one.
    package var localPlayerID: UInt32?
    /// The room's name.
    package var roomName: String = ""
    /// The connection, in words ("connected", "reconnecting in 2.0 s (attempt 3)").
    package var connectionStatus: String = ""
    /// Whether the connection is healthy (drawn in green, else yellow).
    package var isConnected: Bool = false
    /// Lines of the net graph (ping, jitter, interpolation, sizes, rates), shown when ``showsNetGraph``.
    package var netGraph: [String] = []
    /// Whether the net graph overlay is on.
    package var showsNetGraph: Bool = false
    /// A short line at the bottom (how a second player joins, a notice).
    package var notice: String = ""

    /// Creates a scene.
    ///
    /// - Parameter map: The walls.
    package init(map: ArenaMap) {
        self.map = map
    }
}

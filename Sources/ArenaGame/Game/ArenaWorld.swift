import Tickwire

/// One player in the arena: a human or a bot.
package struct ArenaPlayer: Hashable, Sendable {
    /// The player's entity id, stable for as long as the player is in the game: a human's is
    /// its client id (below ``ArenaWorld/firstBotID``), a bot's is at or above it.
    package var id: UInt32
    /// The name on the scoreboard (at most ``ArenaRules/maximumNameLength`` characters).
    package var name: String
    /// Whether a bot plays this player.
    package var isBot: Bool
    /// Position in tiles.
    package var x: Double
    /// Position in tiles.
    package var y: Double
    /// Facing, in radians: 0 is right (+x), π/2 is down (+y).
    package var heading: Double
    /// Health, 0 (dead) to ``ArenaRules/maximumHealth``.
    package var health: Int
    /// Kills.
    package var score: Int
    /// Ticks until a dead player respawns (0 while alive).
    package var respawnTicks: Int
    /// Ticks until the player may fire again.
    package var cooldownTicks: Int
    /// Ticks until the player may fire the rail again.
    package var railCooldownTicks = 0

    /// Whether the player is alive.
    package var isAlive: Bool { health > 0 }
}

/// A bullet in flight.
package struct ArenaBullet: Hashable, Sendable {
    /// The bullet's entity id.
    package var id: UInt32
    /// The id of the player who fired it.
    package var ownerID: UInt32
    /// Position in tiles.
    package var x: Double
    /// Position in tiles.
    package var y: Double
    /// Direction of flight, in radians.
    package var heading: Double
    /// Ticks until it vanishes.
    package var remainingTicks: Int
}

/// The trace of a rail shot, shown for ``ArenaRules/railTraceTime``: from the shooter to what
/// the ray hit (a player, as the shooter saw it, or a wall).
package struct ArenaRail: Hashable, Sendable {
    /// The trace's entity id (from the bullets' range).
    package var id: UInt32
    /// The id of the player who fired it.
    package var ownerID: UInt32
    /// Where the ray started, in tiles.
    package var x: Double
    /// Where the ray started, in tiles.
    package var y: Double
    /// Where the ray stopped, in tiles.
    package var endX: Double
    /// Where the ray stopped, in tiles.
    package var endY: Double
    /// Ticks until the trace vanishes.
    package var remainingTicks: Int
}

/// The whole state of one arena: players, bullets, and the seeded generator that makes
/// every run with the same inputs the same.
package struct ArenaWorld: Hashable, Sendable {
    /// The walls.
    package var map: ArenaMap
    /// The ticks stepped so far.
    package var tick: UInt32 = 0
    /// Players by ascending id.
    package var players: [ArenaPlayer] = []
    /// Bullets by ascending id.
    package var bullets: [ArenaBullet] = []
    /// Rail traces being shown, by ascending id (a quarter second's worth; state files leave
    /// them out, as they do players' rail cool-downs).
    package var rails: [ArenaRail] = []
    /// The players that respawned in the last step (they jumped: lag compensation must not
    /// show them between their two places).
    package var teleported: [UInt32] = []
    /// The brains of the bots among the players (the server's; a client's copy has none).
    package var bots: [ArenaBot] = []
    /// The id the next bot gets.
    package var nextBotID: UInt32 = ArenaWorld.firstBotID
    /// The id the next bullet gets.
    package var nextBulletID: UInt32 = ArenaWorld.firstBulletID
    /// The generator for spawn points.
    package var random: SplitMix64

    /// Entity ids below this are humans, numbered by their client id.
    package static let firstBotID: UInt32 = 0x4000_0000
    /// Entity ids from this up are bullets; players are always below, so a snapshot lists
    /// players first and bullets after.
    package static let firstBulletID: UInt32 = 0x8000_0000

    /// Creates an empty arena.
    ///
    /// - Parameters:
    ///   - map: The walls.
    ///   - seed: Fixes spawn points, so equal seeds and inputs give equal games.
    package init(map: ArenaMap = .standard, seed: UInt64 = 1) {
        self.map = map
        self.random = SplitMix64(seed: seed)
    }

    /// The player with an id, if present.
    package func player(_ id: UInt32) -> ArenaPlayer? {
        players.first { $0.id == id }
    }

    /// The index of the player with an id, if present.
    func playerIndex(_ id: UInt32) -> Int? {
        players.firstIndex { $0.id == id }
    }

    /// Hands out the next bullet id, wrapping within the bullet range.
    mutating func takeBulletID() -> UInt32 {
        let id = nextBulletID
        nextBulletID = id == UInt32.max ? ArenaWorld.firstBulletID : id + 1
        return id
    }
}

import TickwireCodec

/// One player in the arena: a human or a bot.
public struct ArenaPlayer: Hashable, Sendable {
    /// The player's entity id, stable for as long as the player is in the game.
    public var id: UInt32
    /// The name on the scoreboard (at most ``ArenaRules/maximumNameLength`` characters).
    public var name: String
    /// Whether a bot plays this player.
    public var isBot: Bool
    /// Position in tiles.
    public var x: Double
    /// Position in tiles.
    public var y: Double
    /// Facing, in radians: 0 is right (+x), π/2 is down (+y).
    public var heading: Double
    /// Health, 0 (dead) to ``ArenaRules/maximumHealth``.
    public var health: Int
    /// Kills.
    public var score: Int
    /// Ticks until a dead player respawns (0 while alive).
    public var respawnTicks: Int
    /// Ticks until the player may fire again.
    public var cooldownTicks: Int

    /// Whether the player is alive.
    public var isAlive: Bool { health > 0 }
}

/// A bullet in flight.
public struct ArenaBullet: Hashable, Sendable {
    /// The bullet's entity id.
    public var id: UInt32
    /// The id of the player who fired it.
    public var ownerID: UInt32
    /// Position in tiles.
    public var x: Double
    /// Position in tiles.
    public var y: Double
    /// Direction of flight, in radians.
    public var heading: Double
    /// Ticks until it vanishes.
    public var remainingTicks: Int
}

/// The whole state of one arena: players, bullets, and the seeded generator that makes
/// every run with the same inputs the same.
public struct ArenaWorld: Hashable, Sendable {
    /// The walls.
    public var map: ArenaMap
    /// The ticks stepped so far.
    public var tick: UInt32 = 0
    /// Players by ascending id.
    public var players: [ArenaPlayer] = []
    /// Bullets by ascending id.
    public var bullets: [ArenaBullet] = []
    /// The next entity id to hand out (players and bullets share one id space).
    public var nextEntityID: UInt32 = 1
    /// The generator for spawn points.
    public var random: SplitMix64

    /// Creates an empty arena.
    ///
    /// - Parameters:
    ///   - map: The walls.
    ///   - seed: Fixes spawn points, so equal seeds and inputs give equal games.
    public init(map: ArenaMap = .standard, seed: UInt64 = 1) {
        self.map = map
        self.random = SplitMix64(seed: seed)
    }

    /// The player with an id, if present.
    public func player(_ id: UInt32) -> ArenaPlayer? {
        players.first { $0.id == id }
    }

    /// The index of the player with an id, if present.
    func playerIndex(_ id: UInt32) -> Int? {
        players.firstIndex { $0.id == id }
    }
}

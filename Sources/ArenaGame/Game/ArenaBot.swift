import Tickwire

/// A bot's mind: chases the nearest visible enemy, shoots when lined up, and wanders when
/// nobody is in sight. Deterministic for a seed, so games with bots replay exactly.
package struct ArenaBot: Hashable, Sendable {
    /// The player this bot plays.
    package let playerID: UInt32
    // Readable in the module for ``ArenaWorld/encode(into:)``; set only by the bot itself.
    private(set) var random: SplitMix64
    private(set) var wanderX = 1
    private(set) var wanderY = 0
    private(set) var wanderTicks = 0

    /// Creates a bot for a player.
    ///
    /// - Parameters:
    ///   - playerID: The player it plays.
    ///   - seed: Fixes its choices.
    package init(playerID: UInt32, seed: UInt64) {
        self.playerID = playerID
        self.random = SplitMix64(seed: seed ^ UInt64(playerID))
    }

    /// Recreates a bot exactly as it was (for a saved world; see ``ArenaWorld/init(decoding:limits:)``).
    init(playerID: UInt32, random: SplitMix64, wanderX: Int, wanderY: Int, wanderTicks: Int) {
        self.playerID = playerID
        self.random = random
        self.wanderX = wanderX
        self.wanderY = wanderY
        self.wanderTicks = wanderTicks
    }

    /// Decides this tick's input.
    ///
    /// - Parameter world: The world as the server sees it.
    /// - Returns: The bot's input.
    package mutating func decide(in world: ArenaWorld) -> ArenaInput {
        guard let me = world.player(playerID), me.isAlive else { return .idle }
        guard let target = nearestVisibleOpponent(of: me, in: world) else { return wanderInput(me: me, map: world.map) }

        let dx = target.x - me.x, dy = target.y - me.y
        let direction = Self.nearestDirection(dx: dx, dy: dy)
        let directionAngle = angleOf(y: Double(direction.y), x: Double(direction.x))
        let targetAngle = angleOf(y: dy, x: dx)
        let isLinedUp = abs(Self.wrapped(targetAngle - directionAngle)) < 0.2
        let distance = (dx * dx + dy * dy).squareRoot()
        // Keep a little distance rather than charging into the target; strafe sometimes.
        if distance < 4 && random.next() % 4 != 0 {
            return ArenaInput(moveX: direction.x, moveY: direction.y, fires: isLinedUp)
        }
        let isAggressive = random.next() % 8 != 0
        let move = isAggressive ? direction : (x: -direction.y, y: direction.x)
        return ArenaInput(moveX: move.x, moveY: move.y, fires: isLinedUp && distance < 18)
    }

    private mutating func wanderInput(me: ArenaPlayer, map: ArenaMap) -> ArenaInput {
        wanderTicks -= 1
        let ahead = (x: me.x + Double(wanderX) * 0.8, y: me.y + Double(wanderY) * 0.8)
        if wanderTicks <= 0 || map.isBlocked(x: ahead.x, y: ahead.y, radius: ArenaRules.playerRadius) {
            let directions = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
            (wanderX, wanderY) = directions[Int(random.next() % UInt64(directions.count))]
            wanderTicks = 15 + Int(random.next() % 45)
        }
        return ArenaInput(moveX: wanderX, moveY: wanderY, fires: false)
    }

    /// The nearest living other player in line of sight (the first in world order on a tie).
    ///
    /// Candidates are tried nearest first, so the costly line-of-sight walk usually runs for
    /// a few of them, not for every player in the room.
    private func nearestVisibleOpponent(of me: ArenaPlayer, in world: ArenaWorld) -> ArenaPlayer? {
        var candidates: [(distance: Double, index: Int)] = []
        candidates.reserveCapacity(world.players.count)
        for (index, other) in world.players.enumerated() where other.id != playerID && other.isAlive {
            candidates.append((distanceSquared(me, other), index))
        }
        candidates.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
        for candidate in candidates {
            let other = world.players[candidate.index]
            if world.map.hasLineOfSight(fromX: me.x, y: me.y, toX: other.x, y: other.y) { return other }
        }
        return nil
    }

    private func distanceSquared(_ a: ArenaPlayer, _ b: ArenaPlayer) -> Double {
        (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)
    }

    /// The one of the eight compass directions closest to a vector.
    static func nearestDirection(dx: Double, dy: Double) -> (x: Int, y: Int) {
        let octant = Int((angleOf(y: dy, x: dx) / (Double.pi / 4)).rounded())
        let directions = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
        let index = ((octant % 8) + 8) % 8
        return (directions[index].0, directions[index].1)
    }

    /// An angle wrapped into (-π, π].
    static func wrapped(_ angle: Double) -> Double {
        var result = angle
        while result > Double.pi { result -= 2 * Double.pi }
        while result <= -Double.pi { result += 2 * Double.pi }
        return result
    }
}

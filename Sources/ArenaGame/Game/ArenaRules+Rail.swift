import Tickwire

// The rail: an instant ray along the shooter's facing, tested against the players as the
// shooter's screen showed them (lag compensation), stopped by the first wall or player.
extension ArenaRules {
    /// Seconds between two rail shots of one player.
    package static let railInterval = 1.5
    /// Damage a rail hit does: a whole life, so a hit scores a kill as a bullet's last hit does.
    package static let railDamage = maximumHealth
    /// The longest ray, in tiles (the map's diagonal is shorter).
    package static let railRange = 80.0
    /// How long a rail's trace is shown, in seconds.
    package static let railTraceTime = 0.25
    /// How far from the ray a player's centre may be to be hit, in tiles (a bullet's reach).
    package static let railReach = playerRadius * 1.5
    /// The length of one step of the ray's march to the first wall, in tiles.
    static let railStep = 0.05

    /// A target as the shooter saw it: id and position.
    struct RailTarget {
        var id: UInt32
        var x: Double
        var y: Double
    }

    /// Fires the rail of every living player whose input asks for it and whose rail is ready:
    /// a ray from the player along its facing to the first wall, hitting the nearest player
    /// along it as the shooter saw it (`lag`) who is still alive now. A hit kills (``railDamage``)
    /// and scores for the shooter; every shot leaves a trace for ``railTraceTime``.
    ///
    /// - Parameters:
    ///   - world: The world, once the players have moved this tick (a rail goes along the facing
    ///     the tick's move gave, so a direction and `e` together fire that way).
    ///   - inputs: The inputs of this tick by player id.
    ///   - dt: The tick's duration in seconds.
    ///   - lag: The views rewound to what each player saw; without one, the present world.
    static func fireRails(_ world: inout ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double, lag: LagCompensation) {
        for index in world.players.indices {
            var shooter = world.players[index]
            guard shooter.isAlive, shooter.railCooldownTicks == 0, inputs[shooter.id]?.firesRail == true else { continue }
            shooter.railCooldownTicks = max(Int((railInterval / dt).rounded()), 1)
            world.players[index] = shooter
            let dx = cosine(shooter.heading), dy = sine(shooter.heading)
            var reach = 0.0
            while reach < railRange && !world.map.isWall(x: shooter.x + dx * (reach + railStep), y: shooter.y + dy * (reach + railStep)) {
                reach += railStep
            }
            var hit: (distance: Double, id: UInt32)?
            for target in railTargets(of: shooter.id, in: world, lag: lag) {
                let along = (target.x - shooter.x) * dx + (target.y - shooter.y) * dy
                let across = (target.x - shooter.x) * dy - (target.y - shooter.y) * dx
                guard along >= 0, along <= reach, abs(across) < railReach, along < (hit?.distance ?? .infinity) else { continue }
                hit = (along, target.id)
            }
            if let hit, let victim = world.playerIndex(hit.id) {
                reach = hit.distance
                world.players[victim].health = max(world.players[victim].health - railDamage, 0)
                if !world.players[victim].isAlive {
                    world.players[victim].respawnTicks = max(Int((respawnDelay / dt).rounded()), 1)
                    world.players[index].score += 1
                }
            }
            let rail = ArenaRail(
                id: world.takeBulletID(), ownerID: shooter.id, x: shooter.x, y: shooter.y, endX: shooter.x + dx * reach,
                endY: shooter.y + dy * reach, remainingTicks: max(Int((railTraceTime / dt).rounded()), 1))
            world.rails.append(rail)
        }
    }

    /// The players a shooter's rail can hit: those its screen showed alive (the rewound view, or
    /// the present world without one) that are alive now too.
    static func railTargets(of shooter: UInt32, in world: ArenaWorld, lag: LagCompensation) -> [RailTarget] {
        if let seen = lag.world(seenBy: shooter) {
            return seen.entities.compactMap { entity in
                guard entity.typeIndex == ArenaSchema.playerType, entity.id != shooter, world.player(entity.id)?.isAlive == true else {
                    return nil
                }
                let drawn = ArenaSchema.player(from: entity)
                return drawn.health > 0 ? RailTarget(id: drawn.id, x: drawn.x, y: drawn.y) : nil
            }
        }
        return world.players.filter { $0.id != shooter && $0.isAlive }.map { RailTarget(id: $0.id, x: $0.x, y: $0.y) }
    }

    /// Counts down the traces' lifetimes and drops the ended ones.
    static func ageRails(_ world: inout ArenaWorld) {
        for index in world.rails.indices { world.rails[index].remainingTicks -= 1 }
        world.rails.removeAll { $0.remainingTicks <= 0 }
    }
}

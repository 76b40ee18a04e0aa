import Tickwire

/// The arena's rules: how players move, shoot, die and respawn. Pure functions of the
/// world and the inputs, run by the server for everyone and by a client for its own
/// player's prediction.
package enum ArenaRules {
    /// Simulation rate the rules are tuned for (ticks per second); any rate works.
    package static let defaultTickRate = 30
    /// Player speed in tiles per second.
    package static let playerSpeed = 8.0
    /// Player radius in tiles, for walls and hits.
    package static let playerRadius = 0.3
    /// Bullet speed in tiles per second.
    package static let bulletSpeed = 28.0
    /// How long a bullet flies, in seconds.
    package static let bulletLifetime = 1.2
    /// Damage one bullet does.
    package static let bulletDamage = 25
    /// Full health.
    package static let maximumHealth = 100
    /// Seconds between two shots of one player.
    package static let fireInterval = 0.3
    /// Seconds a dead player waits before respawning.
    package static let respawnDelay = 2.0
    /// The longest name shown on the scoreboard.
    package static let maximumNameLength = 10

    /// The one place a requested name becomes a player's name: today the hello payload's, later
    /// the verified identity's display name. It keeps letters, digits, `-` and `_` (any script:
    /// the name travels as UTF-8 in a text field), at most ``maximumNameLength`` of them, and is
    /// `player<N>` when nothing is left.
    ///
    /// - Parameters:
    ///   - requested: The name asked for.
    ///   - id: The player's id, for the fallback name.
    /// - Returns: The name.
    package static func playerName(from requested: String, id: UInt32) -> String {
        let kept = requested.filter { character in
            character == "-" || character == "_"
                || ((character.isLetter || character.isNumber)
                    && character.unicodeScalars.allSatisfy { !$0.properties.isDefaultIgnorableCodePoint })
        }
        let name = String(kept.prefix(maximumNameLength))
        return name.isEmpty ? "player\(id)" : name
    }

    /// Adds a human player at a free spawn point; its entity id is its client id.
    ///
    /// - Parameters:
    ///   - id: The client id (below ``ArenaWorld/firstBotID``); a player already there is kept.
    ///   - name: The scoreboard name (trimmed to ``maximumNameLength``).
    ///   - world: The world to add to.
    package static func addHuman(id: UInt32, named name: String, to world: inout ArenaWorld) {
        guard id < ArenaWorld.firstBotID, world.playerIndex(id) == nil else { return }
        insertPlayer(id: id, named: name, isBot: false, into: &world)
    }

    /// Adds a bot at a free spawn point, with its brain.
    ///
    /// - Parameters:
    ///   - name: The scoreboard name.
    ///   - seed: Fixes the bot's choices.
    ///   - world: The world to add to.
    /// - Returns: The bot's entity id.
    @discardableResult
    package static func addBot(named name: String, seed: UInt64, to world: inout ArenaWorld) -> UInt32 {
        let id = world.nextBotID
        world.nextBotID += 1
        insertPlayer(id: id, named: name, isBot: true, into: &world)
        world.bots.append(ArenaBot(playerID: id, seed: seed))
        return id
    }

    private static func insertPlayer(id: UInt32, named name: String, isBot: Bool, into world: inout ArenaWorld) {
        var player = ArenaPlayer(
            id: id, name: String(name.prefix(maximumNameLength)), isBot: isBot, x: 0, y: 0, heading: 0,
            health: maximumHealth, score: 0, respawnTicks: 0, cooldownTicks: 0
        )
        place(&player, in: &world)
        let position = world.players.firstIndex { $0.id > id } ?? world.players.count
        world.players.insert(player, at: position)
    }

    /// Removes a player (and its brain, for a bot), leaving its bullets flying.
    package static func removePlayer(_ id: UInt32, from world: inout ArenaWorld) {
        world.players.removeAll { $0.id == id }
        world.bots.removeAll { $0.playerID == id }
    }

    /// Moves one player by one input for `dt` seconds, sliding along walls: the part of the
    /// rules a client runs to predict its own player.
    ///
    /// - Parameters:
    ///   - player: The player to move; dead players do not move.
    ///   - input: The input for this tick.
    ///   - dt: The tick's duration in seconds.
    ///   - map: The walls.
    package static func move(_ player: inout ArenaPlayer, by input: ArenaInput, dt: Double, on map: ArenaMap) {
        guard player.isAlive, input.moveX != 0 || input.moveY != 0 else { return }
        var dx = Double(input.moveX), dy = Double(input.moveY)
        let length = (dx * dx + dy * dy).squareRoot()
        dx /= length
        dy /= length
        player.heading = angleOf(y: dy, x: dx)
        let step = playerSpeed * dt
        let nextX = player.x + dx * step
        if !map.isBlocked(x: nextX, y: player.y, radius: playerRadius) { player.x = nextX }
        let nextY = player.y + dy * step
        if !map.isBlocked(x: player.x, y: nextY, radius: playerRadius) { player.y = nextY }
    }

    /// Steps the whole world by one tick: lets the bots decide, moves players, fires bullets and
    /// rails (rails against what each shooter saw, `lag`, from where its move took it, along the
    /// facing it gave it), moves bullets, applies hits, kills and respawns.
    ///
    /// - Parameters:
    ///   - world: The world to step.
    ///   - inputs: Each human's input this tick by id; players without one stand still.
    ///   - dt: The tick's duration in seconds.
    ///   - lag: The server's views rewound to what each player saw; ``LagCompensation/unavailable``
    ///     (a client predicting) tests rails against the present world.
    package static func step(_ world: inout ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double, lag: LagCompensation = .unavailable) {
        world.tick &+= 1  // tick numbers wrap after 2^32 ticks (4.5 years at 30 Hz)
        world.teleported.removeAll(keepingCapacity: true)
        ageRails(&world)
        let humanInputs = inputs
        var inputs = inputs
        for index in world.bots.indices {
            inputs[world.bots[index].playerID] = world.bots[index].decide(in: world)
        }
        for index in world.players.indices {
            let input = inputs[world.players[index].id] ?? .idle
            var player = world.players[index]
            if !player.isAlive {
                player.respawnTicks -= 1
                if player.respawnTicks <= 0 {
                    player.health = maximumHealth
                    place(&player, in: &world)
                    world.teleported.append(player.id)
                }
                world.players[index] = player
                continue
            }
            move(&player, by: input, dt: dt, on: world.map)
            player.cooldownTicks = max(player.cooldownTicks - 1, 0)
            player.railCooldownTicks = max(player.railCooldownTicks - 1, 0)
            if input.fires && player.cooldownTicks == 0 {
                player.cooldownTicks = max(Int((fireInterval / dt).rounded()), 1)
                let bullet = ArenaBullet(
                    id: world.takeBulletID(), ownerID: player.id,
                    x: player.x + cosine(player.heading) * (playerRadius + 0.1),
                    y: player.y + sine(player.heading) * (playerRadius + 0.1),
                    heading: player.heading, remainingTicks: max(Int((bulletLifetime / dt).rounded()), 1)
                )
                world.bullets.append(bullet)
            }
            world.players[index] = player
        }
        fireRails(&world, inputs: humanInputs, dt: dt, lag: lag)
        moveBullets(&world, dt: dt)
    }

    private static func moveBullets(_ world: inout ArenaWorld, dt: Double) {
        var survivors: [ArenaBullet] = []
        survivors.reserveCapacity(world.bullets.count)
        bullets: for var bullet in world.bullets {
            bullet.remainingTicks -= 1
            // Move in sub-steps no longer than a player radius, so bullets cannot skip through.
            let distance = bulletSpeed * dt
            let subSteps = max(Int((distance / playerRadius).rounded(.up)), 1)
            for _ in 0..<subSteps {
                bullet.x += cosine(bullet.heading) * distance / Double(subSteps)
                bullet.y += sine(bullet.heading) * distance / Double(subSteps)
                if world.map.isWall(x: bullet.x, y: bullet.y) { continue bullets }
                if let victim = world.players.firstIndex(where: {
                    $0.isAlive && $0.id != bullet.ownerID
                        && ($0.x - bullet.x) * ($0.x - bullet.x) + ($0.y - bullet.y) * ($0.y - bullet.y)
                            < playerRadius * playerRadius * 2.25
                }) {
                    world.players[victim].health = max(world.players[victim].health - bulletDamage, 0)
                    if !world.players[victim].isAlive {
                        world.players[victim].respawnTicks = max(Int((respawnDelay / dt).rounded()), 1)
                        if let killer = world.playerIndex(bullet.ownerID) { world.players[killer].score += 1 }
                    }
                    continue bullets
                }
            }
            if bullet.remainingTicks > 0 { survivors.append(bullet) }
        }
        world.bullets = survivors
    }

    /// Puts a player on a random floor tile away from walls.
    private static func place(_ player: inout ArenaPlayer, in world: inout ArenaWorld) {
        let candidates = world.map.floorCentres.filter {
            !world.map.isBlocked(x: $0.x, y: $0.y, radius: 0.9)
        }
        guard !candidates.isEmpty else { return }
        let spot = candidates[Int(world.random.next() % UInt64(candidates.count))]
        player.x = spot.x
        player.y = spot.y
    }
}

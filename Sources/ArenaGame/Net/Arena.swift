import Tickwire

/// The arena as a Tickwire ``Game``: everything the host and the client sessions need to
/// network it, written against the public API alone.
///
/// The server steps the whole world, bots included; a client restores a world from a
/// snapshot and steps it with its own inputs to predict its player.
package struct Arena: Game {
    /// How many bots a new room starts with.
    package var botCount: Int
    /// The walls.
    package var map: ArenaMap

    /// Creates the game.
    ///
    /// - Parameters:
    ///   - botCount: Bots in each new room.
    ///   - map: The walls.
    package init(botCount: Int = 6, map: ArenaMap = .standard) {
        self.botCount = max(botCount, 0)
        self.map = map
    }

    /// The arena's snapshot schema.
    package var schema: Schema { ArenaSchema.schema }

    /// `arena` and the package's version, named in a schema-mismatch refusal.
    package var version: String? { "arena \(TickwireVersion.string)" }

    /// A new room's world, with its bots; the room's name seeds it.
    package func makeWorld(room: String) -> ArenaWorld {
        // FNV-1a over the room name: the same room always starts the same way.
        var seed: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in room.utf8 { seed = (seed ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var world = ArenaWorld(map: map, seed: seed)
        for index in 0..<botCount {
            ArenaRules.addBot(named: Self.botNames[index % Self.botNames.count], seed: seed &+ UInt64(index), to: &world)
        }
        return world
    }

    /// Names bots are given, in order.
    static let botNames = ["Ada", "Bolt", "Cog", "Dot", "Echo", "Flux", "Gizmo", "Hex", "Ion", "Jolt", "Kilo", "Lux"]

    /// Steps the world by one tick (a client predicting: rails test the present world).
    package func step(_ state: ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double) -> ArenaWorld {
        step(state, inputs: inputs, dt: dt, lag: .unavailable)
    }

    /// The arena's rail is resolved with lag compensation.
    package var compensatesLag: Bool { true }

    /// Steps the world by one tick on the server, resolving rails against what each shooter saw.
    package func step(_ state: ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double, lag: LagCompensation) -> ArenaWorld {
        var world = state
        ArenaRules.step(&world, inputs: inputs, dt: dt, lag: lag)
        return world
    }

    /// The players that respawned in the step that made `state`.
    package func teleportedEntities(in state: ArenaWorld) -> [UInt32] { state.teleported }

    /// Adds a client's player (its entity id is its client id) named `player<N>`.
    package func addPlayer(_ player: UInt32, to state: ArenaWorld) -> ArenaWorld {
        addPlayer(player, payload: [], to: state)
    }

    /// Adds a client's player named by the hello's payload (UTF-8), made a name by
    /// ``ArenaRules/playerName(from:id:)``.
    package func addPlayer(_ player: UInt32, payload: [UInt8], to state: ArenaWorld) -> ArenaWorld {
        let requested = String(decoding: payload.prefix(64), as: UTF8.self)
        var world = state
        ArenaRules.addHuman(id: player, named: ArenaRules.playerName(from: requested, id: player), to: &world)
        return world
    }

    /// Adds a client's player under its verified name: a player who came with a connect token is
    /// named by the token's display name (the name its backend vouches for), whatever the hello's
    /// payload asks; an anonymous player by the payload, as ``addPlayer(_:payload:to:)`` does.
    /// Either way ``ArenaRules/playerName(from:id:)`` makes it a scoreboard name.
    package func addPlayer(_ player: UInt32, payload: [UInt8], identity: PlayerIdentity?, to state: ArenaWorld) -> ArenaWorld {
        guard let verified = identity?.displayName, !verified.isEmpty else { return addPlayer(player, payload: payload, to: state) }
        var world = state
        ArenaRules.addHuman(id: player, named: ArenaRules.playerName(from: verified, id: player), to: &world)
        return world
    }

    /// Removes a client's player.
    package func removePlayer(_ player: UInt32, from state: ArenaWorld) -> ArenaWorld {
        var world = state
        ArenaRules.removePlayer(player, from: &world)
        return world
    }

    /// Writes the world's players and bullets into a snapshot.
    package func capture(_ state: ArenaWorld, into snapshot: inout Snapshot) throws(SnapshotError) {
        try ArenaSchema.capture(state, into: &snapshot)
    }

    /// Rebuilds the players of a snapshot, for predicting the local one. Bullets are left
    /// out (their flight is the server's business), and a dead player waits for the
    /// server to respawn it rather than respawning on its own.
    package func restore(from snapshot: Snapshot) -> ArenaWorld {
        var world = ArenaWorld(map: map, seed: 0)
        world.tick = snapshot.tick
        for index in snapshot.indices where snapshot.typeIndex(at: index) == ArenaSchema.playerType {
            let drawn = ArenaSchema.player(in: snapshot, at: index)
            world.players.append(
                ArenaPlayer(
                    id: drawn.id, name: drawn.name, isBot: drawn.isBot, x: drawn.x, y: drawn.y, heading: drawn.heading,
                    health: drawn.health, score: drawn.score, respawnTicks: drawn.health > 0 ? 0 : Int.max / 2, cooldownTicks: 0
                ))
        }
        return world
    }

    /// A client's player entity is its client id, while it is in the world.
    package func entityID(of player: UInt32, in state: ArenaWorld) -> UInt32? {
        state.player(player) != nil ? player : nil
    }

    /// Writes a client's player alone (``ArenaSchema``'s `capture(_:into:)` for one player), not
    /// the whole world: what a client reads of its predicted player every frame.
    ///
    /// - Parameters:
    ///   - player: The client's player number (its entity id).
    ///   - state: The world.
    ///   - entity: Set to the player's entity.
    /// - Returns: Whether the player is in the world.
    /// - Throws: Never with the arena's schema.
    package func captureEntity(of player: UInt32, in state: ArenaWorld, into entity: inout QuantizedEntity) throws(SnapshotError) -> Bool {
        guard let found = state.player(player) else { return false }
        try ArenaSchema.capture(found, into: &entity)
        return true
    }

    /// An input as one byte.
    package func encode(_ input: ArenaInput) -> [UInt8] { input.encoded }

    /// An input from its byte, or `nil` for anything that is not one.
    package func decodeInput(_ bytes: [UInt8]) -> ArenaInput? {
        let input = ArenaInput(decoding: bytes)
        return input.encoded == bytes ? input : nil
    }
}

import Tickwire

/// How the arena's world travels in snapshots: three entity types, players, bullets and rail
/// traces, and the mapping between ``ArenaWorld`` and ``Snapshot`` entities.
///
/// A player's name travels in one text field (``FieldKind/text(maxBytes:)``, protocol 1.2): sent
/// with the player's creation and again only when it changes, so after that it costs nothing.
package enum ArenaSchema {
    /// The name field's bound in UTF-8 bytes: ``ArenaRules/maximumNameLength`` characters of up to
    /// four bytes each.
    package static let nameBytes = 4 * ArenaRules.maximumNameLength

    /// The entity type index of players.
    package static let playerType = 0
    /// The entity type index of bullets.
    package static let bulletType = 1
    /// The entity type index of rail traces.
    package static let railType = 2

    /// Field indices of the player type.
    enum PlayerField {
        static let x = 0, y = 1, heading = 2, health = 3, score = 4, isBot = 5, name = 6
    }

    /// Field indices of the bullet type.
    enum BulletField {
        static let x = 0, y = 1
    }

    /// Field indices of the rail type.
    enum RailField {
        static let x = 0, y = 1, endX = 2, endY = 3
    }

    /// The schema; built once, its fingerprint tells clients and servers of other versions apart.
    package static let schema: Schema = {
        let position = FieldKind.float(min: 0, max: 64, resolution: 1.0 / 64)
        let playerFields = [
            Field("x", position), Field("y", position), Field("heading", .angle(bits: 4)),
            Field("health", .integer(min: 0, max: Int64(ArenaRules.maximumHealth))),
            Field("score", .integer(min: 0, max: 4095)), Field("isBot", .bool), Field("name", .text(maxBytes: nameBytes)),
        ]
        let bulletFields = [Field("x", position), Field("y", position)]
        let railFields = [Field("x", position), Field("y", position), Field("endX", position), Field("endY", position)]
        do {
            return try Schema([
                EntityType("player", fields: playerFields), EntityType("bullet", fields: bulletFields),
                EntityType("rail", fields: railFields),
            ])
        } catch {
            // The declaration above is constant and within every limit; reaching this is a bug.
            fatalError("the arena schema is invalid: \(error)")
        }
    }()

    /// Captures a world as a snapshot.
    ///
    /// - Parameters:
    ///   - world: The world.
    ///   - snapshot: Cleared and filled with the world's players, bullets and rail traces (its tick is the caller's).
    /// - Throws: ``SnapshotError`` when the world has more entities than a snapshot may hold.
    package static func capture(_ world: ArenaWorld, into snapshot: inout Snapshot) throws(SnapshotError) {
        snapshot.removeAll()
        // The lists are sorted by id; merging them appends in id order, the cheap way to insert.
        var playerIndex = 0, bulletIndex = 0, railIndex = 0
        while playerIndex < world.players.count || bulletIndex < world.bullets.count || railIndex < world.rails.count {
            let bulletID = bulletIndex < world.bullets.count ? world.bullets[bulletIndex].id : nil
            let railID = railIndex < world.rails.count ? world.rails[railIndex].id : nil
            let playerID = playerIndex < world.players.count ? world.players[playerIndex].id : nil
            if precedes(railID, bulletID) && precedes(railID, playerID) {
                let rail = world.rails[railIndex]
                railIndex += 1
                let index = try snapshot.insert(id: rail.id, type: railType)
                snapshot.set(rail.x, at: index, field: RailField.x)
                snapshot.set(rail.y, at: index, field: RailField.y)
                snapshot.set(rail.endX, at: index, field: RailField.endX)
                snapshot.set(rail.endY, at: index, field: RailField.endY)
                continue
            }
            let takesPlayer = precedes(playerID, bulletID)
            if takesPlayer {
                let player = world.players[playerIndex]
                playerIndex += 1
                let index = try snapshot.insert(id: player.id, type: playerType)
                snapshot.set(player.x, at: index, field: PlayerField.x)
                snapshot.set(player.y, at: index, field: PlayerField.y)
                snapshot.set(player.heading, at: index, field: PlayerField.heading)
                snapshot.set(integer: Int64(player.health), at: index, field: PlayerField.health)
                snapshot.set(integer: Int64(player.score), at: index, field: PlayerField.score)
                snapshot.set(integer: player.isBot ? 1 : 0, at: index, field: PlayerField.isBot)
                snapshot.setText(player.name, at: index, field: PlayerField.name)
            } else {
                let bullet = world.bullets[bulletIndex]
                bulletIndex += 1
                let index = try snapshot.insert(id: bullet.id, type: bulletType)
                snapshot.set(bullet.x, at: index, field: BulletField.x)
                snapshot.set(bullet.y, at: index, field: BulletField.y)
            }
        }
    }

    /// Captures one player as a lone entity, with the values ``capture(_:into:)`` gives its
    /// entity in a snapshot: a client's prediction path reads its own player this way. The name
    /// is not among them (a ``QuantizedEntity`` holds numbers only): the view keeps the snapshot's.
    ///
    /// - Parameters:
    ///   - player: The player.
    ///   - entity: Set to the player's entity.
    /// - Throws: Never with the arena's schema (its player type exists); ``SnapshotError`` otherwise.
    package static func capture(_ player: ArenaPlayer, into entity: inout QuantizedEntity) throws(SnapshotError) {
        try entity.reset(id: player.id, type: playerType)
        entity.set(player.x, field: PlayerField.x)
        entity.set(player.y, field: PlayerField.y)
        entity.set(player.heading, field: PlayerField.heading)
        entity.set(integer: Int64(player.health), field: PlayerField.health)
        entity.set(integer: Int64(player.score), field: PlayerField.score)
        entity.set(integer: player.isBot ? 1 : 0, field: PlayerField.isBot)
    }

    /// Whether the entity id `a` comes before `b` in a merge, where `nil` is an exhausted list.
    private static func precedes(_ a: UInt32?, _ b: UInt32?) -> Bool {
        guard let a else { return false }
        guard let b else { return true }
        return a < b
    }

    /// Reads a player's fields from a snapshot entity.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - index: The entity's index; it must be a player.
    /// - Returns: The player as drawn.
    package static func player(in snapshot: Snapshot, at index: Int) -> ArenaScene.Player {
        ArenaScene.Player(
            id: snapshot.id(at: index), name: snapshot.text(at: index, field: PlayerField.name),
            x: snapshot.double(at: index, field: PlayerField.x), y: snapshot.double(at: index, field: PlayerField.y),
            heading: snapshot.double(at: index, field: PlayerField.heading),
            health: Int(snapshot.integer(at: index, field: PlayerField.health)),
            score: Int(snapshot.integer(at: index, field: PlayerField.score)),
            isBot: snapshot.integer(at: index, field: PlayerField.isBot) != 0
        )
    }

    /// Reads a player from an entity of a client's interpolated view.
    ///
    /// - Parameter entity: A player entity (values in field order).
    /// - Returns: The player as drawn.
    package static func player(from entity: EntityView) -> ArenaScene.Player {
        let values = entity.values
        func value(_ field: Int) -> Double { field < values.count ? values[field] : 0 }
        return ArenaScene.Player(
            id: entity.id, name: entity.text(field: PlayerField.name), x: value(PlayerField.x), y: value(PlayerField.y),
            heading: value(PlayerField.heading),
            health: Int(value(PlayerField.health).rounded()), score: Int(value(PlayerField.score).rounded()),
            isBot: value(PlayerField.isBot) != 0
        )
    }

    /// Reads a bullet from an entity of a client's interpolated view.
    ///
    /// - Parameter entity: A bullet entity.
    /// - Returns: The bullet as drawn.
    package static func bullet(from entity: EntityView) -> ArenaScene.Bullet {
        ArenaScene.Bullet(x: entity.values.first ?? 0, y: entity.values.count > 1 ? entity.values[1] : 0)
    }

    /// Reads a rail trace from an entity of a client's interpolated view.
    ///
    /// - Parameter entity: A rail entity.
    /// - Returns: The trace as drawn.
    package static func rail(from entity: EntityView) -> ArenaScene.Rail {
        func value(_ field: Int) -> Double { field < entity.values.count ? entity.values[field] : 0 }
        return ArenaScene.Rail(x: value(RailField.x), y: value(RailField.y), endX: value(RailField.endX), endY: value(RailField.endY))
    }

    /// Reads every player and bullet of a snapshot into a scene.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot (interpolated or not).
    ///   - scene: Its players, bullets and rail traces are replaced.
    package static func fill(_ scene: inout ArenaScene, from snapshot: Snapshot) {
        scene.players.removeAll(keepingCapacity: true)
        scene.bullets.removeAll(keepingCapacity: true)
        scene.rails.removeAll(keepingCapacity: true)
        for index in snapshot.indices {
            switch snapshot.typeIndex(at: index) {
            case playerType:
                scene.players.append(player(in: snapshot, at: index))
            case bulletType:
                scene.bullets.append(
                    ArenaScene.Bullet(
                        x: snapshot.double(at: index, field: BulletField.x), y: snapshot.double(at: index, field: BulletField.y)
                    ))
            case railType:
                scene.rails.append(
                    ArenaScene.Rail(
                        x: snapshot.double(at: index, field: RailField.x), y: snapshot.double(at: index, field: RailField.y),
                        endX: snapshot.double(at: index, field: RailField.endX), endY: snapshot.double(at: index, field: RailField.endY)))
            default:
                continue
            }
        }
    }
}

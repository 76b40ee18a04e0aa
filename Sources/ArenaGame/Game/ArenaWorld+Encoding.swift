import Tickwire

extension ArenaWorld {
    /// Limits a saved world must respect to be decoded; each is checked before anything is
    /// allocated for what it bounds.
    package struct EncodingLimits: Hashable, Sendable {
        /// The most bytes of an encoded world.
        package var maximumBytes = 1 << 20
        /// The most players (humans and bots); also bounds the bots.
        package var maximumPlayers = 4_096
        /// The most bullets in flight.
        package var maximumBullets = 65_536
        /// The most map tiles (width × height); also bounds each side.
        package var maximumMapTiles = 65_536

        /// The defaults: 1 MiB, 4096 players, 65536 bullets, 65536 tiles.
        package static let standard = EncodingLimits()

        /// Creates the default limits.
        package init() {}
    }

    /// The largest magnitude of a saved counter (health, score, tick countdowns): far from
    /// `Int`'s ends, so the rules' `+= 1` and `-= 1` cannot overflow on a loaded world.
    package static let maximumSavedCounter = 1 << 62
    /// The largest magnitude of a saved position or heading: keeps tile arithmetic on a
    /// loaded world within `Int`.
    package static let maximumSavedCoordinate = 1_000_000.0
    /// The most UTF-8 bytes of a saved player name.
    static let maximumSavedNameBytes = 64

    /// The world as bytes: everything ``init(decoding:limits:)`` needs to rebuild an equal
    /// world (the map, the tick, every player, bullet and bot, and the generators), so that a
    /// server restarted from it carries on exactly.
    ///
    /// Layout (integers big-endian; "varint" is LEB128, "zigzag" a signed varint; doubles are
    /// their IEEE 754 bit patterns as u64): map width and height (varints), the map's walls
    /// one bit per tile in row order, least significant bit first, padded with zero bits to a
    /// byte; tick, next bot id, next bullet id (u32 each); the spawn generator's state (u64);
    /// players (varint count, then each: id varint, name text, is-bot u8, x, y, heading
    /// doubles, health, score, respawn ticks, cooldown ticks zigzags); bullets (varint count,
    /// then each: id and owner varints, x, y, heading doubles, remaining ticks zigzag); bots
    /// (varint count, then each: player id varint, generator state u64, wander x, wander y,
    /// wander ticks zigzags).
    ///
    /// - Returns: The encoding.
    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + (map.width * map.height + 7) / 8 + players.count * 48 + bullets.count * 32)
        writer.writeVarUInt(UInt64(map.width))
        writer.writeVarUInt(UInt64(map.height))
        var bits: UInt8 = 0, used = 0
        for row in 0..<map.height {
            for column in 0..<map.width {
                if map.isWall(column: column, row: row) { bits |= 1 << UInt8(used) }
                used += 1
                if used == 8 {
                    writer.writeUInt8(bits)
                    bits = 0
                    used = 0
                }
            }
        }
        if used > 0 { writer.writeUInt8(bits) }
        writer.writeUInt32(tick)
        writer.writeUInt32(nextBotID)
        writer.writeUInt32(nextBulletID)
        writer.writeUInt64(random.state)
        writer.writeVarUInt(UInt64(players.count))
        for player in players {
            writer.writeVarUInt(UInt64(player.id))
            writer.writeString(player.name)
            writer.writeUInt8(player.isBot ? 1 : 0)
            for value in [player.x, player.y, player.heading] { writer.writeUInt64(value.bitPattern) }
            for value in [player.health, player.score, player.respawnTicks, player.cooldownTicks] { writer.writeVarInt(Int64(value)) }
        }
        writer.writeVarUInt(UInt64(bullets.count))
        for bullet in bullets {
            writer.writeVarUInt(UInt64(bullet.id))
            writer.writeVarUInt(UInt64(bullet.ownerID))
            for value in [bullet.x, bullet.y, bullet.heading] { writer.writeUInt64(value.bitPattern) }
            writer.writeVarInt(Int64(bullet.remainingTicks))
        }
        writer.writeVarUInt(UInt64(bots.count))
        for bot in bots {
            writer.writeVarUInt(UInt64(bot.playerID))
            writer.writeUInt64(bot.random.state)
            for value in [bot.wanderX, bot.wanderY, bot.wanderTicks] { writer.writeVarInt(Int64(value)) }
        }
        return writer.bytes
    }

    /// Rebuilds a world from ``encoded()`` bytes, checking every count against `limits` and
    /// every value against the ranges the rules can run on without trapping.
    ///
    /// - Parameters:
    ///   - bytes: The encoding.
    ///   - limits: Size and count limits.
    /// - Throws: ``ArenaStateError`` for input over a limit, cut short, malformed (bad varint,
    ///   invalid UTF-8), with a value out of range (a non-finite or far-off position, an id in
    ///   the wrong range, a counter past ``maximumSavedCounter``), players out of id order, or
    ///   bytes after the end.
    package init(decoding bytes: [UInt8], limits: EncodingLimits = .standard) throws(ArenaStateError) {
        guard bytes.count <= limits.maximumBytes else {
            throw ArenaStateError(.tooLarge(what: "an encoded world", bytes: bytes.count, limit: limits.maximumBytes))
        }
        var reader = ArenaStateReader(bytes)
        let width = try reader.count(of: "map columns", limit: limits.maximumMapTiles)
        let height = try reader.count(of: "map rows", limit: limits.maximumMapTiles)
        let (tiles, overflows) = width.multipliedReportingOverflow(by: height)
        guard !overflows, tiles <= limits.maximumMapTiles else {
            throw ArenaStateError(.tooMany(what: "map tiles", count: overflows ? UInt64.max : UInt64(tiles), limit: limits.maximumMapTiles))
        }
        let wallBytes = try reader.bytes(count: tiles / 8 + (tiles % 8 == 0 ? 0 : 1))
        var layout: [String] = []
        layout.reserveCapacity(height)
        for row in 0..<height {
            var line = ""
            for column in 0..<width {
                let tile = row * width + column
                line.append(wallBytes[tile / 8] & (1 << UInt8(tile % 8)) != 0 ? "#" : " ")
            }
            layout.append(line)
        }
        if tiles % 8 != 0, let last = wallBytes.last, last >> UInt8(tiles % 8) != 0 {
            throw ArenaStateError(.outOfRange(field: "the map's padding bits", value: String(last >> UInt8(tiles % 8)), allowed: "0"))
        }
        self.init(map: ArenaMap(layout: layout))
        tick = try reader.uint32()
        nextBotID = try Self.id(try reader.uint32(), field: "next bot id", in: ArenaWorld.firstBotID...ArenaWorld.firstBulletID)
        nextBulletID = try Self.id(try reader.uint32(), field: "next bullet id", in: ArenaWorld.firstBulletID...UInt32.max)
        random = SplitMix64(seed: try reader.uint64())

        let playerCount = try reader.count(of: "players", limit: limits.maximumPlayers)
        for _ in 0..<playerCount {
            let id = try Self.id(try reader.varUInt32(field: "player id"), field: "player id", in: 1...(ArenaWorld.firstBulletID - 1))
            if let previous = players.last?.id, previous >= id { throw ArenaStateError(.notInOrder(what: "player", id: id)) }
            let name = try reader.string(field: "player name", limit: Self.maximumSavedNameBytes)
            let botFlag = try reader.uint8()
            guard botFlag <= 1 else {
                throw ArenaStateError(.outOfRange(field: "player \(id)'s bot flag", value: String(botFlag), allowed: "0 or 1"))
            }
            let x = try reader.double(field: "player \(id)'s x", magnitude: Self.maximumSavedCoordinate)
            let y = try reader.double(field: "player \(id)'s y", magnitude: Self.maximumSavedCoordinate)
            let heading = try reader.double(field: "player \(id)'s heading", magnitude: Self.maximumSavedCoordinate)
            let health = try reader.integer(field: "player \(id)'s health", magnitude: Self.maximumSavedCounter)
            let score = try reader.integer(field: "player \(id)'s score", magnitude: Self.maximumSavedCounter)
            let respawn = try reader.integer(field: "player \(id)'s respawn ticks", magnitude: Self.maximumSavedCounter)
            let cooldown = try reader.integer(field: "player \(id)'s cooldown ticks", magnitude: Self.maximumSavedCounter)
            players.append(
                ArenaPlayer(
                    id: id, name: name, isBot: botFlag == 1, x: x, y: y, heading: heading, health: health, score: score,
                    respawnTicks: respawn, cooldownTicks: cooldown))
        }

        let bulletCount = try reader.count(of: "bullets", limit: limits.maximumBullets)
        for _ in 0..<bulletCount {
            let id = try Self.id(try reader.varUInt32(field: "bullet id"), field: "bullet id", in: ArenaWorld.firstBulletID...UInt32.max)
            let owner = try reader.varUInt32(field: "bullet owner")
            let x = try reader.double(field: "bullet \(id)'s x", magnitude: Self.maximumSavedCoordinate)
            let y = try reader.double(field: "bullet \(id)'s y", magnitude: Self.maximumSavedCoordinate)
            let heading = try reader.double(field: "bullet \(id)'s heading", magnitude: Self.maximumSavedCoordinate)
            let remaining = try reader.integer(field: "bullet \(id)'s remaining ticks", magnitude: Self.maximumSavedCounter)
            bullets.append(ArenaBullet(id: id, ownerID: owner, x: x, y: y, heading: heading, remainingTicks: remaining))
        }

        let botCount = try reader.count(of: "bots", limit: limits.maximumPlayers)
        for _ in 0..<botCount {
            let playerID = try reader.varUInt32(field: "bot player id")
            let state = try reader.uint64()
            let wanderX = try reader.integer(field: "bot \(playerID)'s wander x", magnitude: 1)
            let wanderY = try reader.integer(field: "bot \(playerID)'s wander y", magnitude: 1)
            let wanderTicks = try reader.integer(field: "bot \(playerID)'s wander ticks", magnitude: Self.maximumSavedCounter)
            bots.append(
                ArenaBot(playerID: playerID, random: SplitMix64(seed: state), wanderX: wanderX, wanderY: wanderY, wanderTicks: wanderTicks))
        }
        guard reader.isAtEnd else { throw ArenaStateError(.trailingBytes(count: reader.remainingCount)) }
    }

    private static func id(_ value: UInt32, field: String, in range: ClosedRange<UInt32>) throws(ArenaStateError) -> UInt32 {
        guard range.contains(value) else {
            throw ArenaStateError(.outOfRange(field: field, value: String(value), allowed: "\(range.lowerBound)...\(range.upperBound)"))
        }
        return value
    }
}

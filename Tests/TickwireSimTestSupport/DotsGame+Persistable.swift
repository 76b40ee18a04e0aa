import TickwireCodec
import TickwireSim

/// The test game's world as bytes, so that fleet and state tests can save and restore its rooms.
extension DotsGame: PersistableGame {
    package func encodeWorld(_ world: State) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeUInt64(world.time.bitPattern)
        writer.writeVarUInt(UInt64(world.players.count))
        for id in world.players.keys.sorted() {
            guard let player = world.players[id] else { continue }
            writer.writeVarUInt(UInt64(id))
            for value in [player.x, player.y, player.heading] { writer.writeUInt64(value.bitPattern) }
        }
        writer.writeVarUInt(UInt64(world.orbs.count))
        for orb in world.orbs {
            for value in [orb.centreX, orb.centreY, orb.radius, orb.phase] { writer.writeUInt64(value.bitPattern) }
        }
        return writer.bytes
    }

    package func decodeWorld(_ bytes: [UInt8]) throws(RoomStateError) -> State {
        var reader = ByteReader(bytes)
        do {
            var state = State()
            state.time = Double(bitPattern: try reader.readUInt64())
            let players = try reader.readVarUInt(field: "players", maximum: 10_000)
            for _ in 0..<players {
                let id = try reader.readVarUInt32(field: "player id")
                state.players[id] = Player(
                    x: Double(bitPattern: try reader.readUInt64()), y: Double(bitPattern: try reader.readUInt64()),
                    heading: Double(bitPattern: try reader.readUInt64()))
            }
            let orbs = try reader.readVarUInt(field: "orbs", maximum: 10_000)
            for _ in 0..<orbs {
                state.orbs.append(
                    Orb(
                        centreX: Double(bitPattern: try reader.readUInt64()), centreY: Double(bitPattern: try reader.readUInt64()),
                        radius: Double(bitPattern: try reader.readUInt64()), phase: Double(bitPattern: try reader.readUInt64())))
            }
            guard reader.isAtEnd else { throw RoomStateError.invalidWorld("\(reader.remainingCount) bytes after the world") }
            return state
        } catch let error as RoomStateError {
            throw error
        } catch {
            throw RoomStateError.invalidWorld("\(error)")
        }
    }
}

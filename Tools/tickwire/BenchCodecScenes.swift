import Foundation
import Tickwire

// The scenes of `tickwire bench codec` (cubes-900 is in BenchCodecCubes.swift). Each is seeded and deterministic: the same
// build prints the same sizes every run.
//
// - arena-1000: 1000 entities of one type {x, y: float in [-512, 512) at 1/64 resolution;
//   heading: angle in 10 bits; health: integer 0...100; state: enumeration of 8}, 30 Hz,
//   600 ticks. Each tick every entity independently, with probability 25%, takes a random-walk
//   step: its heading turns by up to ±0.25 rad and it moves along the new heading at a random
//   speed of 0...8 units/s for one tick (1/30 s), clamped to the arena. With probability 1% its
//   health is set to a new random value in 0...100; with probability 0.5% it is destroyed and
//   replaced by a new entity (next unused id, random position, heading, health and state).
// - moving-60: 60 entities with only x and y (same ranges as arena-1000), 20 Hz, 600 ticks;
//   every entity takes the same random-walk step every tick (heading kept outside the
//   snapshot), at 0...8 units/s for 1/20 s.
// - idle-1000: the first arena-1000 world, 30 Hz, 600 ticks, nothing changing.
//
// Every scene keeps both the quantized snapshots (what Tickwire sends) and the real-valued
// world (what a Codable JSON snapshot would carry).

/// One scene: its snapshots and the same world as Codable values.
struct BenchScene {
    let name: String
    let summary: String
    let hz: Int
    let schema: Schema
    let snapshots: [Snapshot]
    let json: [JSONWorldSnapshot]
}

/// The full world at one tick as a Swift developer would send it with `JSONEncoder`.
struct JSONWorldSnapshot: Codable, Equatable {
    var tick: UInt32
    var entities: [JSONWorldEntity]
}

/// One entity with real `Double` positions; fields a scene does not have are omitted.
struct JSONWorldEntity: Codable, Equatable {
    var id: UInt32
    var x: Double
    var y: Double
    var z: Double? = nil
    var heading: Double? = nil
    var health: Int? = nil
    var state: Int? = nil
    /// A quaternion, x, y, z, w (cubes-900).
    var orientation: [Double]? = nil
    var interacting: Bool? = nil
}

/// The real-valued state the scenes simulate.
private struct SimulatedEntity {
    var id: UInt32
    var x: Double
    var y: Double
    var heading: Double
    var health: Int
    var state: Int
}

enum BenchScenes {
    static let ticks = 600
    static let arenaEntities = 1000
    static let movingEntities = 60
    static let maxSpeed = 8.0
    static let maxTurn = 0.25
    static let bound = 512.0 - 1.0 / 64

    static func all() throws -> [BenchScene] {
        [try arena(), try moving(), try idle(), try BenchCubes.scene()]
    }

    static func arenaSchema() throws -> Schema {
        try Schema([
            EntityType(
                "ship",
                fields: [
                    Field("x", .float(min: -512, max: bound, resolution: 1.0 / 64)),
                    Field("y", .float(min: -512, max: bound, resolution: 1.0 / 64)),
                    Field("heading", .angle(bits: 10)),
                    Field("health", .integer(min: 0, max: 100)),
                    Field("state", .enumeration(cases: 8)),
                ])
        ])
    }

    static func movingSchema() throws -> Schema {
        try Schema([
            EntityType(
                "dot",
                fields: [
                    Field("x", .float(min: -512, max: bound, resolution: 1.0 / 64)),
                    Field("y", .float(min: -512, max: bound, resolution: 1.0 / 64)),
                ])
        ])
    }

    private static func spawn(id: UInt32, _ rng: inout SplitMix64) -> SimulatedEntity {
        SimulatedEntity(
            id: id,
            x: Double.random(in: -500...500, using: &rng), y: Double.random(in: -500...500, using: &rng),
            heading: Double.random(in: 0..<(2 * .pi), using: &rng),
            health: Int.random(in: 0...100, using: &rng), state: Int.random(in: 0...7, using: &rng)
        )
    }

    /// One random-walk step: turn a little, move along the heading, stay inside the arena.
    private static func walk(_ entity: inout SimulatedEntity, dt: Double, _ rng: inout SplitMix64) {
        entity.heading += Double.random(in: -maxTurn...maxTurn, using: &rng)
        entity.heading = entity.heading.truncatingRemainder(dividingBy: 2 * .pi)
        if entity.heading < 0 { entity.heading += 2 * .pi }
        let speed = Double.random(in: 0...maxSpeed, using: &rng)
        entity.x = min(max(entity.x + cos(entity.heading) * speed * dt, -512), bound)
        entity.y = min(max(entity.y + sin(entity.heading) * speed * dt, -512), bound)
    }

    private static func capture(
        _ world: [SimulatedEntity], tick: UInt32, schema: Schema, arenaFields: Bool
    ) throws -> (Snapshot, JSONWorldSnapshot) {
        var snapshot = Snapshot(schema: schema, tick: tick, capacity: world.count)
        var entities: [JSONWorldEntity] = []
        entities.reserveCapacity(world.count)
        for entity in world {
            let index = try snapshot.insert(id: entity.id, type: 0)
            snapshot.set(entity.x, at: index, field: 0)
            snapshot.set(entity.y, at: index, field: 1)
            if arenaFields {
                snapshot.set(entity.heading, at: index, field: 2)
                snapshot.set(integer: Int64(entity.health), at: index, field: 3)
                snapshot.set(integer: Int64(entity.state), at: index, field: 4)
                entities.append(
                    JSONWorldEntity(
                        id: entity.id, x: entity.x, y: entity.y, heading: entity.heading,
                        health: entity.health, state: entity.state))
            } else {
                entities.append(JSONWorldEntity(id: entity.id, x: entity.x, y: entity.y))
            }
        }
        return (snapshot, JSONWorldSnapshot(tick: tick, entities: entities))
    }

    static func arena(changing: Bool = true) throws -> BenchScene {
        let schema = try arenaSchema()
        var rng = SplitMix64(seed: 0xA7E_A1000)
        var world = (1...arenaEntities).map { spawn(id: UInt32($0), &rng) }
        var nextID = UInt32(arenaEntities + 1)
        var snapshots: [Snapshot] = [], json: [JSONWorldSnapshot] = []
        for tick in 0..<ticks {
            if changing && tick > 0 {
                var index = 0
                while index < world.count {
                    if Double.random(in: 0..<1, using: &rng) < 0.005 {
                        // Destroyed and replaced: ids only grow, so the world stays sorted by id.
                        world.remove(at: index)
                        world.append(spawn(id: nextID, &rng))
                        nextID += 1
                        continue
                    }
                    if Double.random(in: 0..<1, using: &rng) < 0.25 { walk(&world[index], dt: 1.0 / 30, &rng) }
                    if Double.random(in: 0..<1, using: &rng) < 0.01 { world[index].health = Int.random(in: 0...100, using: &rng) }
                    index += 1
                }
            }
            let (snapshot, document) = try capture(world, tick: UInt32(tick), schema: schema, arenaFields: true)
            snapshots.append(snapshot)
            json.append(document)
        }
        return BenchScene(
            name: changing ? "arena-1000" : "idle-1000",
            summary: changing
                ? "1000 entities {x, y, heading, health, state}, 30 Hz; per tick 25% move, 1% change health, 0.5% replaced"
                : "the arena-1000 world with nothing changing, 30 Hz",
            hz: 30, schema: schema, snapshots: snapshots, json: json
        )
    }

    static func idle() throws -> BenchScene {
        try arena(changing: false)
    }

    static func moving() throws -> BenchScene {
        let schema = try movingSchema()
        var rng = SplitMix64(seed: 0x60_60_60)
        var world = (1...movingEntities).map { spawn(id: UInt32($0), &rng) }
        var snapshots: [Snapshot] = [], json: [JSONWorldSnapshot] = []
        for tick in 0..<ticks {
            if tick > 0 {
                for index in world.indices { walk(&world[index], dt: 1.0 / 20, &rng) }
            }
            let (snapshot, document) = try capture(world, tick: UInt32(tick), schema: schema, arenaFields: false)
            snapshots.append(snapshot)
            json.append(document)
        }
        return BenchScene(
            name: "moving-60", summary: "60 entities {x, y}, all moving every tick, 20 Hz",
            hz: 20, schema: schema, snapshots: snapshots, json: json
        )
    }
}

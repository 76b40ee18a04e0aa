import Foundation
import Tickwire

// The physics-like cube scene of `tickwire bench codec`, modelled on Glenn Fiedler's
// networked-physics data set: cubes-900.
//
// 900 cubes of one type, 60 Hz, 600 ticks, seeded and deterministic. Quantization (Fiedler's):
// - x, y: float in [-256, 256) at 1/512 m (18 bits); z: float in [0, 32) at 1/512 m (14 bits);
// - orientation, smallest three: `largest` (enumeration of 4: the index of the quaternion's
//   component of largest magnitude; the quaternion is negated when that component is negative)
//   and `a`, `b`, `c` (integers 0...511, 9 bits): the other three components in x, y, z, w
//   order, each in [-1/√2, 1/√2], quantized as round((v·√2 + 1) / 2 · 511);
// - interacting: bool, true while the cube moves.
// Simulation: the cubes start at rest on a 30 × 30 grid 1.5 m apart (half-size 0.5 m, so
// resting z is 0.5). A player cube roams over the grid at 4 m/s and pushes every resting cube
// within 1.2 m of it along its motion (plus spin). Each resting cube is also nudged with
// probability 0.0005 per tick (a random push, hop and spin), and with probability 1/240 per
// tick a blast at a random grid point throws every cube within 6 m outwards and up at
// 4–9 m/s with a strong spin. Moving cubes fall at 9.8 m/s², bounce off the ground (30%
// restitution), slide with 5 m/s² of friction and lose 10% of their spin per tick on the
// ground; a grounded cube slower than 0.05 m/s and 0.2 rad/s comes to rest (velocities zeroed,
// orientation kept). Deltas are measured against the previous tick and six ticks back.

private struct Cube {
    var position: SIMD3<Double>
    var velocity = SIMD3<Double>(repeating: 0)
    /// x, y, z, w.
    var orientation = SIMD4<Double>(0, 0, 0, 1)
    var spin = SIMD3<Double>(repeating: 0)
    var resting = true
}

enum BenchCubes {
    static let count = 900
    static let hz = 60
    static let halfSize = 0.5

    static func schema() throws -> Schema {
        try Schema([
            EntityType(
                "cube",
                fields: [
                    Field("x", .float(min: -256, max: 256 - 1.0 / 512, resolution: 1.0 / 512)),
                    Field("y", .float(min: -256, max: 256 - 1.0 / 512, resolution: 1.0 / 512)),
                    Field("z", .float(min: 0, max: 32 - 1.0 / 512, resolution: 1.0 / 512)),
                    Field("largest", .enumeration(cases: 4)),
                    Field("a", .integer(min: 0, max: 511)),
                    Field("b", .integer(min: 0, max: 511)),
                    Field("c", .integer(min: 0, max: 511)),
                    Field("interacting", .bool),
                ])
        ])
    }

    /// Smallest-three quantization: the largest component's index and the other three in 9 bits.
    static func smallestThree(_ q: SIMD4<Double>) -> (largest: Int, components: [Int64]) {
        var largest = 0
        for index in 1..<4 where abs(q[index]) > abs(q[largest]) { largest = index }
        let sign = q[largest] < 0 ? -1.0 : 1.0
        var components: [Int64] = []
        for index in 0..<4 where index != largest {
            let value = min(max(q[index] * sign * 2.0.squareRoot(), -1), 1)
            components.append(Int64(((value + 1) / 2 * 511).rounded()))
        }
        return (largest, components)
    }

    private static func impulse(_ cube: inout Cube, horizontal: SIMD2<Double>, up: Double, spin: Double, _ rng: inout SplitMix64) {
        cube.velocity = SIMD3(horizontal.x, horizontal.y, up)
        cube.spin = SIMD3(
            Double.random(in: -spin...spin, using: &rng), Double.random(in: -spin...spin, using: &rng),
            Double.random(in: -spin...spin, using: &rng))
        cube.resting = false
    }

    private static func step(_ cube: inout Cube, dt: Double) {
        guard !cube.resting else { return }
        cube.velocity.z -= 9.8 * dt
        cube.position += cube.velocity * dt
        let grounded = cube.position.z <= halfSize
        if grounded {
            cube.position.z = halfSize
            if cube.velocity.z < 0 { cube.velocity.z = -cube.velocity.z * 0.3 }
            if cube.velocity.z < 0.5 { cube.velocity.z = 0 }
            let horizontal = SIMD2(cube.velocity.x, cube.velocity.y)
            let speed = (horizontal * horizontal).sum().squareRoot()
            let slowed = max(0, speed - 5 * dt)
            if speed > 0 {
                cube.velocity.x *= slowed / speed
                cube.velocity.y *= slowed / speed
            }
            cube.spin *= 0.9
        }
        cube.position.x = min(max(cube.position.x, -250), 250)
        cube.position.y = min(max(cube.position.y, -250), 250)
        cube.position.z = min(cube.position.z, 31)
        // Integrate the orientation: q += dt/2 · (spin, 0) ⊗ q, then normalize.
        let q = cube.orientation, w = cube.spin
        let dq = SIMD4(
            w.x * q.w + w.y * q.z - w.z * q.y,
            w.y * q.w + w.z * q.x - w.x * q.z,
            w.z * q.w + w.x * q.y - w.y * q.x,
            -(w.x * q.x + w.y * q.y + w.z * q.z))
        let next = q + dq * (dt / 2)
        cube.orientation = next / (next * next).sum().squareRoot()
        if grounded && cube.velocity.z == 0 && (cube.velocity * cube.velocity).sum() < 0.05 * 0.05
            && (cube.spin * cube.spin).sum() < 0.2 * 0.2
        {
            cube.velocity = SIMD3(repeating: 0)
            cube.spin = SIMD3(repeating: 0)
            cube.resting = true
        }
    }

    static func scene() throws -> BenchScene {
        let schema = try schema()
        var rng = SplitMix64(seed: 0xC0_BE_900)
        let spacing = 1.5, side = 30
        let origin = -spacing * Double(side - 1) / 2
        var cubes: [Cube] = []
        for index in 0..<count {
            let x: Double = origin + spacing * Double(index % side)
            let y: Double = origin + spacing * Double(index / side)
            let yaw: Double = Double(index) * 0.37
            cubes.append(Cube(position: SIMD3<Double>(x, y, halfSize), orientation: SIMD4<Double>(0, 0, sin(yaw), cos(yaw))))
        }
        var player = SIMD2<Double>(0, 0)
        var heading = 0.0
        let dt = 1.0 / Double(hz)
        var snapshots: [Snapshot] = [], json: [JSONWorldSnapshot] = []
        for tick in 0..<BenchScenes.ticks {
            if tick > 0 {
                // The player roams the grid, turning a little each tick, and pushes resting cubes it touches.
                heading += Double.random(in: -0.15...0.15, using: &rng)
                let motion = SIMD2(cos(heading), sin(heading)) * 4
                player += motion * dt
                if abs(player.x) > -origin { heading = .pi - heading; player.x = min(max(player.x, origin), -origin) }
                if abs(player.y) > -origin { heading = -heading; player.y = min(max(player.y, origin), -origin) }
                var blast: SIMD2<Double>?
                if Double.random(in: 0..<1, using: &rng) < 1.0 / 240 {
                    blast = SIMD2<Double>(
                        Double.random(in: origin...(-origin), using: &rng), Double.random(in: origin...(-origin), using: &rng))
                }
                for index in cubes.indices {
                    let flat = SIMD2<Double>(cubes[index].position.x, cubes[index].position.y)
                    if let blast {
                        let away = flat - blast
                        let distance = (away * away).sum().squareRoot()
                        if distance < 6 {
                            let direction: SIMD2<Double> = distance > 0.01 ? away / distance : SIMD2<Double>(1, 0)
                            let strength = Double.random(in: 4...9, using: &rng) * (1 - distance / 8)
                            impulse(&cubes[index], horizontal: direction * strength, up: strength, spin: 8, &rng)
                        }
                    }
                    if cubes[index].resting {
                        let offset = flat - player
                        if (offset * offset).sum() < 1.2 * 1.2 {
                            impulse(
                                &cubes[index], horizontal: motion * Double.random(in: 0.8...1.3, using: &rng),
                                up: Double.random(in: 0...1.5, using: &rng), spin: 4, &rng)
                        } else if Double.random(in: 0..<1, using: &rng) < 0.0005 {
                            let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
                            impulse(
                                &cubes[index], horizontal: SIMD2(cos(angle), sin(angle)) * Double.random(in: 0.5...3, using: &rng),
                                up: Double.random(in: 0...3, using: &rng), spin: 5, &rng)
                        }
                    }
                    step(&cubes[index], dt: dt)
                }
            }
            var snapshot = Snapshot(schema: schema, tick: UInt32(tick), capacity: count)
            var entities: [JSONWorldEntity] = []
            entities.reserveCapacity(count)
            for (index, cube) in cubes.enumerated() {
                let id = UInt32(index + 1)
                let entity = try snapshot.insert(id: id, type: 0)
                snapshot.set(cube.position.x, at: entity, field: 0)
                snapshot.set(cube.position.y, at: entity, field: 1)
                snapshot.set(cube.position.z, at: entity, field: 2)
                let (largest, components) = smallestThree(cube.orientation)
                snapshot.set(integer: Int64(largest), at: entity, field: 3)
                for (offset, component) in components.enumerated() { snapshot.set(integer: component, at: entity, field: 4 + offset) }
                snapshot.set(integer: cube.resting ? 0 : 1, at: entity, field: 7)
                entities.append(
                    JSONWorldEntity(
                        id: id, x: cube.position.x, y: cube.position.y, z: cube.position.z,
                        orientation: [cube.orientation.x, cube.orientation.y, cube.orientation.z, cube.orientation.w],
                        interacting: !cube.resting))
            }
            snapshots.append(snapshot)
            json.append(JSONWorldSnapshot(tick: UInt32(tick), entities: entities))
        }
        return BenchScene(
            name: "cubes-900",
            summary:
                "900 cubes {x, y, z at 1/512 m; smallest-three orientation 2+3×9 bits; interacting}, 60 Hz; mostly resting, pushed, nudged, blasted",
            hz: hz, schema: schema, snapshots: snapshots, json: json)
    }
}

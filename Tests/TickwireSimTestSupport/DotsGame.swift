import TickwireCodec
import TickwireSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small game for the tick simulation tests (named as a test fixture, not a real game):
/// players walk on a plane with 8-way inputs; "orbs" circle around fixed centres until
/// `freezeAt` seconds of world time, then stop, so views can be checked to converge exactly.
package struct DotsGame: Game {
    package struct Player: Hashable, Sendable {
        package var x: Double
        package var y: Double
        package var heading: Double

        package init(x: Double, y: Double, heading: Double) {
            self.x = x
            self.y = y
            self.heading = heading
        }
    }

    package struct Orb: Hashable, Sendable {
        package var centreX: Double
        package var centreY: Double
        package var radius: Double
        package var phase: Double

        package init(centreX: Double, centreY: Double, radius: Double, phase: Double) {
            self.centreX = centreX
            self.centreY = centreY
            self.radius = radius
            self.phase = phase
        }
    }

    package struct State: Sendable {
        package var time = 0.0
        package var players: [UInt32: Player] = [:]
        package var orbs: [Orb] = []

        package init() {}
    }

    /// dx, dy in -1...1.
    package struct Input: Hashable, Sendable {
        package var dx: Int8
        package var dy: Int8

        package init(dx: Int8, dy: Int8) {
            self.dx = dx
            self.dy = dy
        }
    }

    package static let orbBase: UInt32 = 1_000_000
    package static let speed = 10.0
    package static let angularSpeed = 1.0

    package let schema: Schema
    package var orbCount = 8
    package var freezeAt = Double.infinity
    /// A test double for an expensive step: each step moves this virtual clock on by ``stepCost``.
    package var stepClock: VirtualClock?
    /// How far each step moves ``stepClock``.
    package var stepCost = Duration.zero
    /// A fake failure: while set, ``capture(_:into:)`` inserts an orb twice and so throws, as a
    /// game that cannot describe its world would.
    package var failsCapture = false
    /// A stand-in for a game's admission policy (``admit(_:in:)`` asks it): admits everyone
    /// unless a test sets a policy of its own.
    package var admissionPolicy: @Sendable (AdmissionRequest, State) -> Admission = { _, _ in .admitted }
    /// Told of every player added, with the identity its connect token verified (`nil` when anonymous).
    package var addedPlayer: @Sendable (UInt32, PlayerIdentity?) -> Void = { _, _ in }
    /// The version a host names in a schema-mismatch refusal; `nil` names none.
    package var version: String?
    /// Where player *n* starts (a function of n only).
    package var spawn: @Sendable (UInt32) -> (Double, Double) = { id in (Double(id % 10) * 3, Double(id / 10 % 10) * 3) }

    package static func makeSchema(extraField: Bool = false) -> Schema {
        var playerFields = [
            Field("x", .float(min: -500, max: 500, resolution: 0.01)),
            Field("y", .float(min: -500, max: 500, resolution: 0.01)),
            Field("heading", .angle(bits: 12)),
        ]
        if extraField { playerFields.append(Field("score", .integer(min: 0, max: 1000))) }
        do {
            return try Schema([
                EntityType("player", fields: playerFields),
                EntityType(
                    "orb",
                    fields: [
                        Field("x", .float(min: -500, max: 500, resolution: 0.01)),
                        Field("y", .float(min: -500, max: 500, resolution: 0.01)),
                    ]),
            ])
        } catch {
            fatalError("DotsGame schema is invalid: \(error)")
        }
    }

    package init(orbCount: Int = 8, freezeAt: Double = .infinity, extraField: Bool = false) {
        self.schema = DotsGame.makeSchema(extraField: extraField)
        self.orbCount = orbCount
        self.freezeAt = freezeAt
    }

    package func makeWorld(room: String) -> State {
        var state = State()
        for index in 0..<orbCount {
            state.orbs.append(
                Orb(centreX: Double(index % 20) * 20 - 200, centreY: Double(index / 20) * 20 - 200, radius: 5, phase: Double(index)))
        }
        return state
    }

    package func step(_ state: State, inputs: [UInt32: Input], dt: Double) -> State {
        stepClock?.advance(by: stepCost)
        var next = state
        for (id, input) in inputs.sorted(by: { $0.key < $1.key }) {
            guard var player = next.players[id] else { continue }
            player.x = min(max(player.x + Double(input.dx) * DotsGame.speed * dt, -500), 500)
            player.y = min(max(player.y + Double(input.dy) * DotsGame.speed * dt, -500), 500)
            if input.dx != 0 || input.dy != 0 { player.heading = atan2(Double(input.dy), Double(input.dx)) }
            next.players[id] = player
        }
        if next.time < freezeAt {
            for index in next.orbs.indices { next.orbs[index].phase += DotsGame.angularSpeed * dt }
        }
        next.time += dt
        return next
    }

    package func admit(_ request: AdmissionRequest, in state: State) -> Admission {
        admissionPolicy(request, state)
    }

    /// For the matchmaking tests: the room's player count as metadata; a room whose name starts
    /// with `private-` is private, and one holding two players or more is locked.
    package func listing(of state: State, room: String) -> RoomListingDetails {
        RoomListingDetails(
            metadata: ["players": "\(state.players.count)"], isLocked: state.players.count >= 2, isPrivate: room.hasPrefix("private-"))
    }

    package func addPlayer(_ player: UInt32, payload: [UInt8], identity: PlayerIdentity?, to state: State) -> State {
        addedPlayer(player, identity)
        return addPlayer(player, payload: payload, to: state)
    }

    package func addPlayer(_ player: UInt32, to state: State) -> State {
        var next = state
        let (x, y) = spawn(player)
        next.players[player] = Player(x: x, y: y, heading: 0)
        return next
    }

    package func removePlayer(_ player: UInt32, from state: State) -> State {
        var next = state
        next.players[player] = nil
        return next
    }

    package func capture(_ state: State, into snapshot: inout Snapshot) throws(SnapshotError) {
        if failsCapture {
            _ = try snapshot.insert(id: DotsGame.orbBase, type: 1)
            _ = try snapshot.insert(id: DotsGame.orbBase, type: 1)  // the duplicate throws
        }
        for id in state.players.keys.sorted() {
            guard let player = state.players[id] else { continue }
            let index = try snapshot.insert(id: id, type: 0)
            snapshot.set(player.x, at: index, field: 0)
            snapshot.set(player.y, at: index, field: 1)
            snapshot.set(player.heading, at: index, field: 2)
        }
        for (offset, orb) in state.orbs.enumerated() {
            let index = try snapshot.insert(id: DotsGame.orbBase + UInt32(offset), type: 1)
            snapshot.set(orb.centreX + orb.radius * cos(orb.phase), at: index, field: 0)
            snapshot.set(orb.centreY + orb.radius * sin(orb.phase), at: index, field: 1)
        }
    }

    package func restore(from snapshot: Snapshot) -> State {
        var state = State()
        for index in snapshot.indices where snapshot.typeIndex(at: index) == 0 {
            state.players[snapshot.id(at: index)] = Player(
                x: snapshot.double(at: index, field: 0), y: snapshot.double(at: index, field: 1),
                heading: snapshot.double(at: index, field: 2))
        }
        return state
    }

    package func entityID(of player: UInt32, in state: State) -> UInt32? {
        state.players[player] == nil ? nil : player
    }

    /// The player alone, with the values ``capture(_:into:)`` gives it.
    package func captureEntity(of player: UInt32, in state: State, into entity: inout QuantizedEntity) throws(SnapshotError) -> Bool {
        guard let found = state.players[player] else { return false }
        try entity.reset(id: player, type: 0)
        entity.set(found.x, field: 0)
        entity.set(found.y, field: 1)
        entity.set(found.heading, field: 2)
        return true
    }

    package func encode(_ input: Input) -> [UInt8] {
        [UInt8(bitPattern: input.dx), UInt8(bitPattern: input.dy)]
    }

    package func decodeInput(_ bytes: [UInt8]) -> Input? {
        guard bytes.count == 2 else { return nil }
        let dx = Int8(bitPattern: bytes[0]), dy = Int8(bitPattern: bytes[1])
        guard (-1...1).contains(dx), (-1...1).contains(dy) else { return nil }
        return Input(dx: dx, dy: dy)
    }
}

/// The tests drive the public harness, ``TickSimulation``, with the test game.
package typealias Simulation = TickSimulation<DotsGame>

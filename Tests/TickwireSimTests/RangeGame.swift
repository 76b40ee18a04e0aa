import TickwireCodec

@testable import TickwireSim

/// A shooting-range game for the lag-compensation tests (a test fixture): players stand still
/// and fire instant shots along x at a target entity, which strafes at constant speed or
/// respawns back and forth between two places. The host resolves each shot against the world as
/// the shooter saw it (``LagCompensation/world(seenBy:)``) and counts hits and misses.
struct RangeGame: Game {
    /// How the target moves.
    enum Motion: Sendable {
        /// From x = −30 at 8 units per second, never turning.
        case strafe
        /// At x = −10 for half a second, then at x = +10, and so on.
        case respawn
    }

    struct Input: Hashable, Sendable {
        var fires: Bool
        var aimX: Double
    }

    struct State: Sendable {
        var time = 0.0
        var players: Set<UInt32> = []
        var targetX = 0.0
        var hits: [UInt32: Int] = [:]
        var misses: [UInt32: Int] = [:]
        /// The render tick the host rewound each player's last shot to, and the present and oldest ticks then.
        var renderTicks: [UInt32: Double] = [:]
        var presentTick = 0.0
        var oldestTick = 0.0
        var teleported: [UInt32] = []
    }

    static let targetID: UInt32 = 1_000
    /// How close to the target's x a shot must pass to hit (the positions are quantized to 0.01).
    static let hitRadius = 0.15

    let schema: Schema
    var motion = Motion.strafe
    /// Whether the game marks the target's respawns (``teleportedEntities(in:)``).
    var marksTeleports = true

    init(motion: Motion = .strafe, marksTeleports: Bool = true) {
        self.motion = motion
        self.marksTeleports = marksTeleports
        do {
            schema = try Schema([
                EntityType(
                    "thing",
                    fields: [
                        Field("x", .float(min: -500, max: 500, resolution: 0.01)),
                        Field("y", .float(min: -500, max: 500, resolution: 0.01)),
                    ])
            ])
        } catch {
            fatalError("RangeGame schema is invalid: \(error)")
        }
    }

    var compensatesLag: Bool { true }

    func targetX(at time: Double) -> Double {
        switch motion {
        case .strafe: -30 + 8 * time
        case .respawn: Int((time / 0.5).rounded(.down)) % 2 == 0 ? -10 : 10
        }
    }

    func makeWorld(room: String) -> State {
        var state = State()
        state.targetX = targetX(at: 0)
        return state
    }

    func step(_ state: State, inputs: [UInt32: Input], dt: Double) -> State {
        step(state, inputs: inputs, dt: dt, lag: .unavailable)
    }

    func step(_ state: State, inputs: [UInt32: Input], dt: Double, lag: LagCompensation) -> State {
        var next = state
        for (player, input) in inputs.sorted(by: { $0.key < $1.key }) where input.fires {
            let seen = lag.world(seenBy: player)?.entity(id: RangeGame.targetID)?.values[0] ?? state.targetX
            if abs(seen - input.aimX) <= RangeGame.hitRadius {
                next.hits[player, default: 0] += 1
            } else {
                next.misses[player, default: 0] += 1
            }
            next.renderTicks[player] = lag.renderTick(of: player)
            next.presentTick = lag.presentTick ?? 0
            next.oldestTick = lag.oldestTick ?? 0
        }
        next.time += dt
        next.targetX = targetX(at: next.time)
        next.teleported = marksTeleports && abs(next.targetX - state.targetX) > 1 ? [RangeGame.targetID] : []
        return next
    }

    func teleportedEntities(in state: State) -> [UInt32] { state.teleported }

    func addPlayer(_ player: UInt32, to state: State) -> State {
        var next = state
        next.players.insert(player)
        return next
    }

    func removePlayer(_ player: UInt32, from state: State) -> State {
        var next = state
        next.players.remove(player)
        return next
    }

    func capture(_ state: State, into snapshot: inout Snapshot) throws(SnapshotError) {
        for player in state.players.sorted() {
            let index = try snapshot.insert(id: player, type: 0)
            snapshot.set(Double(player), at: index, field: 0)
            snapshot.set(0, at: index, field: 1)
        }
        let index = try snapshot.insert(id: RangeGame.targetID, type: 0)
        snapshot.set(state.targetX, at: index, field: 0)
        snapshot.set(10, at: index, field: 1)
    }

    func restore(from snapshot: Snapshot) -> State {
        var state = State()
        for index in snapshot.indices where snapshot.id(at: index) != RangeGame.targetID {
            state.players.insert(snapshot.id(at: index))
        }
        return state
    }

    func entityID(of player: UInt32, in state: State) -> UInt32? {
        state.players.contains(player) ? player : nil
    }

    /// The player alone, with the values ``capture(_:into:)`` gives it.
    func captureEntity(of player: UInt32, in state: State, into entity: inout QuantizedEntity) throws(SnapshotError) -> Bool {
        guard state.players.contains(player) else { return false }
        try entity.reset(id: player, type: 0)
        entity.set(Double(player), field: 0)
        entity.set(0, field: 1)
        return true
    }

    func encode(_ input: Input) -> [UInt8] {
        let aim = UInt32(bitPattern: Int32((input.aimX * 100).rounded()))
        return [input.fires ? 1 : 0, UInt8(aim >> 24), UInt8(aim >> 16 & 0xFF), UInt8(aim >> 8 & 0xFF), UInt8(aim & 0xFF)]
    }

    func decodeInput(_ bytes: [UInt8]) -> Input? {
        guard bytes.count == 5, bytes[0] <= 1 else { return nil }
        let aim = Int32(bitPattern: UInt32(bytes[1]) << 24 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 8 | UInt32(bytes[4]))
        return Input(fires: bytes[0] == 1, aimX: Double(aim) / 100)
    }
}

import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Lag compensation end to end on a ``TickSimulation``: a shooter whose link has a 150 ms round
/// trip and whose render runs 100 ms behind fires at the target its own render shows, and the
/// host resolves the shot against the world as the shooter saw it.
@Suite("Lag compensation in a tick simulation")
struct LagCompensationTests {
    /// The target's x in the shooter's newest rendered frame (the shooter aims there).
    final class Sight {
        var targetX: Double?
    }

    /// Runs a range with one shooter (75 ms each way, 100 ms interpolation delay) for `seconds`.
    /// The shooter fires from 1.5 s on at the target where its last frame showed it, when `aims`
    /// says that place is worth a shot.
    static func run(
        game: RangeGame, seconds: Int = 5, configure: (inout HostConfiguration) -> Void = { _ in },
        claim: ((Message.RenderTime) -> Message.RenderTime)? = nil, aims: @escaping (Double) -> Bool = { _ in true }
    ) -> (simulation: TickSimulation<RangeGame>, shooter: UInt32) {
        let simulation = TickSimulation(game: game, seed: 22, configure: configure)
        let sight = Sight()
        let link = LinkConditions(latency: .milliseconds(75))
        let shooter = simulation.addClient(
            upstream: link, downstream: link, configure: { $0.interpolationDelayRange = 0.1...0.1 },
            input: { _, tick in
                guard tick >= 30, let x = sight.targetX, aims(x) else { return RangeGame.Input(fires: false, aimX: 0) }
                return RangeGame.Input(fires: true, aimX: x)
            })
        simulation.clients[shooter].renderTimeClaim = claim
        simulation.onFrame = { index, view in
            if index == shooter { sight.targetX = view.entity(id: RangeGame.targetID)?.values[0] }
        }
        simulation.run(for: .seconds(seconds))
        return (simulation, simulation.clients[shooter].clientID ?? 0)
    }

    @Test("150 ms round trip, 100 ms interpolation delay: shots at the strafing target the shooter sees hit with compensation")
    func hitsWithCompensation() throws {
        let (simulation, shooter) = Self.run(game: RangeGame())
        #expect(simulation.clients[0].sendsRenderTimes, "the welcome accepts render times for a game that compensates lag")
        let state = simulation.room.state
        let hits = state.hits[shooter, default: 0], misses = state.misses[shooter, default: 0]
        #expect(hits >= 60, "about 70 shots in 3.5 s should have been fired and hit; \(hits) hit")
        #expect(misses == 0, "every shot at what the shooter saw must hit, but \(misses) of \(hits + misses) missed")
    }

    @Test("the same shots miss without compensation: the target has moved on by the shooter's latency")
    func missesWithoutCompensation() throws {
        let (simulation, shooter) = Self.run(game: RangeGame(), configure: { $0.lagCompensation.isEnabled = false })
        let state = simulation.room.state
        let hits = state.hits[shooter, default: 0], misses = state.misses[shooter, default: 0]
        #expect(misses >= 60, "about 70 shots should have been fired; \(misses) missed")
        #expect(hits == 0, "without compensation the target is 8 units/s × ~0.25 s ahead of the shot, yet \(hits) hit")
    }

    @Test("a render time claimed 5 s old is clamped to the 1 s window")
    func oldClaimClampedToWindow() throws {
        let fiveSeconds = { (claim: Message.RenderTime) in Message.RenderTime(tick: claim.tick &- 100, fraction: claim.fraction) }
        let (simulation, shooter) = Self.run(
            game: RangeGame(), seconds: 8, configure: { $0.lagCompensation.tolerance = nil }, claim: fiveSeconds)
        let state = simulation.room.state
        let renderTick = try #require(state.renderTicks[shooter], "the shooter fired")
        #expect(state.presentTick - renderTick == 20, "1 s at 20 Hz is 20 ticks back, not \(state.presentTick - renderTick)")
        #expect(renderTick == state.oldestTick)
    }

    @Test("with the default 200 ms tolerance, a claim 5 s old is replaced by the host's estimate of what the shooter saw")
    func farClaimReplacedByEstimate() throws {
        let fiveSeconds = { (claim: Message.RenderTime) in Message.RenderTime(tick: claim.tick &- 100, fraction: claim.fraction) }
        let (simulation, shooter) = Self.run(game: RangeGame(), claim: fiveSeconds)
        let state = simulation.room.state
        let renderTick = try #require(state.renderTicks[shooter], "the shooter fired")
        // What the shooter really saw is about 0.175 s (3.5 ticks) old when its input arrives.
        let age = state.presentTick - renderTick
        #expect(age >= 2 && age <= 6, "the estimate should be 2–6 ticks back, not \(age)")
    }

    @Test("a respawned target is never hit at a point between its two places (the game marks the respawn)")
    func respawnMarkedByGame() throws {
        let (simulation, shooter) = Self.run(game: RangeGame(motion: .respawn), aims: { abs($0) < 9 })
        let state = simulation.room.state
        let shots = state.hits[shooter, default: 0] + state.misses[shooter, default: 0]
        #expect(shots >= 3, "the shooter's own render slid the target through the middle, and it fired there (\(shots) shots)")
        #expect(state.hits[shooter, default: 0] == 0, "the history must not interpolate across a respawn")
    }

    @Test("a respawned target is never hit between its two places when a snap distance tells the teleport")
    func respawnFoundBySnapDistance() throws {
        let (simulation, shooter) = Self.run(
            game: RangeGame(motion: .respawn, marksTeleports: false), configure: { $0.lagCompensation.snapDistance = 5 },
            aims: { abs($0) < 9 })
        let state = simulation.room.state
        #expect(state.misses[shooter, default: 0] >= 3)
        #expect(state.hits[shooter, default: 0] == 0, "a 20-unit jump exceeds the snap distance of 5")
    }

    @Test("control: unmarked and without a snap distance, the history interpolates across the respawn and those shots hit")
    func respawnUnmarkedIsInterpolated() throws {
        let (simulation, shooter) = Self.run(game: RangeGame(motion: .respawn, marksTeleports: false), aims: { abs($0) < 9 })
        #expect(simulation.room.state.hits[shooter, default: 0] >= 3, "the two tests above are only meaningful if these shots would hit")
    }

    @Test("a game that does not compensate lag keeps no history and is never sent render times")
    func noCostWithoutOptIn() throws {
        let simulation = Simulation(game: DotsGame())
        simulation.addClient(input: { _, tick in DotsGame.Input(dx: tick % 2 == 0 ? 1 : 0, dy: 0) })
        simulation.run(for: .seconds(1))
        #expect(simulation.room.lagHistory == nil)
        #expect(simulation.clients[0].sendsRenderTimes == false)
    }

    @Test("a version 1 client (no render times) is still compensated, by the host's estimate")
    func versionOneClientUsesEstimate() throws {
        let simulation = TickSimulation(game: RangeGame(), seed: 3)
        let link = LinkConditions(latency: .milliseconds(75))
        simulation.addClient(
            upstream: link, downstream: link, configure: { $0.offersRenderTimes = false },
            input: { _, tick in RangeGame.Input(fires: tick >= 30, aimX: 0) })
        simulation.run(for: .seconds(3))
        let shooter = try #require(simulation.clients[0].clientID)
        #expect(simulation.clients[0].sendsRenderTimes == false)
        let state = simulation.room.state
        let renderTick = try #require(state.renderTicks[shooter])
        let age = state.presentTick - renderTick
        #expect(age >= 2 && age <= 6, "the estimate should be 2–6 ticks back, not \(age)")
    }
}

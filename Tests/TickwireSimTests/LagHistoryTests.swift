import Testing
import TickwireCodec

@testable import TickwireSim

/// The lag-compensation history's limits: the window (1 s by default) and the tolerance (200 ms),
/// each at the limit and one wire unit (1/256 tick) past it, and its bounded size.
@Suite("Lag history limits")
struct LagHistoryTests {
    static let schema: Schema = {
        do {
            return try Schema([EntityType("thing", fields: [Field("x", .float(min: -500, max: 500, resolution: 0.01))])])
        } catch {
            fatalError("\(error)")
        }
    }()

    /// A history of ticks 1...`ticks` at 20 Hz, the thing at x = tick, the newest captured at 2 s.
    static func history(ticks: UInt32 = 40, configure: (inout LagCompensationConfiguration) -> Void = { _ in }) throws -> LagHistory {
        var settings = LagCompensationConfiguration()
        configure(&settings)
        var history = LagHistory(settings: settings, tickRate: 20)
        for tick in 1...ticks {
            var snapshot = Snapshot(schema: schema, tick: tick)
            let index = try snapshot.insert(id: 1, type: 0)
            snapshot.set(Double(tick), at: index, field: 0)
            history.record(snapshot, at: Timestamp(nanoseconds: Int64(tick) * 50_000_000), teleported: [])
        }
        return history
    }

    @Test("the history holds the window and no more: 1 s at 20 Hz is 20 ticks back, in at most 22 snapshots")
    func bounded() throws {
        let history = try Self.history(ticks: 200)
        #expect(history.capacity == 22)
        #expect(history.count <= history.capacity)
        #expect(history.newestTick == 200)
        #expect(history.oldestTick == 180)
    }

    @Test("a claim exactly the window old is kept; one 1/256 tick older is clamped to the window")
    func windowLimit() throws {
        let history = try Self.history { $0.tolerance = nil }
        let arrival = Timestamp(nanoseconds: 2_000_000_000)
        #expect(history.resolve(claim: 20, arrival: arrival, roundTrip: 0) == 20)
        #expect(history.resolve(claim: 20 - 1 / 256, arrival: arrival, roundTrip: 0) == 20)
        #expect(history.resolve(claim: 40 - 100, arrival: arrival, roundTrip: 0) == 20, "5 s old is clamped")
        #expect(history.resolve(claim: 45, arrival: arrival, roundTrip: 0) == 40, "a claim from the future is the present")
    }

    @Test("a claim 200 ms from the estimate is kept; one 1/256 tick further is replaced by the estimate")
    func toleranceLimit() throws {
        // Estimate: arrival 2 s − 0.25 s assumed delay − no round trip = 5 ticks before tick 40.
        let history = try Self.history { $0.assumedInterpolationDelay = .milliseconds(250) }
        let arrival = Timestamp(nanoseconds: 2_000_000_000)
        let estimate = try #require(history.resolve(claim: nil, arrival: arrival, roundTrip: 0))
        #expect(estimate == 35)
        #expect(history.resolve(claim: 39, arrival: arrival, roundTrip: 0) == 39)
        #expect(history.resolve(claim: 39 + 1 / 256, arrival: arrival, roundTrip: 0) == estimate)
        #expect(history.resolve(claim: 31, arrival: arrival, roundTrip: 0) == 31)
        #expect(history.resolve(claim: 31 - 1 / 256, arrival: arrival, roundTrip: 0) == estimate)
        // Half a 100 ms round trip moves the estimate a tick further back.
        #expect(history.resolve(claim: nil, arrival: arrival, roundTrip: 0.1) == 34)
    }

    @Test("a view between two ticks interpolates as the client's buffer does; never across a marked teleport")
    func interpolationAndTeleports() throws {
        var history = try Self.history()
        #expect(history.world(atTick: 30.25)?.entity(id: 1)?.values[0] == 30.25)
        var jumped = Snapshot(schema: Self.schema, tick: 41)
        let index = try jumped.insert(id: 1, type: 0)
        jumped.set(-100, at: index, field: 0)
        history.record(jumped, at: Timestamp(nanoseconds: 2_050_000_000), teleported: [1])
        #expect(history.world(atTick: 40.5)?.entity(id: 1)?.values[0] == 40, "held at its old place until the respawn tick")
        #expect(history.world(atTick: 41)?.entity(id: 1)?.values[0] == -100)
    }
}

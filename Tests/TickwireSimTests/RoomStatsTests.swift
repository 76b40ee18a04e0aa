import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Room stats messages and snapshot ages")
struct RoomStatsTests {
    @Test("with a stats interval every client gets stats about once per interval, with the room's figures")
    func statsAtTheInterval() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4)) { $0.statsInterval = .milliseconds(500) }
        simulation.addClient()
        simulation.addClient()
        simulation.run(for: .milliseconds(400))
        // The first tick starts the CPU measurement; the first stats go out one interval later.
        #expect(simulation.clients[0].latestServerStats == nil, "no stats before the first full interval")
        simulation.run(for: .milliseconds(1300))
        let stats = try #require(simulation.clients[0].latestServerStats, "stats arrive after the first interval")
        #expect(stats.connectedClients == 2, "two clients connected, stats say \(stats.connectedClients)")
        #expect(
            stats.tick >= 20 && stats.tick <= simulation.room.tick,
            "stats tick \(stats.tick) is a recent room tick (now \(simulation.room.tick))")
        #expect(
            stats.tickDurationP50 <= stats.tickDurationP99 && stats.tickDurationP99 <= stats.tickDurationMax,
            "percentiles ordered: p50 \(stats.tickDurationP50), p99 \(stats.tickDurationP99), max \(stats.tickDurationMax)")
        #expect(stats.bytesOutPerSecond > 0, "the room sent snapshots, so bytes out per second is positive")
        #expect(simulation.clients[1].latestServerStats != nil, "every connected client gets the stats")
    }

    @Test("without a stats interval no stats are sent")
    func statsOffByDefault() {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        simulation.addClient()
        simulation.run(for: .seconds(3))
        #expect(simulation.clients[0].latestServerStats == nil, "the default configuration sends no stats")
        #expect(simulation.clients[0].metrics.snapshotsReceived > 50, "snapshots still flow")
    }

    @Test("snapshot ages are the link latency plus the wait for the client's tick, once the clock is synced")
    func snapshotAges() {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        let link = LinkConditions(latency: .milliseconds(40))
        simulation.addClient(upstream: link, downstream: link)
        simulation.run(for: .seconds(2))
        _ = simulation.clients[0].takeSnapshotAges()
        simulation.run(for: .seconds(2))
        let ages = simulation.clients[0].takeSnapshotAges()
        #expect(ages.count >= 35, "about 40 snapshots in 2 s at 20 Hz, got \(ages.count) ages")
        // 40 ms on the wire plus 0–50 ms until the client's next tick drains it; the clock
        // estimate adds at most a few ms of error on a symmetric link.
        for age in ages {
            #expect(age > 0.03 && age < 0.1, "age \(age) s should be 40 ms latency plus under one 50 ms client tick")
        }
        #expect(simulation.clients[0].takeSnapshotAges().isEmpty, "taking the ages empties them")
    }
}

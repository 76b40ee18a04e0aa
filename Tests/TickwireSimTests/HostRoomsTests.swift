import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Several rooms on one host: opening them on demand up to a bound, and the host-wide tick
/// figures that stats messages report (the rooms share one thread, so one period must cover them all).
@Suite("Host rooms and host-wide tick statistics")
struct HostRoomsTests {
    /// A host on its own simulated network with the given rooms, and a way to add clients to rooms.
    final class Bench {
        let clock = VirtualClock()
        let network: SimulatedNetwork
        let host: Host<DotsGame>
        var clients: [ClientSession<DotsGame>] = []
        let game: DotsGame

        init(game makeGame: (VirtualClock) -> DotsGame, configure: (inout HostConfiguration) -> Void) {
            game = makeGame(clock)
            network = SimulatedNetwork(clock: clock, seed: 3)
            var configuration = HostConfiguration()
            configuration.tokenSeed = 3
            configure(&configuration)
            host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        }

        func join(room: String) -> ClientSession<DotsGame> {
            var configuration = ClientConfiguration()
            configuration.room = room
            let client = ClientSession(game: game, clock: clock, configuration: configuration)
            client.connect(over: network.connect(upstream: .perfect, downstream: .perfect))
            clients.append(client)
            return client
        }

        /// Runs host and clients for `milliseconds` of virtual time in 1 ms steps; clients tick every 50 ms.
        func run(milliseconds: Int) {
            for step in 0..<milliseconds {
                host.advance()
                if step % 50 == 0 { for client in clients { client.tick(input: nil) } }
                clock.advance(by: .milliseconds(1))
            }
        }
    }

    @Test("a hello naming a new room opens it, up to maximumRooms; past that it is rejected as unknownRoom")
    func roomsOnDemandAreBounded() {
        let bench = Bench(game: { _ in DotsGame(orbCount: 2) }) {
            $0.rooms = ["main"]
            $0.createsRoomsOnDemand = true
            $0.maximumRooms = 3
        }
        let second = bench.join(room: "second")
        let third = bench.join(room: "third")
        bench.run(milliseconds: 300)
        let fourth = bench.join(room: "fourth")
        bench.run(milliseconds: 300)
        #expect(second.status == .connected && third.status == .connected, "rooms two and three open on demand")
        #expect(bench.host.roomNames == ["main", "second", "third"], "the host runs exactly three rooms, got \(bench.host.roomNames)")
        guard case .rejected(let reason, _) = fourth.status else {
            Issue.record("a fourth room would pass maximumRooms 3; the client's status is \(fourth.status)")
            return
        }
        #expect(reason == .unknownRoom, "the refusal names the room as unknown, got \(reason)")
        let existing = bench.join(room: "main")
        bench.run(milliseconds: 300)
        #expect(existing.status == .connected, "a full set of rooms still admits clients to the rooms it has")
    }

    @Test("stats messages report the host's whole pass over its rooms, not one room's tick")
    func statsReportTheHostPass() throws {
        // A test double for a costly game: each room's step moves the virtual clock 2 ms on.
        let bench = Bench(game: { clock in
            var game = DotsGame(orbCount: 2)
            game.stepClock = clock
            game.stepCost = .milliseconds(2)
            return game
        }) {
            $0.rooms = ["a", "b", "c"]
            $0.statsInterval = .milliseconds(500)
            $0.tickRate = 20
        }
        let client = bench.join(room: "b")
        bench.run(milliseconds: 2000)
        let room = try #require(bench.host.room(named: "b"))
        #expect(room.loop.statistics.p50 == .milliseconds(2), "one room's tick costs its own step, 2 ms; got \(room.loop.statistics.p50)")
        #expect(
            bench.host.passStatistics.p50 >= .milliseconds(6),
            "a pass runs all three rooms' 2 ms steps: at least 6 ms, got \(bench.host.passStatistics.p50)")
        let stats = try #require(client.latestServerStats, "the client in room b gets stats every 500 ms")
        #expect(stats.tickDurationP50 >= 6000, "stats carry the host's pass (>= 6000 µs), got \(stats.tickDurationP50) µs")
        #expect(
            stats.tickDurationP50 <= stats.tickDurationP99 && stats.tickDurationP99 <= stats.tickDurationMax,
            "percentiles ordered: \(stats.tickDurationP50), \(stats.tickDurationP99), \(stats.tickDurationMax)")
    }
}

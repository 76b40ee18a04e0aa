import Dispatch
import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("ClientDriver")
struct ClientDriverTests {
    /// A host at `tickRate` on a simulated network over `clock`, and a reconnecting client of it.
    /// The tests advance the host from the driver's input callback, on the driving thread.
    static func world(clock: any TickClock, tickRate: Int = 30, clientGame: DotsGame = DotsGame(orbCount: 2))
        -> (Host<DotsGame>, ReconnectingSession<DotsGame>)
    {
        let network = SimulatedNetwork(clock: clock, seed: 3)
        var configuration = HostConfiguration()
        configuration.tickRate = tickRate
        let host = Host(game: DotsGame(orbCount: 2), listener: network, clock: clock, configuration: configuration)
        let client = ReconnectingSession(game: clientGame, clock: clock) { network.connect() }
        return (host, client)
    }

    @Test("ticks at the server's rate once welcomed, on exact deadlines, and renders after each tick")
    func tickRate() {
        let clock = VirtualClock()
        let (host, client) = Self.world(clock: clock, tickRate: 30)
        var times: [Timestamp] = [], ticks: [UInt64] = [], renders = 0
        ClientDriver().run(
            client, until: { times.count >= 60 },
            input: { tick in
                host.advance()
                times.append(clock.now)
                ticks.append(tick)
                return DotsGame.Input(dx: 1, dy: 0)
            }, render: { _ in renders += 1 })
        #expect(times.count == 60 && renders == 60, "60 ticks, each followed by a frame: \(times.count) ticks, \(renders) frames")
        #expect(ticks == Array(0..<60), "ticks are numbered from 0 without gaps")
        #expect(client.state == .connected(resumed: false) && client.tickRate == 30)
        #expect(times[1] - times[0] == .milliseconds(50), "before the welcome the client ticks at the default 20 Hz")
        let gaps = zip(times.dropFirst(3), times.dropFirst(2)).map { ($0 - $1).wholeNanoseconds }
        #expect(gaps.allSatisfy { (33_333_333...33_333_334).contains($0) }, "after the welcome, every 1/30 s exactly: \(Set(gaps))")
        let first = times[2], last = times[59]
        #expect((last - first).wholeNanoseconds == 1_900_000_000, "57 periods after the rate change, no drift")
    }

    @Test("with a frame rate, frames are rendered on their own schedule between ticks")
    func frameRate() {
        let clock = VirtualClock()
        let (host, client) = Self.world(clock: clock, tickRate: 30)
        var ticks = 0, renders = 0
        ClientDriver(frameRate: 60).run(
            client, until: { clock.now >= Timestamp(seconds: 2) },
            input: { _ in
                host.advance()
                ticks += 1
                return nil
            }, render: { _ in renders += 1 })
        #expect((58...62).contains(ticks), "about 30 ticks a second for 2 s: \(ticks)")
        #expect((119...121).contains(renders), "60 frames a second for 2 s: \(renders)")
    }

    @Test("stop() ends the run after the tick in progress, and a stopped driver does not run again")
    func stop() {
        let clock = VirtualClock()
        let (host, client) = Self.world(clock: clock)
        let driver = ClientDriver()
        var ticks = 0
        driver.run(
            client,
            input: { _ in
                host.advance()
                ticks += 1
                if ticks == 10 { driver.stop() }
                return nil
            }, render: { _ in })
        #expect(ticks == 10 && driver.isStopRequested)
        driver.run(
            client,
            input: { _ in
                ticks += 1
                return nil
            }, render: { _ in })
        #expect(ticks == 10, "a stopped driver returns at once")
    }

    @Test("the run ends by itself when the server refuses the client")
    func endsOnRefusal() {
        let clock = VirtualClock()
        let (host, client) = Self.world(clock: clock, clientGame: DotsGame(orbCount: 2, extraField: true))
        ClientDriver().run(
            client, until: { clock.now >= Timestamp(seconds: 60) },
            input: { _ in
                host.advance()
                return nil
            }, render: { _ in })
        guard case .refused(.schemaMismatch, _) = client.state else {
            Issue.record("the client ended \(client.state), not refused for its schema")
            return
        }
        #expect(clock.now < Timestamp(seconds: 1), "the run ended at the refusal, at \(clock.now)")
    }

    @Test("the async form ends when its task is cancelled")
    func asyncCancellation() async {
        let ticks = await Task { () -> Int in
            let clock = VirtualClock()
            let (host, client) = Self.world(clock: clock)
            var ticks = 0
            await ClientDriver().run(
                client,
                input: { _ in
                    host.advance()
                    ticks += 1
                    if ticks == 11 { withUnsafeCurrentTask { $0?.cancel() } }
                    return nil
                }, render: { _ in })
            return ticks
        }.value
        #expect(ticks == 11, "the run returned at the first sleep after the cancellation, after \(ticks) ticks")
    }

    @Test("the async form on the real clock never ticks early and stops when stop() comes from another thread")
    func asyncRealClock() async throws {
        let driver = ClientDriver()
        let clock = MonotonicClock()
        let (host, client) = Self.world(clock: clock, tickRate: 20)
        var times: [Timestamp] = []
        await driver.run(
            client, until: { times.count >= 100 },
            input: { _ in
                times.append(clock.now)
                if times.count == 1 {
                    // Another thread (not the cooperative pool, which other suites may keep busy) stops the run.
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(250)) { driver.stop() }
                }
                host.advance()
                return nil
            }, render: { _ in })
        #expect(driver.isStopRequested && (2..<100).contains(times.count), "stopped after \(times.count) ticks at 20 Hz")
        let origin = try #require(times.first)
        for (index, time) in times.enumerated() {
            #expect(time - origin >= .milliseconds(50 * Int64(index)) - .milliseconds(1), "tick \(index) came early: \(time - origin)")
        }
    }
}

import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireSim

@Suite("TickLoop")
struct TickLoopTests {
    @Test("runs exactly rate ticks per simulated second", arguments: [20, 30, 60, 64])
    func ticksPerSecond(rate: Int) {
        let clock = VirtualClock()
        let loop = TickLoop(rate: rate, clock: clock)
        var ticks: [UInt64] = []
        // Advance in awkward 7 ms steps for one second.
        for _ in 0...143 {
            loop.advance { tick, _ in ticks.append(tick) }
            clock.advance(by: .milliseconds(7))
        }
        // The last call is at 143 × 7 ms = 1.001 s: tick zero plus one per period.
        #expect(ticks.count == rate + 1, "a \(rate) Hz loop over 1.001 s should run \(rate + 1) ticks, ran \(ticks.count)")
        #expect(ticks == Array(0..<UInt64(ticks.count)), "tick numbers must be consecutive")
    }

    @Test("after a stall catches up at most the bound and reports the dropped ticks")
    func boundedCatchUp() {
        let clock = VirtualClock()
        let loop = TickLoop(rate: 20, clock: clock, maximumCatchUp: 3)
        loop.advance { _, _ in }
        clock.advance(by: .seconds(1))  // 20 ticks due
        var ran = 0
        let result = loop.advance { _, _ in ran += 1 }
        #expect(result.ticksRun == 3)
        #expect(result.ticksDropped == 17)
        #expect(ran == 3)
        #expect(loop.statistics.ticksDropped == 17)
        // The schedule moved on: the next tick is due one period after the present, not in the past.
        #expect(loop.nextDeadline == Timestamp(seconds: 1.05))
        #expect(loop.advance { _, _ in }.ticksRun == 0, "no tick is due right after catching up")
    }

    @Test("deadlines stay exact over an hour at 60 Hz: no drift")
    func noDriftOverAnHour() {
        let clock = VirtualClock()
        let loop = TickLoop(rate: 60, clock: clock)
        var generator = SplitMix64(seed: 7)
        var count: UInt64 = 0
        // Sleep to each deadline, then simulate a tick that takes 0–10 ms.
        loop.run(until: { count >= 60 * 3600 }) { _, _ in
            count += 1
            clock.advance(by: .microseconds(Int64(generator.next() % 10_000)))
        }
        #expect(loop.tick == 216_000)
        // Tick 216 000 is due at exactly 3600 s.
        #expect(loop.nextDeadline == Timestamp(seconds: 3600), "deadline after an hour is \(loop.nextDeadline), expected exactly 3600 s")
        #expect(loop.statistics.ticksDropped == 0)
    }

    @Test("keeps tick duration percentiles and counts overruns")
    func statistics() {
        let clock = VirtualClock()
        let loop = TickLoop(rate: 100, clock: clock)  // 10 ms period
        var index = 0
        for _ in 0..<100 {
            clock.sleep(until: loop.nextDeadline)
            loop.advance { _, _ in
                index += 1
                // Tick i takes 0.1 ms × i (0.1–10 ms), except tick 50, which takes 15 ms.
                clock.advance(by: .microseconds(index == 50 ? 15_000 : Int64(index) * 100))
            }
        }
        let stats = loop.statistics
        #expect(stats.ticksRun == 100)
        #expect(stats.overruns == 1, "only the 15 ms tick exceeds the 10 ms period")
        #expect(stats.maximum == .milliseconds(15))
        #expect(stats.p50 == .microseconds(5_000) || stats.p50 == .microseconds(5_100))
        #expect(stats.p99 >= .microseconds(9_900))
    }

    @Test("on the real clock, 10 ticks at 100 Hz take about 90 ms, sleeping rather than spinning")
    func realClockPacing() {
        let clock = MonotonicClock()
        let loop = TickLoop(rate: 100, clock: clock)
        var count = 0
        loop.run(until: { count >= 10 }) { _, _ in count += 1 }
        let elapsed = clock.now - loop.origin
        #expect(elapsed >= .milliseconds(90), "10 ticks at 100 Hz cannot finish before tick 9's deadline at 90 ms")
        #expect(elapsed < .milliseconds(200), "took \(elapsed); the loop is oversleeping")
    }
}

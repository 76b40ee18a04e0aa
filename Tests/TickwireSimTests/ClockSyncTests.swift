import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireSim

@Suite("ClockSync")
struct ClockSyncTests {
    @Test("converges on the true offset despite jitter and large outliers")
    func robustOffset() throws {
        var sync = ClockSync()
        var random = SplitMix64(seed: 11)
        let trueOffset = 12.345
        var local = 100.0
        for index in 0..<200 {
            let up = 0.05 + Double(random.next() % 20_000) / 1e6  // 50–70 ms
            var down = 0.05 + Double(random.next() % 20_000) / 1e6
            if index % 7 == 0 { down += 0.4 }  // an outlier: a delayed pong
            let server = local + up + trueOffset
            sync.addSample(sent: local, serverTime: server, received: local + up + down)
            local += 0.5
        }
        let offset = try #require(sync.offset)
        #expect(abs(offset - trueOffset) < 0.012, "offset \(offset) should be within 12 ms (the jitter bound) of \(trueOffset)")
        #expect(abs(sync.roundTrip - 0.12) < 0.03, "median round trip \(sync.roundTrip) should be near 120 ms")
        #expect(sync.jitter > 0)
    }

    @Test("the estimate moves smoothly, and snaps after a large change")
    func smoothingAndSnap() {
        var sync = ClockSync()
        sync.addSample(sent: 0, serverTime: 10.05, received: 0.1)
        #expect(abs((sync.offset ?? 0) - 10) < 1e-9)
        // A faster exchange (80 ms) is trusted more: its offset 10.02 becomes the robust one.
        sync.addSample(sent: 1, serverTime: 11.06, received: 1.08)
        let moved = sync.offset ?? 0
        #expect(moved > 10 && moved < 10.02, "a small change is followed gradually, got \(moved)")
        for step in 0..<20 { sync.addSample(sent: 2 + Double(step), serverTime: 52.05 + Double(step), received: 2.1 + Double(step)) }
        #expect(abs((sync.offset ?? 0) - 50) < 1e-9, "a jump of 40 s is adopted at once once it dominates")
        sync.reset()
        #expect(sync.offset == nil)
    }
}

@Suite("InterpolationDelay and PlaybackClock")
struct PlaybackTests {
    @Test("the delay grows with jitter and stays within its bounds")
    func adaptiveDelay() {
        var steady = InterpolationDelay(snapshotInterval: 0.05)
        var jittery = InterpolationDelay(snapshotInterval: 0.05)
        var random = SplitMix64(seed: 3)
        for index in 0..<200 {
            let server = Double(index) * 0.05
            steady.recordArrival(serverTime: server, arrival: server + 0.1)
            jittery.recordArrival(serverTime: server, arrival: server + 0.1 + Double(random.next() % 40_000) / 1e6)
        }
        #expect(abs(steady.target - 0.2) < 1e-9, "on a steady link the delay is the 100 ms age plus two snapshot intervals")
        #expect(jittery.target > steady.target + 0.03, "jitter of up to 40 ms should add to the delay (got \(jittery.target))")
        #expect(jittery.target <= jittery.maximum)
    }

    @Test("the playback rate stays within ±5% and pulls the render time to its target")
    func rateNudging() {
        var clock = PlaybackClock()
        clock.advance(by: 0, target: 1.0)
        // The target runs 20 ms ahead of real time: the clock speeds up to catch it.
        var target = 1.0
        var rates: [Double] = []
        for _ in 0..<300 {
            target += 0.016
            let time = clock.advance(by: 0.016, target: target + 0.02)
            rates.append(clock.rate)
            _ = time
        }
        #expect(rates.allSatisfy { abs($0 - 1) <= 0.05 + 1e-12 }, "the rate never changes by more than 5%")
        #expect(rates.prefix(5).allSatisfy { $0 > 1 }, "behind its target, the clock speeds up")
        #expect(abs((clock.renderTime ?? 0) - (target + 0.02)) < 0.002, "after 5 s the render time has caught up")
        clock.advance(by: 0.016, target: target + 5)
        #expect(clock.renderTime == target + 5, "a 5 s error snaps")
    }
}

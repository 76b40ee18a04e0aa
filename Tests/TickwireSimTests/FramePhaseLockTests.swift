import Testing

@testable import TickwireSim

@Suite("FramePhaseLock")
struct FramePhaseLockTests {
    static let period = 1.0 / 30

    /// Frames every `period` plus the lock's move, snapshots arriving every period at `arrivalPhase`
    /// (seconds after 0); returns the time since the newest arrival at each frame.
    static func play(lock: FramePhaseLock, firstFrame: Double, arrivalPhase: Double, frames: Int, jitter: Double = 0) -> [Double] {
        var frame = firstFrame
        var sinces: [Double] = []
        for _ in 0..<frames {
            let arrivals = ((frame - arrivalPhase) / period).rounded(.down)
            let since = frame - (arrivalPhase + arrivals * period)
            sinces.append(since)
            frame += period + lock.adjustment(sinceSnapshot: since, period: period, jitter: jitter)
        }
        return sinces
    }

    @Test("from any phase, frames settle a lead after the arrivals within a second", arguments: [0.0, 0.005, 0.016, 0.025, 0.033])
    func settles(firstFrame: Double) {
        let sinces = Self.play(lock: FramePhaseLock(), firstFrame: firstFrame, arrivalPhase: 0.0101, frames: 30)
        for since in sinces.suffix(5) {
            #expect(abs(since - 0.003) < 0.0005, "frames should land 3 ms after the arrivals, not \(since * 1000) ms")
        }
    }

    @Test("a frame just before the arrivals moves later, the shorter way round")
    func wrapsLater() {
        let lock = FramePhaseLock()
        let move = lock.adjustment(sinceSnapshot: Self.period - 0.001, period: Self.period)
        #expect(move > 0, "1 ms before the next arrival, the frame should wait for it, but moved \(move * 1000) ms")
        let sinces = Self.play(lock: lock, firstFrame: 0.0091, arrivalPhase: 0.0101, frames: 4)
        #expect(sinces.last.map { $0 < 0.006 } == true, "four frames should reach the arrivals going later: \(sinces)")
    }

    @Test("one frame moves at most the maximum step")
    func boundedStep() {
        let lock = FramePhaseLock(maximumStep: 0.002)
        #expect(lock.adjustment(sinceSnapshot: 0.015, period: Self.period) == -0.002)
        #expect(lock.adjustment(sinceSnapshot: 0.020, period: Self.period) == 0.002)
        #expect(abs(lock.adjustment(sinceSnapshot: 0.004, period: Self.period) - -0.0005) < 1e-12)
    }

    @Test("no snapshot in the last period, or none yet, moves nothing")
    func noSnapshot() {
        let lock = FramePhaseLock()
        #expect(lock.adjustment(sinceSnapshot: nil, period: Self.period) == 0)
        #expect(lock.adjustment(sinceSnapshot: Self.period, period: Self.period) == 0)
        #expect(lock.adjustment(sinceSnapshot: 0.25, period: Self.period) == 0)
        #expect(lock.adjustment(sinceSnapshot: 0.01, period: 0) == 0)
    }

    @Test("jitter lengthens the lead by twice itself, up to half a period")
    func jitterLead() {
        let lock = FramePhaseLock()
        let sinces = Self.play(lock: lock, firstFrame: 0, arrivalPhase: 0.002, frames: 40, jitter: 0.004)
        #expect(sinces.last.map { abs($0 - 0.011) < 0.0005 } == true, "3 ms + 2 × 4 ms jitter = 11 ms, not \(sinces.last ?? -1)")
        let capped = Self.play(lock: lock, firstFrame: 0, arrivalPhase: 0.002, frames: 40, jitter: 0.05)
        #expect(capped.last.map { abs($0 - Self.period / 2) < 0.0005 } == true, "the lead stops at half a period: \(capped.last ?? -1)")
    }

    @Test("the rate stays the server's: once locked, frames keep their period")
    func keepsRate() {
        let lock = FramePhaseLock()
        var frame = 0.0
        var times: [Double] = []
        for _ in 0..<120 {
            let since = (frame - 0.0101).truncatingRemainder(dividingBy: Self.period)
            let positive = since < 0 ? since + Self.period : since
            times.append(frame)
            frame += Self.period + lock.adjustment(sinceSnapshot: positive, period: Self.period)
        }
        let lastSecond = times.suffix(31)
        let mean = ((lastSecond.last ?? 0) - (lastSecond.first ?? 0)) / 30
        #expect(abs(mean - Self.period) < 1e-5, "the locked period should be the snapshots' \(Self.period), not \(mean)")
    }
}

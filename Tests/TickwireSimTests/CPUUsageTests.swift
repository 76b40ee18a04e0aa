import Testing

@testable import TickwireSim

@Suite("CPUUsage")
struct CPUUsageTests {
    @Test("busy work shows as CPU time and a share between 0 and the core count")
    func busyWork() {
        let clock = MonotonicClock()
        var usage = CPUUsage(now: clock.now)
        let before = CPUUsage.processTime()
        // Spin for about 50 ms of wall time (bounded by the clock, not by a sleep).
        var sink: UInt64 = 0
        let end = clock.now + .milliseconds(50)
        while clock.now < end { for step in 0..<1000 { sink &+= UInt64(step) &* 31 } }
        let share = usage.sample(now: clock.now)
        let used = CPUUsage.processTime() - before
        #expect(sink != 1, "keep the spin loop")
        #expect(used > .milliseconds(10), "50 ms of spinning used \(used) of CPU")
        #expect(share > 0.2 && share < 8, "one spinning thread is a share near 1 (scheduling allowing), got \(share)")
    }

    @Test("no elapsed wall time gives a share of zero, not a division by zero")
    func zeroInterval() {
        var usage = CPUUsage(now: .zero)
        #expect(usage.sample(now: .zero) == 0)
    }
}

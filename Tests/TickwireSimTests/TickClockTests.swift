import Testing

@testable import TickwireSim

@Suite("TickClock")
struct TickClockTests {
    @Test("the virtual clock moves only when advanced, and never backwards")
    func virtualClockAdvances() {
        let clock = VirtualClock()
        #expect(clock.now == .zero)
        clock.advance(by: .milliseconds(50))
        #expect(clock.now == Timestamp(nanoseconds: 50_000_000))
        clock.advance(to: Timestamp(nanoseconds: 10))
        #expect(clock.now == Timestamp(nanoseconds: 50_000_000), "advancing to an earlier time must not move the clock back")
        clock.sleep(until: Timestamp(seconds: 2))
        #expect(clock.now == Timestamp(seconds: 2), "sleeping on a virtual clock jumps to the deadline")
    }

    @Test("the monotonic clock sleeps to an absolute deadline, not much past it")
    func monotonicSleepIsPrecise() {
        let clock = MonotonicClock()
        let deadline = clock.now + .milliseconds(20)
        clock.sleep(until: deadline)
        let late = clock.now - deadline
        #expect(late >= .zero, "woke before the deadline")
        #expect(late < .milliseconds(15), "woke \(late) after the deadline; an absolute sleep should be within a few ms")
    }

    @Test("Duration and Timestamp arithmetic is exact in nanoseconds")
    func arithmetic() {
        #expect(Duration.milliseconds(1500).wholeNanoseconds == 1_500_000_000)
        #expect(Duration.secondsValue(0.25) == .milliseconds(250))
        #expect((Timestamp(seconds: 1) + .milliseconds(5)) - Timestamp(seconds: 1) == .milliseconds(5))
    }
}

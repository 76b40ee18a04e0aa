/// A fixed-rate tick loop driven by an accumulator over a ``TickClock``.
///
/// Tick *k* (counting from the loop's origin, plus any dropped ticks) is due at exactly
/// `origin + k × 1 s / rate`, computed in integer nanoseconds, so the schedule never
/// drifts: a late tick does not delay later deadlines. After a stall the loop catches up
/// by running at most ``maximumCatchUp`` ticks in one ``advance(step:)``; the rest are
/// dropped (the schedule moves forward) and reported, so a long pause does not turn into
/// a burst of hundreds of ticks.
///
/// Not thread-safe: one thread drives it.
final class TickLoop {
    /// Ticks per second.
    let rate: Int
    /// The most ticks run in one call to ``advance(step:)`` before the rest are dropped.
    let maximumCatchUp: Int
    /// The clock the loop reads and sleeps on.
    let clock: any TickClock
    /// The time of tick zero.
    let origin: Timestamp

    /// Ticks run so far; also the number the next tick will carry.
    private(set) var tick: UInt64 = 0
    private var scheduleIndex: Int64 = 0
    /// Duration and overrun statistics.
    private(set) var statistics = TickStatistics()

    /// The fixed time step, in seconds (`1 / rate`).
    var dt: Double { 1 / Double(rate) }

    /// The tick period, rounded to the nanosecond (for statistics; the schedule is exact).
    var period: Duration { .nanoseconds(1_000_000_000 / Int64(rate)) }

    /// What one call to ``advance(step:)`` did.
    struct Advance: Hashable, Sendable {
        /// Ticks run in this call.
        var ticksRun: Int
        /// Ticks dropped in this call because the loop had fallen too far behind.
        var ticksDropped: Int
    }

    /// Creates a loop at `rate` ticks per second whose first tick is due at once.
    ///
    /// - Parameters:
    ///   - rate: Ticks per second (clamped to 1...10 000).
    ///   - clock: The clock to read and sleep on.
    ///   - maximumCatchUp: The most ticks run back to back after a stall (at least 1).
    init(rate: Int, clock: any TickClock, maximumCatchUp: Int = 5) {
        self.rate = min(max(rate, 1), 10_000)
        self.clock = clock
        self.maximumCatchUp = max(1, maximumCatchUp)
        self.origin = clock.now
    }

    /// When the next tick is due.
    var nextDeadline: Timestamp {
        Timestamp(nanoseconds: origin.nanoseconds + deadlineOffset(scheduleIndex))
    }

    private func deadlineOffset(_ index: Int64) -> Int64 {
        // Exact: ⌈index × 1e9 / rate⌉, split to avoid overflow for very long runs. Rounding
        // up makes "deadline passed" and "tick due" (computed below by rounding down) agree.
        let rate = Int64(self.rate)
        let remainder = (index % rate) * 1_000_000_000
        return (index / rate) * 1_000_000_000 + (remainder + rate - 1) / rate
    }

    /// Runs every tick due by now (at most ``maximumCatchUp``; the excess is dropped).
    ///
    /// - Parameter step: Called once per tick with the tick number and `dt` in seconds.
    /// - Returns: How many ticks ran and how many were dropped.
    @discardableResult
    func advance(step: (_ tick: UInt64, _ dt: Double) -> Void) -> Advance {
        let now = clock.now
        let elapsed = now.nanoseconds - origin.nanoseconds
        guard elapsed >= 0 else { return Advance(ticksRun: 0, ticksDropped: 0) }
        // Index of the newest tick whose deadline has passed, plus one.
        let rate = Int64(self.rate)
        let due = (elapsed / 1_000_000_000) * rate + ((elapsed % 1_000_000_000) * rate) / 1_000_000_000 + 1
        var pending = Int(max(0, due - scheduleIndex))
        var dropped = 0
        if pending > maximumCatchUp {
            dropped = pending - maximumCatchUp
            scheduleIndex += Int64(dropped)
            statistics.recordDropped(UInt64(dropped))
            pending = maximumCatchUp
        }
        for _ in 0..<pending {
            let started = clock.now
            step(tick, dt)
            statistics.record(clock.now - started, period: period)
            tick += 1
            scheduleIndex += 1
        }
        return Advance(ticksRun: pending, ticksDropped: dropped)
    }

    /// Runs the loop: sleeps to each deadline (never spinning) and steps, until `shouldStop` says so.
    ///
    /// `shouldStop` is checked before every sleep, so a loop whose condition becomes true
    /// stops within one tick period.
    ///
    /// - Parameters:
    ///   - shouldStop: Returns `true` to end the loop.
    ///   - step: Called once per tick with the tick number and `dt` in seconds.
    func run(until shouldStop: () -> Bool, step: (_ tick: UInt64, _ dt: Double) -> Void) {
        while !shouldStop() {
            clock.sleep(until: nextDeadline)
            advance(step: step)
        }
    }
}

@available(*, unavailable)
extension TickLoop: Sendable {}

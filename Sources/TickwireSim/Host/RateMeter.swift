/// Counts an amount (bytes, frames) per second of clock time: the total of the last
/// complete one-second window, so the figure is stable between reads.
struct RateMeter: Sendable {
    private var windowStart: Int64?
    private var current = 0
    /// The amount counted in the last complete second.
    private(set) var perSecond = 0
    /// The amount counted since the meter was created.
    private(set) var total = 0

    /// Creates a meter.
    init() {}

    /// Adds `amount` at time `now`.
    ///
    /// - Parameters:
    ///   - amount: The amount to count.
    ///   - now: The current time.
    mutating func add(_ amount: Int, at now: Timestamp) {
        roll(to: now)
        current += amount
        total += amount
    }

    /// Closes finished windows up to `now` (a quiet second reads as zero).
    ///
    /// - Parameter now: The current time.
    mutating func roll(to now: Timestamp) {
        guard let start = windowStart else {
            windowStart = now.nanoseconds
            return
        }
        let elapsed = now.nanoseconds - start
        guard elapsed >= 1_000_000_000 else { return }
        perSecond = elapsed >= 2_000_000_000 ? 0 : current
        current = 0
        windowStart = start + (elapsed / 1_000_000_000) * 1_000_000_000
    }
}

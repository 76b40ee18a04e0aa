/// The client's render timeline: a clock on the server's timeline that runs at a rate
/// nudged by a few percent so that it tracks `estimated server time − interpolation delay`
/// without jumps (the approach of Mirror's snapshot interpolation and of Glenn Fiedler's
/// articles).
///
/// When the render time lags its target the rate rises (up to `1 + maximumRateChange`),
/// when it leads, the rate falls; an error beyond ``snapThreshold`` (start-up, a reconnect,
/// a long stall) is corrected by a jump. All times are in seconds.
struct PlaybackClock: Sendable {
    /// The largest change of playback rate, as a fraction (0.05 = ±5%).
    var maximumRateChange = 0.05
    /// Rate change per second of error (a 10 ms error at gain 2 gives 2%).
    var gain = 2.0
    /// An error larger than this (seconds) is corrected by jumping.
    var snapThreshold = 0.25

    /// The current render time on the server's timeline, or `nil` before the first update.
    private(set) var renderTime: Double?
    /// The current playback rate (1 = real time).
    private(set) var rate = 1.0

    /// Creates a playback clock that has not started.
    init() {}

    /// Advances the render time by `elapsed` local seconds and retunes the rate.
    ///
    /// - Parameters:
    ///   - elapsed: Local seconds since the last call.
    ///   - target: Where the render time should be: estimated server time − delay.
    /// - Returns: The new render time.
    @discardableResult
    mutating func advance(by elapsed: Double, target: Double) -> Double {
        guard var time = renderTime else {
            renderTime = target
            return target
        }
        time += max(0, elapsed) * rate
        let error = target - time
        if abs(error) > snapThreshold {
            time = target
            rate = 1
        } else {
            rate = 1 + min(max(error * gain, -maximumRateChange), maximumRateChange)
        }
        renderTime = time
        return time
    }

    /// Forgets the timeline (after a reconnect): the next ``advance(by:target:)`` starts afresh.
    mutating func reset() {
        renderTime = nil
        rate = 1
    }
}

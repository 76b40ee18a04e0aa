extension Duration {
    /// The duration in whole nanoseconds, clamped to 0 for negative durations: the unit of
    /// `MonotonicTime` and of the event loop's timers.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }
}

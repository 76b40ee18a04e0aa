// What the net graph reads from the clock estimate's window, without touching the estimation.
extension ClockSync {
    /// The longest round trip among the window's samples (the last ``windowSize`` pongs), in
    /// seconds; zero before the first sample.
    ///
    /// The median (``roundTrip``) is robust by design and so hides a stall: while a few pongs
    /// take 300 ms, the median of 16 stays where the fast ones put it. This shows them.
    var worstRecentRoundTrip: Double { roundTrips.max() ?? 0 }

    /// How many samples the window holds now (at most ``windowSize``).
    var windowSampleCount: Int { roundTrips.count }
}

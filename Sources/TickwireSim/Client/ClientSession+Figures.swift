// The net graph's figures as one value: what a player sees, for apps, tests and scripts.
extension ClientSession {
    /// What the player experiences now: ping (median and recent worst), jitter, interpolation
    /// delay and buffer, totals of extrapolated frames and corrections, and the view's staleness
    /// (the newest snapshot's tick and age, the time since the last one arrived).
    ///
    /// Read it after ``render()``, once per frame: the buffer depth and the extrapolation count
    /// are as of the last frame drawn. When the connection measures its own link
    /// (``LinkStatisticsReporting``), ``NetGraphFigures/transport``, ``NetGraphFigures/loss``,
    /// ``NetGraphFigures/linkRoundTrip`` and ``NetGraphFigures/linkJitter`` are its figures (those
    /// of the last connection while reconnecting); otherwise they are `nil`.
    public var figures: NetGraphFigures {
        let now = clock.now
        var figures = NetGraphFigures()
        figures.time = now
        if clockSync.sampleCount > 0 {
            figures.roundTrip = clockSync.roundTrip
            figures.worstRoundTrip = clockSync.worstRecentRoundTrip
        }
        figures.roundTripSamples = clockSync.windowSampleCount
        figures.roundTripJitter = clockSync.jitter
        figures.interpolationDelay = delay.target
        figures.bufferDepth = playback.renderTime.map { buffer.depth(after: $0) } ?? buffer.count
        figures.framesRendered = counters.renderedFrames
        figures.extrapolatedFrames = counters.extrapolatedFrames
        figures.snapshotsReceived = counters.snapshotsReceived
        figures.predictionCorrections = smoother.corrections
        if latestSnapshot != nil, let tick = freshness.newestTick, let stamped = freshness.newestServerTime {
            figures.newestTick = tick
            figures.newestSnapshotAge = estimatedServerTime.map { $0 - stamped }
        }
        figures.timeSinceLastSnapshot = freshness.lastArrival.map { (now - $0).secondsValue }
        figures.inputDelay = inputDelays.latest
        figures.worstInputDelay = inputDelays.worst
        if let statistics = link?.linkStatistics {
            figures.transport = statistics.transport
            figures.loss = statistics.packetLoss
            figures.linkRoundTrip = statistics.roundTripTime
            figures.linkJitter = statistics.jitter
        }
        return figures
    }
}

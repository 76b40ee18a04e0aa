// The session's figures: counters, rates, clock and buffer state, and snapshot ages.
extension ClientSession {
    /// The most snapshot ages kept between calls to ``takeSnapshotAges()``; later ones are not recorded.
    public static var snapshotAgeCapacity: Int { 4096 }

    /// Takes the ages of the snapshots received since the last call: for each, the estimated
    /// server time at arrival minus the server time stamped in it, in seconds (only once the
    /// clock estimate has a ping sample; the estimate's error is in it, at most half a round trip).
    ///
    /// - Returns: The ages, in arrival order.
    public func takeSnapshotAges() -> [Double] {
        defer { snapshotAges.removeAll(keepingCapacity: true) }
        return snapshotAges
    }

    /// The session's figures now.
    public var metrics: ClientMetrics {
        var metrics = counters
        let now = clock.now
        bytesIn.roll(to: now)
        bytesOut.roll(to: now)
        metrics.roundTrip = clockSync.roundTrip
        metrics.serverHold = clockSync.hold
        metrics.roundTripJitter = clockSync.jitter
        metrics.snapshotJitter = delay.jitter
        metrics.interpolationDelay = delay.target
        metrics.bufferDepth = playback.renderTime.map { buffer.depth(after: $0) } ?? buffer.count
        metrics.playbackRate = playback.rate
        metrics.bytesInPerSecond = bytesIn.perSecond
        metrics.bytesOutPerSecond = bytesOut.perSecond
        metrics.bytesInTotal = bytesIn.total
        metrics.bytesOutTotal = bytesOut.total
        metrics.predictionCorrections = smoother.corrections
        metrics.largestCorrection = smoother.largestCorrection
        return metrics
    }
}

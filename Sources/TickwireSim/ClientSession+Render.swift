// What the app draws: the estimated server time and the interpolated, predicted view.
extension ClientSession {
    /// The estimated server time now, in seconds, if the session has heard from the server.
    public var estimatedServerTime: Double? {
        let now = clock.now.seconds
        if let time = clockSync.serverTime(at: now) { return time }
        return provisionalOffset.map { now + $0 }
    }

    /// The world to draw now: remote entities interpolated at `estimated server time −
    /// interpolation delay` (the render clock nudged to hold the buffer at its target),
    /// the local player predicted. Call once per frame; it also takes in arrived frames.
    ///
    /// - Returns: The view, or `nil` before the first snapshot.
    public func render() -> WorldView? {
        // Take in what arrived since the last tick: snapshots and pongs are used sooner.
        receive()
        let now = clock.now
        let elapsed = lastRender.map { (now - $0).secondsValue } ?? 0
        lastRender = now
        smoother.decay(by: elapsed)
        guard let serverNow = estimatedServerTime ?? buffer.newestTime else { return nil }
        let renderTime = playback.advance(by: elapsed, target: serverNow - delay.target)
        guard var view = buffer.sample(at: renderTime) else { return nil }
        buffer.discard(before: renderTime)
        if view.isExtrapolated { counters.extrapolatedFrames += 1 }
        if configuration.predictsLocalPlayer, let local = predictedLocalEntity {
            if let index = view.entities.firstIndex(where: { $0.id == local.id }) {
                view.entities[index] = local
            } else {
                let position = view.entities.firstIndex { $0.id > local.id } ?? view.entities.count
                view.entities.insert(local, at: position)
            }
        }
        return view
    }
}

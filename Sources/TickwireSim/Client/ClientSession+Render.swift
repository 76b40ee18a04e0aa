import TickwireCodec

// What the app draws: the estimated server time and the interpolated, predicted view.
extension ClientSession {
    /// The estimated server time now, in seconds, if the session has heard from the server.
    public var estimatedServerTime: Double? { serverTimeEstimate(at: clock.now) }

    /// The estimated server time at local time `local`, if the session has heard from the server.
    func serverTimeEstimate(at local: Timestamp) -> Double? {
        if let time = clockSync.serverTime(at: local.seconds) { return time }
        return provisionalOffset.map { local.seconds + $0 }
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
        counters.renderedFrames += 1
        if view.isExtrapolated { counters.extrapolatedFrames += 1 }
        if configuration.predictsLocalPlayer, let local = predictedLocalEntity {
            let position = view.insertionIndex(of: local.id)
            if position < view.entities.count && view.entities[position].id == local.id {
                // The prediction holds numbers only: the texts are the snapshot's (protocol 1.2).
                var predicted = local
                predicted.texts = view.entities[position].texts
                view.entities[position] = predicted
            } else {
                view.entities.insert(local, at: position)
            }
        }
        return view
    }

    /// The render time the session shows now, in ticks (what ``render()`` last showed, or
    /// `estimated server time − interpolation delay` before the first frame), as a lag-compensating
    /// host wants it with each input; `nil` before the first snapshot.
    public var renderTime: Message.RenderTime? {
        guard let time = playback.renderTime ?? estimatedServerTime.map({ $0 - delay.target }),
            let ticks = buffer.ticks(at: time)
        else { return nil }
        return Message.RenderTime(ticks: ticks)
    }

    /// Notes the render time of the input just recorded (sequence `sequence`).
    func recordRenderTime() {
        // Before the first snapshot there is nothing shown: claim tick 0, which the host replaces
        // by its own estimate.
        var claim = renderTime ?? Message.RenderTime(tick: 0)
        if let renderTimeClaim { claim = renderTimeClaim(claim) }
        inputRenderTimes.append(claim)
        let limit = configuration.frameLimits.maximumInputsPerMessage
        if inputRenderTimes.count > limit { inputRenderTimes.removeFirst(inputRenderTimes.count - limit) }
    }
}

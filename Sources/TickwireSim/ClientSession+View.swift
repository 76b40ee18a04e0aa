import TickwireCodec

extension ClientSession {
    /// Decodes a snapshot against its baseline, stores and acknowledges it, feeds the
    /// interpolation buffer, and reconciles the prediction. One decoded snapshot is shared
    /// (copy on write) by the history, ``latestSnapshot`` and the interpolation buffer.
    func take(_ message: Message.Snapshot, frameBytes: Int, now: Timestamp) {
        let snapshot: Snapshot
        switch received.receive(message, codec: codec, spare: &spareSnapshot) {
        case .stored(let decoded): snapshot = decoded
        case .undecodable:
            counters.snapshotsUndecodable += 1
            return
        case .stale: return
        }
        latestSnapshot = snapshot
        counters.snapshotsReceived += 1
        counters.lastSnapshotBytes = frameBytes
        if message.baselineTick == nil { counters.fullSnapshotsReceived += 1 }
        let serverTime = Double(message.serverTime) / 1e6
        if let estimate = clockSync.serverTime(at: now.seconds), snapshotAges.count < ClientSession.snapshotAgeCapacity {
            snapshotAges.append(estimate - serverTime)
        }
        buffer.insert(snapshot, serverTime: serverTime)
        delay.recordArrival(serverTime: serverTime, arrival: estimatedServerTime ?? serverTime)
        lastProcessedInput = message.lastProcessedInput
        prediction.acknowledge(upTo: message.lastProcessedInput)
        if configuration.predictsLocalPlayer { reconcile(with: snapshot, lastProcessed: message.lastProcessedInput) }
    }

    private func reconcile(with snapshot: Snapshot, lastProcessed: UInt32) {
        guard let me = clientID else { return }
        let authoritative = game.restore(from: snapshot)
        guard game.entityID(of: me, in: authoritative) != nil else {
            predictedState = nil
            return
        }
        let before = predictedState.flatMap { localEntity(in: $0) }
        let dt = 1 / Double(tickRate)
        var replay = prediction
        let reconciled = replay.reconcile(authoritative: authoritative, lastProcessed: lastProcessed) { state, input in
            game.step(state, inputs: [me: input], dt: dt)
        }
        predictedState = reconciled
        if let before, let after = localEntity(in: reconciled), before.typeIndex == after.typeIndex {
            let kinds = game.schema.entityTypes[after.typeIndex].fields.map(\.kind)
            smoother.correct(from: before.values, to: after.values, kinds: kinds, threshold: 1e-6)
        }
    }

    /// The local player's entity in a (predicted) world, quantized as a snapshot would carry it.
    func localEntity(in state: G.State) -> EntityView? {
        guard let me = clientID, let id = game.entityID(of: me, in: state) else { return nil }
        var snapshot = Snapshot(schema: game.schema, tick: 0)
        do { try game.capture(state, into: &snapshot) } catch { return nil }
        guard let index = snapshot.index(of: id) else { return nil }
        let type = snapshot.typeIndex(at: index)
        return EntityView(id: id, typeIndex: type, values: game.schema.entityTypes[type].fields.indices.map { snapshot.double(at: index, field: $0) })
    }

    /// The predicted local player as it is displayed (prediction plus the decaying correction offset).
    public var predictedLocalEntity: EntityView? {
        guard let state = predictedState, var entity = localEntity(in: state) else { return nil }
        let kinds = game.schema.entityTypes[entity.typeIndex].fields.map(\.kind)
        entity.values = smoother.display(entity.values, kinds: kinds)
        return entity
    }

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

    /// The session's figures now.
    public var metrics: ClientMetrics {
        var metrics = counters
        let now = clock.now
        bytesIn.roll(to: now)
        bytesOut.roll(to: now)
        metrics.roundTrip = clockSync.roundTrip
        metrics.roundTripJitter = clockSync.jitter
        metrics.snapshotJitter = delay.jitter
        metrics.interpolationDelay = delay.target
        metrics.bufferDepth = playback.renderTime.map { buffer.depth(after: $0) } ?? buffer.count
        metrics.playbackRate = playback.rate
        metrics.bytesInPerSecond = bytesIn.perSecond
        metrics.bytesOutPerSecond = bytesOut.perSecond
        metrics.predictionCorrections = smoother.corrections
        metrics.largestCorrection = smoother.largestCorrection
        return metrics
    }
}

import TickwireCodec

// Taking a received snapshot into the session: history, acknowledgement, clock samples,
// interpolation buffer, then reconciliation (ClientSession+Prediction.swift).
extension ClientSession {
    /// Decodes a snapshot against its baseline, stores and acknowledges it, feeds the
    /// interpolation buffer, and reconciles the prediction. One decoded snapshot is shared
    /// (copy on write) by the history, ``latestSnapshot`` and the interpolation buffer.
    ///
    /// `arrivedAt` is when the frame came off the connection, not when this drain took it: the
    /// time since the last snapshot and its age on arrival are the network's, without the
    /// client's own wait for its next frame.
    func take(_ message: Message.Snapshot, frameBytes: Int, arrivedAt: Timestamp) {
        let snapshot: Snapshot
        switch received.receive(message, codec: codec, coding: deltaCoding, spare: &spareSnapshot) {
        case .stored(let decoded): snapshot = decoded
        case .undecodable:
            counters.snapshotsUndecodable += 1
            configuration.logSink.log(
                .warning, "could not decode a snapshot (its baseline is gone, or its data is bad); it was dropped",
                metadata: ["tick": "\(message.tick)", "baseline": message.baselineTick.map { "\($0)" } ?? "none"], source: "client")
            return
        case .stale: return
        }
        latestSnapshot = snapshot
        counters.snapshotsReceived += 1
        counters.lastSnapshotBytes = frameBytes
        if message.baselineTick == nil { counters.fullSnapshotsReceived += 1 }
        let serverTime = Double(message.serverTime) / 1e6
        freshness.recordSnapshot(tick: snapshot.tick, serverTime: serverTime, arrival: arrivedAt)
        if let estimate = clockSync.serverTime(at: arrivedAt.seconds), snapshotAges.count < ClientSession.snapshotAgeCapacity {
            snapshotAges.append(estimate - serverTime)
        }
        buffer.insert(snapshot, serverTime: serverTime)
        // The delay learns from when a frame takes the snapshot in, not from its arrival: a
        // snapshot can be drawn only from then, so a client's own frame phase belongs in it.
        delay.recordArrival(serverTime: serverTime, arrival: estimatedServerTime ?? serverTime)
        lastProcessedInput = message.lastProcessedInput
        inputDelays.applied(upTo: message.lastProcessedInput, serverTime: serverTime, clockOffset: clockSync.offset ?? provisionalOffset)
        prediction.acknowledge(upTo: message.lastProcessedInput)
        if configuration.predictsLocalPlayer { reconcile(with: snapshot, lastProcessed: message.lastProcessedInput) }
    }
}

import TickwireCodec

/// What became of a received snapshot message (see ``SnapshotHistory/receive(_:codec:spare:)``).
enum SnapshotReceipt {
    /// Decoded and stored: the new newest snapshot.
    case stored(Snapshot)
    /// Its baseline is no longer held, its delta's header disagrees with the message, or its
    /// delta did not decode.
    case undecodable
    /// Decoded, but not newer than the newest snapshot held; not stored.
    case stale
}

extension SnapshotHistory {
    /// Decodes a snapshot message against the baseline it names (and, in the motion-predicted
    /// coding, the motion kept with it) and stores the result with its new motion.
    ///
    /// The delta is decoded into `spare` (a new snapshot when it is `nil`), whose storage is
    /// reused when nothing else holds it; `spare` then receives the snapshot the history
    /// dropped to make room, or the one decoded when it was not stored, for the next call.
    /// Kept out of the generic ``ClientSession`` so that snapshot copies here are direct.
    ///
    /// - Parameters:
    ///   - message: The snapshot message.
    ///   - codec: The codec of the session's schema and limits.
    ///   - coding: How the host codes its deltas (from the welcome).
    ///   - spare: Storage to decode into, and afterwards storage for the next call.
    /// - Returns: What became of the snapshot.
    mutating func receive(_ message: Message.Snapshot, codec: SnapshotCodec, coding: DeltaCoding, spare: inout Snapshot?) -> SnapshotReceipt
    {
        // The delta's own header repeats the message's tick and baseline (PROTOCOL.md 5.6): a
        // delta that disagrees is one no encoder writes, refused before any baseline is looked up.
        // Counted by the caller as any undecodable snapshot is.
        do {
            let header = try SnapshotCodec.header(of: message.delta)
            guard header == SnapshotHeader(tick: message.tick, baselineTick: message.baselineTick) else { return .undecodable }
        } catch {
            return .undecodable
        }
        var baseline: Snapshot?
        var baselineMotion = SnapshotMotion.zero
        if let baselineTick = message.baselineTick {
            guard let stored = snapshot(at: baselineTick) else { return .undecodable }
            baseline = stored
            if coding.predictsMotion { baselineMotion = motion(at: baselineTick) }
        }
        var decoded = spare.take() ?? Snapshot(schema: codec.schema, tick: 0)
        var decodedMotion = SnapshotMotion.zero
        do {
            try codec.decode(
                message.delta, baseline: baseline, coding: coding, baselineMotion: baselineMotion, into: &decoded, motion: &decodedMotion)
        } catch {
            spare = decoded
            return .undecodable
        }
        baseline = nil
        if let newest = newestTick, decoded.tick &- newest >= 1 << 31 || decoded.tick == newest {
            spare = decoded
            return .stale
        }
        spare = store(decoded, motion: decodedMotion)
        return .stored(decoded)
    }
}

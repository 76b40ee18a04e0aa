import TickwireCodec

/// One tick's snapshot encodings, shared by the clients of a room without an interest filter.
///
/// Those clients all see the same snapshot, and the baseline of tick `b` they hold is the
/// snapshot the room sent at `b`, so two clients with the same coding and baseline tick get the
/// same bytes. In the motion-predicted coding the encoding also depends on the motion kept with
/// that baseline for the client, which is the baseline's motion against *its* baseline: the
/// key then also holds that motion's span (which names the baseline's baseline tick) and
/// whether it is kept at all (a whole snapshot's or an unchanged delta's zero motion is not),
/// so clients whose baselines were reached differently never share an encoding. The new
/// motion is shared with the bytes, so those clients also share its storage.
///
/// Not thread-safe: a room builds one per tick on its tick thread.
struct SharedSnapshotEncodings {
    private struct Key: Hashable {
        var coding: DeltaCoding
        /// The baseline's tick, or `nil` for a whole snapshot.
        var baselineTick: UInt32?
        /// The span of the baseline's motion (0 in the codings that do not predict).
        var motionSpan: UInt32
        /// Whether the baseline's motion holds values (`false` in the codings that do not predict).
        var hasMotionValues: Bool
    }

    private var encodings: [Key: (bytes: [UInt8], motion: SnapshotMotion)] = [:]

    /// The encoding of `view` against `baseline` in `coding`, made at the first call with its
    /// key this tick and shared by later ones.
    ///
    /// - Parameters:
    ///   - view: The room's snapshot of this tick (the same for every caller of a tick).
    ///   - baseline: The client's baseline, as the room sent it to that client, or `nil`.
    ///   - baselineMotion: The motion kept with `baseline` for that client (``SnapshotMotion/zero`` when none).
    ///   - coding: The client's coding.
    ///   - codec: The room's codec.
    /// - Returns: The bytes to send, and the motion to keep with `view` for the client.
    /// - Throws: ``CodecError`` from the encoder.
    mutating func encoding(
        of view: Snapshot, against baseline: Snapshot?, baselineMotion: SnapshotMotion, coding: DeltaCoding, codec: SnapshotCodec
    ) throws(CodecError) -> (bytes: [UInt8], motion: SnapshotMotion) {
        let predicts = coding.predictsMotion && baseline != nil
        let key = Key(
            coding: coding, baselineTick: baseline?.tick,
            motionSpan: predicts ? baselineMotion.span : 0, hasMotionValues: predicts && !baselineMotion.isZero)
        if let shared = encodings[key] { return shared }
        var motion = SnapshotMotion.zero
        let bytes = try codec.encode(view, against: baseline, coding: coding, baselineMotion: baselineMotion, motion: &motion)
        encodings[key] = (bytes, motion)
        return (bytes, motion)
    }
}

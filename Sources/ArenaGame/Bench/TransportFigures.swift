/// What one headless client experienced over one transport through the loss lab, computed from
/// its dumped frames (``TransportDump``) after a warm-up: the transport bench's figures.
///
/// Every figure is sampled at render frames (the client's ticks), as a player sees them:
/// - snapshot age: the newest snapshot's age at each frame (the dump's `age`: the estimated server
///   time now minus the time stamped in the snapshot; the clock estimate's error, at most half a
///   round trip, is in it), its p99 and its maximum;
/// - starved: the share of frames drawn by extrapolation past the newest snapshot;
/// - longest freeze: the longest local time without a new snapshot (the largest `since-snapshot`
///   seen at a frame; a freeze ends between two frames, so this is at most one frame short);
/// - bytes down: frame bytes the client received a second (WebSocket or UDP payloads, no IP/TCP
///   headers; the bench adds the relay's wire counts beside it);
/// - input to server: the dump's `input` at each frame, the newest applied input's time from the
///   client sending it to the server tick that applied it (``NetGraphFigures/inputDelay``: the
///   path one way, any resend that got it there, and the wait for the tick; the clock estimate's
///   error is in it too), and its p99 over the frames.
package struct TransportFigures: Hashable, Sendable, Codable {
    /// Frames in the measured window.
    package var frames: Int = 0
    /// Seconds the measured window spans.
    package var seconds: Double = 0
    /// The p99 of the newest snapshot's age at render time, ms.
    package var snapshotAgeP99: Double = 0
    /// The largest newest-snapshot age at render time, ms.
    package var snapshotAgeMax: Double = 0
    /// The median newest-snapshot age at render time, ms.
    package var snapshotAgeMedian: Double = 0
    /// The share of frames extrapolated (0...1).
    package var starvedShare: Double = 0
    /// The longest time without a new snapshot, ms.
    package var longestFreeze: Double = 0
    /// Snapshots received a second.
    package var snapshotsPerSecond: Double = 0
    /// Frame bytes received a second (payloads, as the client counts them).
    package var payloadBytesDownPerSecond: Double = 0
    /// The median of the ping figure (itself the median of the last 16 round trips) over the frames, ms.
    package var pingMedian: Double = 0
    /// The p99 over the frames of the worst of the last 16 round trips, ms.
    package var worstPingP99: Double = 0
    /// The p99 over the frames of the newest applied input's delay to the server tick, ms.
    package var inputToServerP99: Double = 0

    /// Figures of nothing measured, every one zero (a starting point for tests).
    static let empty = TransportFigures()

    private init() {}

    /// How ``inputToServerP99`` is measured, in words, for reports.
    package static let inputMethod =
        "p99 over the frames of the newest applied input's time from the client sending it to the server tick that applied it (the snapshot's tick time less the send time, on the client's estimate of the server clock)"

    /// Computes the figures of `frames` after a warm-up.
    ///
    /// The window opens `warmUp` seconds after the first frame that holds a snapshot; totals
    /// (frames drawn, extrapolated, snapshots, bytes) are differences against the last frame before it.
    ///
    /// - Parameters:
    ///   - frames: The client's frames, in order (``TransportDump/frames(in:)``).
    ///   - warmUp: Seconds left out after the first snapshot (the handshake, the clock estimate settling).
    /// - Throws: ``TransportFiguresError`` when no snapshot arrived, or the window holds fewer than two frames.
    package init(frames: [TransportDumpFrame], warmUp: Double) throws(TransportFiguresError) {
        guard let first = frames.firstIndex(where: { $0.snapshotAge != nil }) else { throw .noSnapshot(frames: frames.count) }
        let opens = frames[first].time + warmUp
        guard let start = frames[first...].firstIndex(where: { $0.time >= opens }), start > 0 else {
            throw .windowTooShort(frames: frames.count, warmUp: warmUp)
        }
        let base = frames[start - 1]
        let window = frames[start...]
        guard let last = window.last, window.count >= 2, last.time > base.time else {
            throw .windowTooShort(frames: frames.count, warmUp: warmUp)
        }
        let ages = window.compactMap(\.snapshotAge)
        let seconds = last.time - base.time
        self.frames = window.count
        self.seconds = seconds
        snapshotAgeP99 = Self.percentile(ages, 0.99) ?? 0
        snapshotAgeMax = ages.max() ?? 0
        snapshotAgeMedian = Self.percentile(ages, 0.5) ?? 0
        let drawn = last.framesRendered - base.framesRendered
        starvedShare = drawn > 0 ? Double(last.extrapolatedFrames - base.extrapolatedFrames) / Double(drawn) : 0
        longestFreeze = window.compactMap(\.sinceSnapshot).max() ?? 0
        snapshotsPerSecond = Double(last.snapshotsReceived - base.snapshotsReceived) / seconds
        if let before = base.bytesReceived, let after = last.bytesReceived {
            payloadBytesDownPerSecond = Double(after - before) / seconds
        } else {
            payloadBytesDownPerSecond = 0
        }
        pingMedian = Self.percentile(window.compactMap(\.ping), 0.5) ?? 0
        worstPingP99 = Self.percentile(window.compactMap(\.worstPing), 0.99) ?? 0
        inputToServerP99 = Self.percentile(window.compactMap(\.inputDelay), 0.99) ?? 0
    }

    /// The nearest-rank percentile `p` (0...1) of `values`: the smallest value at or above which
    /// lie at least `p` of them; `nil` for no values.
    package static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// Why a dump yields no figures: no snapshot ever arrived, or too few frames after the warm-up.
package struct TransportFiguresError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Reason: Hashable, Sendable {
        case noSnapshot(frames: Int)
        case windowTooShort(frames: Int, warmUp: Double)
    }

    private let reason: Reason

    /// None of `frames` frames held a snapshot.
    static func noSnapshot(frames: Int) -> Self { Self(reason: .noSnapshot(frames: frames)) }

    /// Fewer than two of `frames` frames lie after the warm-up.
    static func windowTooShort(frames: Int, warmUp: Double) -> Self { Self(reason: .windowTooShort(frames: frames, warmUp: warmUp)) }

    package var description: String {
        switch reason {
        case .noSnapshot(let frames): "none of the client's \(frames) frames held a snapshot: it never got into the game"
        case .windowTooShort(let frames, let warmUp):
            "the client's \(frames) frames leave fewer than two after the \(warmUp) s warm-up: give it a longer --duration"
        }
    }
}

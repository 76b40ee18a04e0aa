import TickwireCodec

/// A bounded ring of snapshots by tick: the baselines a host can still encode against,
/// or the snapshots a client can still decode against, each with the motion that was coded
/// with it (``SnapshotMotion``: what a motion-predicted delta against it extrapolates).
///
/// Holds at most ``capacity`` snapshots, and only those within ``capacity`` ticks of the
/// newest (ticks count modulo 2^32, as on the wire).
struct SnapshotHistory: Sendable {
    /// The most snapshots held, and the largest tick distance from the newest.
    let capacity: Int
    private var slots: [Snapshot?]
    /// The motion kept with the snapshot of the same slot.
    private var motions: [SnapshotMotion]
    /// The newest tick stored, if any.
    private(set) var newestTick: UInt32?

    /// Creates an empty history.
    ///
    /// - Parameter capacity: The most snapshots kept (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = [Snapshot?](repeating: nil, count: self.capacity)
        motions = [SnapshotMotion](repeating: .zero, count: self.capacity)
    }

    /// Stores `snapshot` under its tick with no motion (``SnapshotMotion/zero``), replacing
    /// whatever held that slot.
    ///
    /// - Parameter snapshot: The snapshot.
    /// - Returns: The snapshot that held the slot, if any (no longer in the history): a
    ///   receiver may decode the next snapshot into it to reuse its storage.
    @discardableResult
    mutating func store(_ snapshot: Snapshot) -> Snapshot? {
        store(snapshot, motion: .zero)
    }

    /// Stores `snapshot` under its tick with the motion coded with it, replacing whatever held
    /// that slot.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot.
    ///   - motion: Its motion against the baseline it was coded against.
    /// - Returns: The snapshot that held the slot, if any, as ``store(_:)``.
    @discardableResult
    mutating func store(_ snapshot: Snapshot, motion: SnapshotMotion) -> Snapshot? {
        var replaced: Snapshot? = snapshot
        let slot = Int(snapshot.tick % UInt32(capacity))
        swap(&replaced, &slots[slot])
        motions[slot] = motion
        if let newest = newestTick {
            // Wrapping subtraction: a tick ahead of the newest within half the range is newer.
            if snapshot.tick &- newest < 1 << 31 { newestTick = snapshot.tick }
        } else {
            newestTick = snapshot.tick
        }
        return replaced
    }

    /// The snapshot of `tick`, if it is still held.
    ///
    /// - Parameter tick: The tick.
    /// - Returns: The snapshot, or `nil` when it was never stored or has been overwritten.
    func snapshot(at tick: UInt32) -> Snapshot? {
        guard let newest = newestTick, newest &- tick < UInt32(capacity) else { return nil }
        guard let stored = slots[Int(tick % UInt32(capacity))], stored.tick == tick else { return nil }
        return stored
    }

    /// The motion kept with the snapshot of `tick`.
    ///
    /// - Parameter tick: The tick.
    /// - Returns: The motion, or ``SnapshotMotion/zero`` when the snapshot is not held or was
    ///   stored without one.
    func motion(at tick: UInt32) -> SnapshotMotion {
        guard snapshot(at: tick) != nil else { return .zero }
        return motions[Int(tick % UInt32(capacity))]
    }

    /// Empties the history.
    mutating func removeAll() {
        slots = [Snapshot?](repeating: nil, count: capacity)
        motions = [SnapshotMotion](repeating: .zero, count: capacity)
        newestTick = nil
    }
}

import TickwireCodec

/// A bounded ring of snapshots by tick: the baselines a host can still encode against,
/// or the snapshots a client can still decode against.
///
/// Holds at most ``capacity`` snapshots, and only those within ``capacity`` ticks of the
/// newest (ticks count modulo 2^32, as on the wire).
struct SnapshotHistory: Sendable {
    /// The most snapshots held, and the largest tick distance from the newest.
    let capacity: Int
    private var slots: [Snapshot?]
    /// The newest tick stored, if any.
    private(set) var newestTick: UInt32?

    /// Creates an empty history.
    ///
    /// - Parameter capacity: The most snapshots kept (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = [Snapshot?](repeating: nil, count: self.capacity)
    }

    /// Stores `snapshot` under its tick, replacing whatever held that slot.
    ///
    /// - Parameter snapshot: The snapshot.
    /// - Returns: The snapshot that held the slot, if any (no longer in the history): a
    ///   receiver may decode the next snapshot into it to reuse its storage.
    @discardableResult
    mutating func store(_ snapshot: Snapshot) -> Snapshot? {
        var replaced: Snapshot? = snapshot
        swap(&replaced, &slots[Int(snapshot.tick % UInt32(capacity))])
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

    /// Empties the history.
    mutating func removeAll() {
        slots = [Snapshot?](repeating: nil, count: capacity)
        newestTick = nil
    }
}

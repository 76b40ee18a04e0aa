/// Gathers the motion of a snapshot while it is coded in the motion-predicted coding
/// (`Protocol/PROTOCOL.md` §4.5.6), in the slots of one ``EntropyScratch`` for the
/// snapshot, and makes the ``SnapshotMotion`` once at the end: a copy per list per snapshot,
/// instead of appends (each with its checks) per entity and field.
///
/// The allocation holds `2 × entities + values` slots: the ids, the starts and the values of up
/// to `entities` moving entities of `values` values in all. A delta's survivors fit: there are
/// at most as many as the baseline's entities, with as many values.
struct MotionBuilder {
    private var storage: UnsafeMutablePointer<Int64>?
    private var entityCapacity = 0
    private var valueCapacity = 0
    private var count = 0
    private var valueCount = 0

    /// A builder that gathers nothing (the codings that do not predict, and whole snapshots).
    static var inactive: MotionBuilder { MotionBuilder() }

    private init() {}

    /// The slots a builder for a delta against `baseline` needs.
    static func capacity(for baseline: borrowing Snapshot) -> Int {
        2 * baseline.count + baseline.liveValueCount
    }

    /// A builder over `storage`, which holds `slots` ≥ ``capacity(for:)`` slots for a baseline
    /// of `entities` entities.
    init(storage: UnsafeMutablePointer<Int64>, count slots: Int, entities: Int) {
        self.storage = storage
        entityCapacity = max(0, min(entities, slots / 2))
        valueCapacity = slots - 2 * entityCapacity
    }

    /// Whether this builder gathers a motion.
    var isActive: Bool { storage != nil }

    /// Where the next entity's `fields` values go (to be set, every one, before
    /// ``commit(id:fields:)``). Call only on an active builder.
    ///
    /// A delta's survivors always fit (see the type's comment), so a slot that does not is a
    /// bug in the coder, not bad input: it stops the program rather than write past the storage.
    @inline(__always)
    func slot(fields: Int) -> UnsafeMutablePointer<Int64> {
        guard let storage, count < entityCapacity, valueCount + fields <= valueCapacity else {
            preconditionFailure("a motion slot past the builder's capacity: \(count) of \(entityCapacity) entities")
        }
        return storage + 2 * entityCapacity + valueCount
    }

    /// Keeps the entity whose values were set in ``slot(fields:)`` (its id above every kept one).
    @inline(__always)
    mutating func commit(id: UInt32, fields: Int) {
        guard let storage else { return }
        storage[count] = Int64(id)
        storage[entityCapacity + count] = Int64(valueCount)
        count += 1
        valueCount += fields
    }

    /// The motion gathered, spanning `span` ticks.
    func motion(span: UInt32) -> SnapshotMotion {
        var motion = SnapshotMotion(span: span)
        guard let storage, count > 0 else { return motion }
        let entityCount = count
        motion.ids = Array(unsafeUninitializedCapacity: entityCount) { ids, initialized in
            for index in 0..<entityCount { ids[index] = UInt32(truncatingIfNeeded: storage[index]) }
            initialized = entityCount
        }
        let starts = storage + entityCapacity
        motion.starts = Array(unsafeUninitializedCapacity: entityCount) { buffer, initialized in
            for index in 0..<entityCount { buffer[index] = UInt32(truncatingIfNeeded: starts[index]) }
            initialized = entityCount
        }
        let values = storage + 2 * entityCapacity
        let valueCount = valueCount
        motion.deltas = Array(unsafeUninitializedCapacity: valueCount) { buffer, initialized in
            for index in 0..<valueCount { buffer[index] = values[index] }
            initialized = valueCount
        }
        return motion
    }
}

/// How a snapshot's entities moved since the baseline it was coded against: what the
/// motion-predicted entropy coding (`Protocol/PROTOCOL.md` §4.5.6) extrapolates the next
/// snapshot from.
///
/// Both ends keep one beside each snapshot they may use as a baseline: the decoder the motion
/// it computed while decoding the snapshot, the encoder the one it computed while encoding it
/// for that peer. It is a function of the snapshot and its own baseline, so the next snapshot
/// still decodes from its one acknowledged baseline (and what was kept with it).
///
/// For each survivor of the baseline (same id, same type) and each **motion field** (an
/// `integer` or `float` field at most 32 bits wide), the new quantized value minus the old;
/// every other value is 0. Kept sparsely: only the entities with a non-zero motion, in id
/// order, so its size follows the moving entities, not the world.
public struct SnapshotMotion: Sendable, Equatable {
    /// The ids of the entities with a non-zero motion, increasing.
    public internal(set) var ids: [UInt32]
    /// Where each of those entities' values start in ``deltas``.
    var starts: [UInt32]
    /// Per listed entity, one value per field of its type (0 for the fields that are not motion fields).
    public internal(set) var deltas: [Int64]
    /// The ticks the motion spans: the snapshot's baseline age (1 for a whole snapshot).
    public internal(set) var span: UInt32

    /// No motion at all (a whole snapshot's, or none known), spanning one tick.
    public static let zero = SnapshotMotion(span: 1)

    init(span: UInt32) {
        ids = []
        starts = []
        deltas = []
        self.span = span
    }

    /// Whether no entity moved.
    public var isZero: Bool { ids.isEmpty }

    /// The motion of entity `id`'s fields, or `nil` when it did not move.
    ///
    /// - Parameter id: An entity id.
    /// - Returns: One value per field of the entity's type.
    public func motion(ofEntity id: UInt32) -> ArraySlice<Int64>? {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        guard low < ids.count, ids[low] == id else { return nil }
        let end = low + 1 < starts.count ? Int(starts[low + 1]) : deltas.count
        return deltas[Int(starts[low])..<end]
    }

    /// Lists an entity's motion, one value per field of its type (its id above every listed one).
    @inline(__always)
    mutating func append(id: UInt32, _ values: UnsafeBufferPointer<Int64>) {
        ids.append(id)
        starts.append(UInt32(deltas.count))
        // One by one: a generic bulk append costs more than a type's few fields.
        for value in values { deltas.append(value) }
    }

    /// Adds the entities of `other`, none of them listed here, keeping the ids in order.
    mutating func merge(_ other: SnapshotMotion) {
        var merged = SnapshotMotion(span: span)
        var i = 0, j = 0
        while i < ids.count || j < other.ids.count {
            let takesOther = i == ids.count || (j < other.ids.count && other.ids[j] < ids[i])
            let source = takesOther ? other : self
            let index = takesOther ? j : i
            let end = index + 1 < source.ids.count ? Int(source.starts[index + 1]) : source.deltas.count
            source.deltas.withUnsafeBufferPointer {
                merged.append(id: source.ids[index], UnsafeBufferPointer(rebasing: $0[Int(source.starts[index])..<end]))
            }
            if takesOther { j += 1 } else { i += 1 }
        }
        self = merged
    }

    /// A cursor that finds the motion of entities asked for in increasing id order.
    struct Cursor {
        private var next = 0

        /// Where entity `id`'s `fields` values start in `motion.deltas`, or `nil` when it did not
        /// move. Ask in increasing id order.
        ///
        /// The coders read the values through an unchecked buffer, so this checks that they are
        /// there: a motion kept with another snapshot than the baseline is a caller's bug, and
        /// stops the program as an array read out of bounds would.
        @inline(__always)
        mutating func start(of id: UInt32, fields: Int, in motion: borrowing SnapshotMotion) -> Int? {
            while next < motion.ids.count && motion.ids[next] < id { next += 1 }
            guard next < motion.ids.count, motion.ids[next] == id else { return nil }
            let start = Int(motion.starts[next])
            precondition(start + fields <= motion.deltas.count, "a baseline motion that does not belong to the baseline")
            return start
        }
    }
}

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
/// every other value is 0. Laid out like ``Snapshot``'s values (one per field of each entity, in
/// entity order), or empty when every value is 0.
public struct SnapshotMotion: Sendable, Equatable {
    /// The per-value motion, laid out like the snapshot's values; empty when all are 0.
    public internal(set) var deltas: [Int64]
    /// The ticks the motion spans: the snapshot's baseline age (1 for a whole snapshot).
    public internal(set) var span: UInt32

    /// No motion at all (a whole snapshot's, or none known), spanning one tick.
    public static let zero = SnapshotMotion(deltas: [], span: 1)

    init(deltas: [Int64], span: UInt32) {
        self.deltas = deltas
        self.span = span
    }

    /// Whether every value is 0.
    public var isZero: Bool { deltas.allSatisfy { $0 == 0 } }

    /// The motion of value `index` of the snapshot's values (0 when none is kept).
    @inline(__always)
    func delta(at index: Int) -> Int64 {
        index < deltas.count ? deltas[index] : 0
    }
}

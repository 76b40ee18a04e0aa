/// The adaptive probabilities of one entropy-coded snapshot (`Protocol/PROTOCOL.md` §4.5.3):
/// a fixed global block, then one block per field of the schema (in type order, field order).
///
/// Every probability starts at one half for each snapshot, so a snapshot decodes from its one
/// baseline alone. A type's blocks are set up the first time the snapshot touches the type, so
/// a large schema costs only the types a snapshot uses. Its size is bounded by the schema:
/// ``globalCount`` plus ``perField`` probabilities (2 bytes each) per field, plus one per type.
/// It lives in one allocation per snapshot, made by the codec (``EntropyScratch``).
struct EntropyModels {
    // Global block.
    static let hasDestroyed = 0
    static let hasChanged = 1
    static let hasCreated = 2
    /// 8 contexts: the changed bits of the previous two survivors, and the entity's activity bit.
    static let changed = 3
    /// A 6-bit tree: the bucket of entity counts.
    static let countTree = 11
    /// A 6-bit tree: the bucket of id gaps.
    static let gapTree = 11 + 64
    /// An 8-bit tree: type indices.
    static let typeTree = 11 + 128
    /// A 6-bit tree: the bucket of the count of destroyed entities, less one.
    static let destroyedCountTree = 11 + 128 + 256
    /// A 6-bit tree: the bucket of the index gaps between destroyed baseline entities.
    static let destroyedGapTree = 11 + 128 + 256 + 64
    static let globalCount = 11 + 128 + 256 + 128

    // Per-field block.
    /// 6 contexts: (no field of the entity changed yet; some did but not the previous one; the
    /// previous one did) × the entity's activity bit.
    static let fieldChanged = 0
    /// The sign of a delta.
    static let sign = 6
    /// A tree of up to 3 bits (``directBucketBits(width:)``): the bucket (bit length − 1) of a
    /// delta's magnitude, or in a field wider than 8 bits ``escapedBucket`` for a bucket at least that.
    static let bucket = 7
    /// A tree of up to 6 bits (``escapeBits(width:)``): an escaped bucket, less ``escapedBucket``.
    static let bucketEscape = 7 + 8
    /// An 8-bit tree: values of fields at most 8 bits wide sent whole.
    static let whole = 7 + 8 + 64
    /// Motion-predicted coding only (§4.5.6), 12 contexts: the ``fieldChanged`` contexts × whether
    /// the field's predicted motion is non-zero.
    static let fieldChangedPredicted = 7 + 8 + 64 + 256
    /// Motion-predicted coding only: the sign of a residual whose predicted motion is positive
    /// (slot 0) or negative (slot 1).
    static let motionSign = 7 + 8 + 64 + 256 + 12
    static let perField = 7 + 8 + 64 + 256 + 12 + 2

    /// The table: the global block, the field blocks, then one readiness slot per type.
    let p: UnsafeMutablePointer<UInt16>
    private let fieldStarts: [Int]
    private let readyBase: Int
    /// Per type, the index of its first bool field (the **activity field**), or −1.
    let activityFields: [Int]

    /// The probabilities a table for `schema` holds (readiness slots included).
    static func tableSize(_ schema: Schema) -> Int {
        globalCount + schema.flatFields.count * perField + schema.layouts.count
    }

    /// Per type, the index of its first bool field, or −1.
    static func activityFields(_ schema: Schema) -> [Int] {
        schema.entityTypes.map { type in type.fields.firstIndex { $0.kind == .bool } ?? -1 }
    }

    /// Fresh models for one snapshot in `table`, which holds ``tableSize(_:)`` probabilities
    /// for `schema` and outlives the models (the caller allocates and frees it).
    init(table: UnsafeMutablePointer<UInt16>, schema: Schema, activityFields: [Int]) {
        p = table
        fieldStarts = schema.fieldStarts
        self.activityFields = activityFields
        readyBase = Self.globalCount + schema.flatFields.count * Self.perField
        table.initialize(repeating: RangeEncoder.initialProbability, count: Self.globalCount)
        (table + readyBase).initialize(repeating: 0, count: schema.layouts.count)
    }

    /// The index of field `field` of type `type`'s block.
    @inline(__always)
    func fieldBase(type: Int, field: Int) -> Int {
        Self.globalCount + (fieldStarts[type] + field) * Self.perField
    }

    /// Sets the blocks of `type`'s fields to their initial probabilities, once per snapshot.
    @inline(__always)
    func prepare(type: Int) {
        guard p[readyBase + type] == 0 else { return }
        p[readyBase + type] = 1
        let start = Self.globalCount + fieldStarts[type] * Self.perField
        let end = Self.globalCount + fieldStarts[type + 1] * Self.perField
        (p + start).initialize(repeating: RangeEncoder.initialProbability, count: end - start)
    }

    /// The bucket from which a field wider than 8 bits escapes to ``bucketEscape``: small
    /// buckets, the usual ones, cost three binary decisions whatever the field's width.
    static let escapedBucket = 7

    /// The bits of the bucket tree (``bucket``) of a field `width` bits wide: enough for
    /// `width − 1` up to 8 bits wide, 3 (buckets 0 … 6, and the escape) past that.
    @inline(__always)
    static func directBucketBits(width: Int) -> Int {
        min(3, 64 &- UInt64(width &- 1).leadingZeroBitCount)
    }

    /// The bits of the escape tree (``bucketEscape``) of a field `width` (> 8) bits wide:
    /// enough for its largest bucket `width − 1` less ``escapedBucket``.
    @inline(__always)
    static func escapeBits(width: Int) -> Int {
        64 &- UInt64(width &- 1 &- escapedBucket).leadingZeroBitCount
    }

    /// An entity's activity bit: its activity field's value in the baseline (0 for a type
    /// without one). The entity is of type `type`, and its baseline values start at `offset`
    /// in `values`.
    @inline(__always)
    func activity(type: Int, offset: Int, in values: UnsafeBufferPointer<UInt64>) -> Int {
        let field = activityFields[type]
        return field < 0 ? 0 : Int(values[offset &+ field] & 1)
    }
}

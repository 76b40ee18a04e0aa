/// Reads one snapshot in the entropy-coded delta format (`Protocol/PROTOCOL.md` §4.5).
///
/// Every entity count is checked against ``CodecLimits`` before it is used, and the room
/// reserved for entities is bounded by the bytes left, so a short hostile input cannot make
/// it allocate much. Every decoded value is checked against its field. As protocol 1.1 settles
/// it, the header's checks run in the order of §4.5.6 (the span of the baseline's motion after
/// the baseline checks), and the forms no encoder writes are refused: a payload that codes
/// nothing, a changed entity equal to its baseline, a positive half turn, a `predicted` bit of 0
/// where an encoder writes 1, a range code not ending at 0.
struct EntropyDeltaDecoder {
    let schema: Schema
    let limits: CodecLimits
    let bytes: [UInt8]
    private let models: EntropyModels
    /// The motion-predicted coding's prediction (§4.5.6); unused in the plain coding.
    private var prediction = MotionPrediction.unused
    /// Whether the coding is the motion-predicted one, and the baseline's motion in it.
    private var isPredictedCoding = false
    private var baselineMotion = SnapshotMotion.zero
    /// Gathers the decoded snapshot's motion (motion-predicted coding; inactive otherwise).
    private var motionBuilder = MotionBuilder.inactive
    /// Entities the delta destroyed and created again with the same type: survivors all the same (§4.5.6).
    private var recreatedMotion = SnapshotMotion.zero
    /// Finds the baseline's motion of each survivor, in id order.
    private var baselineCursor = SnapshotMotion.Cursor()
    /// The header's baseline age (1 for a whole snapshot): the span of the decoded snapshot's motion.
    private var age: UInt32 = 1
    /// Changed texts read while the values are borrowed, applied after: (key, bytes; empty removes).
    private var textUpdates: [(key: UInt64, bytes: [UInt8])] = []
    /// The baseline's texts while changes are decoded (empty when the schema has no text fields).
    private var baselineTexts: [UInt64: [UInt8]] = [:]

    init(schema: Schema, limits: CodecLimits, bytes: [UInt8], models: EntropyModels) {
        self.schema = schema
        self.limits = limits
        self.bytes = bytes
        self.models = models
    }

    /// Decodes the motion-predicted coding (§4.5.6) into `snapshot`, replacing its contents,
    /// and sets `snapshotMotion` to its motion. On error `snapshot` is left empty and the motion zero.
    mutating func decodePredicted(
        baseline: Snapshot?, baselineMotion: SnapshotMotion, into snapshot: inout Snapshot, motion snapshotMotion: inout SnapshotMotion,
        storage: UnsafeMutablePointer<Int64>, slots: Int
    ) throws(CodecError) {
        self.baselineMotion = baselineMotion
        isPredictedCoding = true
        motionBuilder = baseline.map { MotionBuilder(storage: storage, count: slots, entities: $0.count) } ?? .inactive
        snapshotMotion = .zero
        try decode(baseline: baseline, into: &snapshot)
        snapshotMotion = motionBuilder.motion(span: age)
        if !recreatedMotion.isZero { snapshotMotion.merge(recreatedMotion) }
        motionBuilder = .inactive
    }

    /// Decodes into `snapshot`, replacing its contents. On error `snapshot` is left empty.
    mutating func decode(baseline: Snapshot?, into snapshot: inout Snapshot) throws(CodecError) {
        if snapshot.schema.fingerprint != schema.fingerprint {
            snapshot = Snapshot(schema: schema, tick: 0)
        }
        snapshot.removeAll()
        do throws(CodecError) {
            try decodeEntities(baseline: baseline, into: &snapshot)
        } catch {
            snapshot.removeAll()
            throw error
        }
    }

    private mutating func decodeEntities(baseline: Snapshot?, into snapshot: inout Snapshot) throws(CodecError) {
        var header = BitReader(bytes)
        let tick = try header.readVarint32("snapshot tick")
        snapshot.tick = tick
        let hasBaseline = try header.readBool()
        var baselineTick: UInt32?
        var isPredicted = false
        if hasBaseline {
            let age = try header.readVarint32("baseline age")
            // Wrapping subtraction: ticks are counted modulo 2^32.
            baselineTick = tick &- age
            self.age = age
            if isPredictedCoding {
                // The header's own checks first, in the order of §4.5.6; the span needs the baseline.
                isPredicted = try header.readBool()
                if isPredicted && !(1...MotionPrediction.maximumTicks).contains(age) {
                    throw CodecError(
                        .valueOutOfRange(
                            what: "baseline age for prediction", value: "\(age)", allowed: "1...\(MotionPrediction.maximumTicks)"))
                }
            }
        }
        let isEmpty = try header.readBool()
        if isEmpty && isPredicted {
            throw CodecError(.valueOutOfRange(what: "predicted bit of an empty snapshot", value: "1", allowed: "0"))
        }
        let padding = (8 - header.bitPosition % 8) % 8
        guard try header.read(bits: padding) == 0 else {
            throw CodecError(.malformedRangeCode(atByte: header.bitPosition / 8 - 1))
        }
        if let baselineTick {
            guard let baseline else { throw CodecError(.baselineMissing(tick: baselineTick)) }
            guard baseline.tick == baselineTick else {
                throw CodecError(.baselineMismatch(expected: baselineTick, given: baseline.tick))
            }
            if isPredictedCoding { try checkPredictedBit(isPredicted, isEmpty: isEmpty) }
        }
        if isEmpty {
            // No payload: no entities, or the baseline's unchanged.
            guard header.bitPosition / 8 == bytes.count else {
                throw CodecError(.trailingData(bits: bytes.count * 8 - header.bitPosition))
            }
            if let baseline, hasBaseline {
                snapshot.reserve(entities: baseline.count, values: baseline.liveValueCount, headroom: true)
                snapshot.appendEntities(of: baseline, in: 0..<baseline.count)
            }
            return
        }
        var coder = try RangeDecoder(bytes, start: header.bitPosition / 8)
        if let baseline, hasBaseline {
            try decodeDelta(baseline: baseline, coder: &coder, into: &snapshot)
        } else {
            let count = try coder.decodeInteger(models: models.p + EntropyModels.countTree)
            // Protocol 1.1: a snapshot without entities is coded with isEmpty 1, never as a payload.
            guard count > 0 else {
                throw CodecError(
                    .valueOutOfRange(what: "entity count of a whole payload", value: "0", allowed: "1 or more (isEmpty codes 0)"))
            }
            try checkEntityCount(existing: 0, adding: count)
            try decodeWhole(count: Int(count), coder: &coder, into: &snapshot)
        }
        try coder.finish()
    }

    /// Checks the `predicted` bit against the baseline's motion (§4.5.6): 1 only when the span is
    /// in 1...255 (the age was checked with the header), and (protocol 1.1) 0 only where the encoder
    /// sets 0, that is, for an empty snapshot or an age or span outside 1...255.
    private mutating func checkPredictedBit(_ isPredicted: Bool, isEmpty: Bool) throws(CodecError) {
        let span = baselineMotion.span
        let isUsable = MotionPrediction.isUsable(age: age, span: span)
        if isPredicted && !isUsable {
            throw CodecError(
                .valueOutOfRange(
                    what: "span of the baseline's motion for prediction", value: "\(span)", allowed: "1...\(MotionPrediction.maximumTicks)")
            )
        }
        if !isPredicted && !isEmpty && isUsable {
            throw CodecError(
                .valueOutOfRange(
                    what: "predicted bit of a snapshot \(age) ticks after a baseline whose motion spans \(span)", value: "0",
                    allowed: "1 (an encoder predicts every non-empty snapshot it can)"))
        }
        prediction = MotionPrediction(age: age, span: span, isUsed: isPredicted)
    }

    private func checkEntityCount(existing: Int, adding count: UInt64) throws(CodecError) {
        guard UInt64(existing) + count <= UInt64(limits.maxEntities) else {
            throw CodecError(.tooManyEntities(count: UInt64(existing) + count, limit: limits.maxEntities))
        }
    }

    private mutating func decodeDelta(baseline: Snapshot, coder: inout RangeDecoder, into snapshot: inout Snapshot) throws(CodecError) {
        snapshot.reserve(entities: baseline.count, values: baseline.liveValueCount, headroom: true)
        let hasDestroyed = try coder.decode(&models.p[EntropyModels.hasDestroyed])
        if hasDestroyed {
            // Their count, then each one's baseline index as the gap after the previous one.
            let count = try coder.decodeInteger(models: models.p + EntropyModels.destroyedCountTree) + 1
            // More destroyed than the baseline holds: `tooManyEntities`, as in the bit-packed coding (§4.2).
            guard count <= UInt64(baseline.count) else {
                throw CodecError(.tooManyEntities(count: count, limit: baseline.count))
            }
            var following = 0
            for _ in 0..<Int(count) {
                let index = UInt64(following) + (try coder.decodeInteger(models: models.p + EntropyModels.destroyedGapTree))
                guard index < UInt64(baseline.count) else {
                    throw CodecError(
                        .valueOutOfRange(what: "destroyed entity index", value: "\(index)", allowed: "0..<\(baseline.count)"))
                }
                snapshot.appendEntities(of: baseline, in: following..<Int(index))
                following = Int(index) + 1
            }
            snapshot.appendEntities(of: baseline, in: following..<baseline.count)
        } else {
            snapshot.appendEntities(of: baseline, in: 0..<baseline.count)
        }

        let hasChanged = try coder.decode(&models.p[EntropyModels.hasChanged])
        if hasChanged {
            if schema.hasTextFields { baselineTexts = baseline.texts }
            // Changes are applied in place through a buffer, and everything else the loop reads
            // is read through buffers too (local copies: the loop mutates the snapshot's values
            // and the coder): no array checks per value.
            let types = snapshot.types, offsets = snapshot.offsets, ids = snapshot.ids
            let fields = schema.flatFields, motionDeltas = baselineMotion.deltas
            var anyChanged = false
            try types.withUnsafeBufferPointer { types throws(CodecError) in
                try offsets.withUnsafeBufferPointer { offsets throws(CodecError) in
                    try fields.withUnsafeBufferPointer { fields throws(CodecError) in
                        try motionDeltas.withUnsafeBufferPointer { motionDeltas throws(CodecError) in
                            try snapshot.values.withUnsafeMutableBufferPointer { values throws(CodecError) in
                                var history = 0
                                for index in 0..<ids.count {
                                    let type = Int(types[index]), offset = Int(offsets[index])
                                    // Read before this entity's changes are applied: still the baseline's value.
                                    let activity = models.activity(type: type, offset: offset, in: UnsafeBufferPointer(values))
                                    let changed = try coder.decode(&models.p[EntropyModels.changed &+ history &+ 4 &* activity])
                                    history = (history &<< 1 | (changed ? 1 : 0)) & 3
                                    if changed {
                                        anyChanged = true
                                        try decodeChanges(
                                            type: type, offset: offset, id: ids[index], activity: activity, coder: &coder,
                                            values: values, fields: fields, motionDeltas: motionDeltas)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            guard anyChanged else {
                throw CodecError(.valueOutOfRange(what: "changed entity bits", value: "all 0", allowed: "at least one 1"))
            }
            if !textUpdates.isEmpty {
                for update in textUpdates { snapshot.texts[update.key] = update.bytes.isEmpty ? nil : update.bytes }
                textUpdates.removeAll()
            }
        }

        let hasCreated = try coder.decode(&models.p[EntropyModels.hasCreated])
        // Protocol 1.1: a delta that changes nothing is coded with isEmpty 1, never as a payload.
        guard hasDestroyed || hasChanged || hasCreated else {
            throw CodecError(
                .valueOutOfRange(what: "section flags of a delta payload", value: "all 0", allowed: "at least one 1 (isEmpty codes none)"))
        }
        if hasCreated {
            let survivors = snapshot.count
            let count = try coder.decodeInteger(models: models.p + EntropyModels.countTree) + 1
            try checkEntityCount(existing: survivors, adding: count)
            try decodeWhole(count: Int(count), coder: &coder, into: &snapshot)
            if isPredictedCoding && survivors < baseline.count {
                recordMotionOfRecreated(from: survivors, in: snapshot, baseline: baseline)
            }
            if survivors > 0 && snapshot.count > survivors && snapshot.ids[survivors] <= snapshot.ids[survivors - 1] {
                try DeltaDecoder.mergeCreated(from: survivors, into: &snapshot)
            }
        }
    }

    /// Adds to the motion the created entities `from...` that the baseline holds with the same
    /// id and type: destroyed and created again on the wire, they are still survivors of the
    /// baseline (§4.5.6), and the encoder of the next delta counts their motion.
    private mutating func recordMotionOfRecreated(from start: Int, in snapshot: Snapshot, baseline: Snapshot) {
        var recreated = SnapshotMotion(span: age)
        var values: [Int64] = []
        for index in start..<snapshot.count {
            let id = snapshot.ids[index], type = Int(snapshot.types[index])
            guard let old = baseline.index(of: id), Int(baseline.types[old]) == type else { continue }
            let layouts = schema.layouts[type].fields
            let new = Int(snapshot.offsets[index]), was = Int(baseline.offsets[old])
            values.removeAll(keepingCapacity: true)
            for field in layouts.indices {
                values.append(
                    MotionPrediction.isMotionField(layouts[field])
                        ? Int64(snapshot.values[new + field]) - Int64(baseline.values[was + field]) : 0)
            }
            if values.contains(where: { $0 != 0 }) { values.withUnsafeBufferPointer { recreated.append(id: id, $0) } }
        }
        recreatedMotion = recreated
    }

    /// Decodes a changed survivor's fields and applies them in place (in the motion-predicted
    /// coding, each residual to its prediction from the same entity's motion in the baseline).
    /// The entity is `id`, of type `type`, whose values start at `offset` in `values`; `fields`
    /// are the schema's ``Schema/flatFields``, `motionDeltas` the baseline motion's values.
    private mutating func decodeChanges(
        type: Int, offset: Int, id: UInt32, activity: Int, coder: inout RangeDecoder, values: UnsafeMutableBufferPointer<UInt64>,
        fields: UnsafeBufferPointer<TypeLayout.FieldLayout>, motionDeltas: UnsafeBufferPointer<Int64>
    ) throws(CodecError) {
        models.prepare(type: type)
        let start = schema.fieldStarts[type]
        let fieldCount = schema.fieldStarts[type + 1] - start
        let predicts = prediction.isUsed
        let baselineStart = predicts ? baselineCursor.start(of: id, fields: fieldCount, in: baselineMotion) : nil
        let records = motionBuilder.isActive
        let slot: UnsafeMutablePointer<Int64>? = records ? motionBuilder.slot(fields: fieldCount) : nil
        let firstBase = models.fieldBase(type: type, field: 0)
        var moved = false
        var differs = false
        var state = 0
        for field in 0..<fieldCount {
            let base = firstBase &+ field &* EntropyModels.perField
            let layout = fields[start &+ field]
            let old = values[offset &+ field]
            let isMotionField = records && MotionPrediction.isMotionField(layout)
            var predicted = old
            var motion: Int64 = 0
            if isMotionField, let baselineStart {
                motion = prediction.scaled(motionDeltas[baselineStart &+ field])
                predicted = MotionPrediction.predicted(old: old, motion: motion, maxQuantized: layout.maxQuantized)
            }
            let changed: Bool
            if predicts {
                let context = state &+ 3 &* activity &+ (motion != 0 ? 6 : 0)
                changed = try coder.decode(&models.p[base &+ EntropyModels.fieldChangedPredicted &+ context])
            } else if field < fieldCount - 1 || state != 0 {
                changed = try coder.decode(&models.p[base &+ EntropyModels.fieldChanged &+ state &+ 3 &* activity])
            } else {
                changed = true
            }
            state = changed ? 2 : (state == 0 ? 0 : 1)
            if layout.deltaMode == .text {
                // Not a motion field: its motion is 0, changed or not.
                if records { slot?[field] = 0 }
                guard changed else { continue }
                // A changed text is sent whole and must differ from the old one, as a whole value must.
                let key = Snapshot.textKey(id: id, field: field)
                let text = try decodeText(layout, field: field, id: id, coder: &coder)
                guard text != baselineTexts[key] ?? [] else {
                    throw CodecError(
                        .valueOutOfRange(
                            what: "changed text field \(field) of entity \(id)", value: "its old text", allowed: "another text"))
                }
                textUpdates.append((key, text))
                differs = true
                continue
            }
            let new: UInt64
            if !changed {
                new = predicted
            } else if layout.deltaMode == .none {
                new = layout.width > 1 ? try decodeValue(layout, base: base, coder: &coder) : 1 &- old
                guard new != old, new <= layout.maxQuantized else {
                    throw CodecError(
                        .valueOutOfRange(
                            what: "changed field \(field) of entity \(id)", value: "\(new)",
                            allowed: "0...\(layout.maxQuantized) other than \(old)"))
                }
            } else {
                let sign = motion == 0 ? EntropyModels.sign : EntropyModels.motionSign + (motion > 0 ? 0 : 1)
                let (negative, magnitude) = try decodeDelta(
                    base: base, sign: sign, width: layout.width, coder: &coder)
                if layout.deltaMode == .wrapping {
                    // Centred deltas: -2^(width-1) ... 2^(width-1) - 1, so a half turn is negative (protocol 1.1).
                    let half: UInt64 = 1 << UInt64(layout.width - 1)
                    guard magnitude < half || (magnitude == half && negative) else {
                        throw CodecError(
                            .valueOutOfRange(
                                what: "wrapping delta of field \(field) of entity \(id)", value: "\(negative ? "-" : "+")\(magnitude)",
                                allowed: "-\(half)...\(half - 1)"))
                    }
                    // Wrapping arithmetic: angles live modulo 2^width.
                    new = (negative ? old &- magnitude : old &+ magnitude) & BitWriter.mask(layout.width)
                } else {
                    let inRange = negative ? magnitude <= predicted : magnitude <= layout.maxQuantized - predicted
                    guard inRange else {
                        throw CodecError(
                            .valueOutOfRange(
                                what:
                                    "field \(field) of entity \(id) after a delta of \(negative ? "-" : "+")\(magnitude) from \(predicted)",
                                value: "outside", allowed: "0...\(layout.maxQuantized)"))
                    }
                    new = negative ? predicted - magnitude : predicted + magnitude
                }
            }
            if isMotionField {
                let difference = Int64(new) - Int64(old)
                slot?[field] = difference
                moved = moved || difference != 0
            } else if records {
                slot?[field] = 0
            }
            if new != old {
                values[offset &+ field] = new
                differs = true
            }
        }
        // Protocol 1.1: a changed survivor differs from its baseline (a type without fields never does).
        guard differs else {
            throw CodecError(
                .valueOutOfRange(what: "changed entity \(id)", value: "equal to its baseline", allowed: "a value that differs"))
        }
        if moved { motionBuilder.commit(id: id, fields: fieldCount) }
    }

    /// Decodes a delta of a field `width` bits wide: its sign and magnitude (≥ 1): the bucket
    /// (the position of the leading one, escaped past 6 when the field is wider than 8 bits),
    /// then the bits below it, raw.
    ///
    /// - Throws: `.valueOutOfRange` for an escaped bucket the field cannot hold.
    @inline(__always)
    private mutating func decodeDelta(base: Int, sign: Int, width: Int, coder: inout RangeDecoder) throws(CodecError) -> (Bool, UInt64) {
        let negative = try coder.decodeUnpredictable(&models.p[base &+ sign]) == 1
        var bucket = Int(
            try coder.decodeTree(bits: EntropyModels.directBucketBits(width: width), models: models.p + (base &+ EntropyModels.bucket)))
        if width > 8 && bucket == EntropyModels.escapedBucket {
            bucket &+= Int(
                try coder.decodeTree(bits: EntropyModels.escapeBits(width: width), models: models.p + (base &+ EntropyModels.bucketEscape)))
            guard bucket < width else {
                throw CodecError(.valueOutOfRange(what: "delta bucket", value: "\(bucket)", allowed: "0...\(width - 1)"))
            }
        }
        let magnitude = 1 &<< UInt64(bucket) | (try coder.decodeRaw(count: bucket))
        return (negative, magnitude)
    }

    /// Decodes a whole value (not yet checked against the field's range).
    @inline(__always)
    private mutating func decodeValue(_ layout: TypeLayout.FieldLayout, base: Int, coder: inout RangeDecoder) throws(CodecError) -> UInt64 {
        guard layout.width <= 8 else { return try coder.decodeRaw(count: layout.width) }
        return try coder.decodeTree(bits: layout.width, models: models.p + base + EntropyModels.whole)
    }

    /// Decodes a text value (§4.5.4): its length raw (checked against the field's bound before any
    /// byte is read), its bytes raw, then checks they are UTF-8.
    private func decodeText(
        _ layout: TypeLayout.FieldLayout, field: Int, id: UInt32, coder: inout RangeDecoder
    ) throws(CodecError) -> [UInt8] {
        let length = try coder.decodeRaw(count: layout.width)
        try TextValue.checkLength(length, maxBytes: layout.maxQuantized, field: field, id: id)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        for _ in 0..<Int(length) { bytes.append(UInt8(truncatingIfNeeded: try coder.decodeRaw(count: 8))) }
        try TextValue.checkUTF8(bytes, field: field, id: id)
        return bytes
    }

    /// Decodes `count` whole entities and appends them (ids increasing).
    private mutating func decodeWhole(count: Int, coder: inout RangeDecoder, into snapshot: inout Snapshot) throws(CodecError) {
        // Room bounded by the input: a hostile count costs no more than the bytes that carry it.
        let room = min(count, 64 + 8 * bytes.count)
        snapshot.reserve(entities: snapshot.count + room, values: snapshot.values.count + room * schema.widestFieldCount)
        var previous: UInt64? = nil
        let typeCount = schema.layouts.count
        for _ in 0..<count {
            let gap = try coder.decodeInteger(models: models.p + EntropyModels.gapTree)
            let id = previous.map { $0 + 1 + gap } ?? gap
            guard id <= UInt64(UInt32.max) else {
                throw CodecError(.entityIDOutOfRange(previous: previous ?? 0, gap: gap))
            }
            previous = id
            var type = 0
            if schema.typeIndexBits > 0 {
                type = Int(try coder.decodeTree(bits: schema.typeIndexBits, models: models.p + EntropyModels.typeTree))
                guard type < typeCount else { throw CodecError(.unknownEntityType(index: UInt64(type), typeCount: typeCount)) }
            }
            models.prepare(type: type)
            let layout = schema.layouts[type]
            snapshot.ids.append(UInt32(id))
            snapshot.types.append(UInt8(type))
            snapshot.offsets.append(UInt32(snapshot.values.count))
            for field in 0..<layout.fieldCount {
                let fieldLayout = layout.fields[field]
                if fieldLayout.deltaMode == .text {
                    snapshot.values.append(0)
                    let text = try decodeText(fieldLayout, field: field, id: UInt32(id), coder: &coder)
                    if !text.isEmpty { snapshot.texts[Snapshot.textKey(id: UInt32(id), field: field)] = text }
                    continue
                }
                let value = try decodeValue(fieldLayout, base: models.fieldBase(type: type, field: field), coder: &coder)
                guard value <= fieldLayout.maxQuantized else {
                    throw CodecError(
                        .valueOutOfRange(what: "field \(field) value", value: "\(value)", allowed: "0...\(fieldLayout.maxQuantized)"))
                }
                snapshot.values.append(value)
            }
        }
    }
}

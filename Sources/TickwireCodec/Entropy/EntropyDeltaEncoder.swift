/// Writes one snapshot in the entropy-coded delta format (`Protocol/PROTOCOL.md` §4.5): the
/// bit-stream header of §4.1 padded to a byte, then one range-coded payload.
///
/// The caller (``SnapshotCodec``) has checked schemas and limits. Scratch lists and the model
/// table are per snapshot, never per entity.
struct EntropyDeltaEncoder {
    let schema: Schema
    private let models: EntropyModels
    private var coder: RangeEncoder
    /// The motion-predicted coding's prediction (§4.5.6); unused in the plain coding.
    private var prediction = MotionPrediction.unused
    /// The baseline's motion (motion-predicted coding; zero otherwise).
    private var baselineMotion = SnapshotMotion.zero
    /// Gathers the motion of the snapshot being coded (motion-predicted coding; inactive otherwise).
    private var motionBuilder = MotionBuilder.inactive
    /// Finds the baseline's motion of each survivor, in id order.
    private var baselineCursor = SnapshotMotion.Cursor()
    /// The texts of the snapshot being coded and of its baseline; empty when the schema has no text fields.
    private var currentTexts: [UInt64: [UInt8]] = [:]
    private var baselineTexts: [UInt64: [UInt8]] = [:]

    init(schema: Schema, models: EntropyModels) {
        self.schema = schema
        self.models = models
        self.coder = RangeEncoder(capacity: 0)
    }

    /// Encodes `snapshot` against `baseline` (whole when `nil`) and returns the bytes.
    mutating func encode(_ snapshot: Snapshot, against baseline: Snapshot?) -> [UInt8] {
        prediction = .unused
        return encodeSnapshot(snapshot, against: baseline, baselineMotion: nil)
    }

    /// Encodes `snapshot` against `baseline` in the motion-predicted coding (§4.5.6), and sets
    /// `motion` to its motion against `baseline`.
    /// `storage` holds ``MotionBuilder/capacity(for:)`` slots for `baseline` (at least one), for the call.
    mutating func encodePredicted(
        _ snapshot: Snapshot, against baseline: Snapshot?, baselineMotion: SnapshotMotion, motion snapshotMotion: inout SnapshotMotion,
        storage: UnsafeMutablePointer<Int64>, slots: Int
    ) -> [UInt8] {
        motionBuilder = baseline.map { MotionBuilder(storage: storage, count: slots, entities: $0.count) } ?? .inactive
        let bytes = encodeSnapshot(snapshot, against: baseline, baselineMotion: baselineMotion)
        // Wrapping subtraction: ticks are counted modulo 2^32.
        let span = baseline.map { snapshot.tick &- $0.tick } ?? 1
        snapshotMotion = motionBuilder.motion(span: span)
        motionBuilder = .inactive
        return bytes
    }

    private mutating func encodeSnapshot(_ snapshot: Snapshot, against baseline: Snapshot?, baselineMotion: SnapshotMotion?) -> [UInt8] {
        var header = BitWriter(capacity: 16)
        header.writeVarint(UInt64(snapshot.tick))
        header.write(baseline != nil)
        // Nothing to code (no entities, or the baseline's entities unchanged): the isEmpty bit, no payload.
        let isEmpty = baseline.map { Self.sameEntities(snapshot, $0) } ?? snapshot.isEmpty
        if let baseline {
            // Wrapping subtraction: ticks are counted modulo 2^32.
            let age = snapshot.tick &- baseline.tick
            header.writeVarint(UInt64(age))
            if let baselineMotion {
                let isUsed = !isEmpty && MotionPrediction.isUsable(age: age, span: baselineMotion.span)
                header.write(isUsed)
                prediction = MotionPrediction(age: age, span: baselineMotion.span, isUsed: isUsed)
                self.baselineMotion = baselineMotion
            }
        }
        header.write(isEmpty)
        if isEmpty { return header.bytes }
        if schema.hasTextFields {
            currentTexts = snapshot.texts
            baselineTexts = baseline?.texts ?? [:]
        }
        defer {
            if schema.hasTextFields {
                currentTexts = [:]
                baselineTexts = [:]
            }
        }
        // The payload follows the header, padded to a byte, in the same array.
        coder = RangeEncoder(prefix: header.bytes, capacity: 64 + snapshot.count)
        if let baseline {
            encodeDelta(snapshot, against: baseline)
        } else {
            coder.encodeInteger(UInt64(snapshot.count), models: models.p + EntropyModels.countTree)
            var previous: Int64 = -1
            snapshot.withColumns { columns in
                for index in 0..<columns.count { encodeWhole(columns, index, previous: &previous) }
            }
        }
        coder.finish()
        return coder.bytes
    }

    /// Whether `snapshot` holds exactly `baseline`'s entities, types and values.
    private static func sameEntities(_ snapshot: Snapshot, _ baseline: Snapshot) -> Bool {
        guard snapshot.ids == baseline.ids, snapshot.types == baseline.types else { return false }
        // Same ids: the texts, keyed by id, are the same exactly when the dictionaries are.
        if snapshot.schema.hasTextFields && snapshot.texts != baseline.texts { return false }
        let layouts = snapshot.schema.layouts
        for index in snapshot.indices {
            let a = Int(snapshot.offsets[index]), b = Int(baseline.offsets[index])
            for field in 0..<layouts[Int(snapshot.types[index])].fieldCount where snapshot.values[a + field] != baseline.values[b + field] {
                return false
            }
        }
        return true
    }

    private mutating func encodeDelta(_ snapshot: Snapshot, against baseline: Snapshot) {
        // Scratch for the merge: per survivor its current and baseline index, then the created
        // current indices. One temporary allocation per snapshot, none per entity.
        let survivorCapacity = min(snapshot.count, baseline.count)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * survivorCapacity + snapshot.count + 1) { scratch in
            // The buffer's base is non-nil: it holds at least one slot.
            let base = scratch.baseAddress.unsafelyUnwrapped
            // Read through buffers: the loops over every entity make no array checks per read.
            snapshot.withColumns { now in
                baseline.withColumns { then in
                    encodeDelta(
                        now, against: then, survivorsNow: base, survivorsThen: base + survivorCapacity,
                        created: base + 2 * survivorCapacity)
                }
            }
        }
    }

    /// ``encodeDelta(_:against:)`` over the two snapshots' columns and its scratch: room for
    /// `min(now.count, then.count)` survivors in each of `survivorsNow` and `survivorsThen`, and
    /// for `now.count` entities in `created`.
    private mutating func encodeDelta(
        _ now: SnapshotColumns, against then: SnapshotColumns, survivorsNow: UnsafeMutablePointer<Int32>,
        survivorsThen: UnsafeMutablePointer<Int32>, created: UnsafeMutablePointer<Int32>
    ) {
        // One merge pass: survivors as (current, baseline) index pairs, created current indices.
        var survivorCount = 0, createdCount = 0
        var i = 0, j = 0
        let nowCount = now.count, thenCount = then.count
        while i < nowCount && j < thenCount {
            let id = now.ids[i], baselineID = then.ids[j]
            if id < baselineID {
                created[createdCount] = Int32(truncatingIfNeeded: i)
                createdCount &+= 1
                i &+= 1
            } else if baselineID < id {
                j &+= 1
            } else {
                if now.types[i] == then.types[j] {
                    survivorsNow[survivorCount] = Int32(truncatingIfNeeded: i)
                    survivorsThen[survivorCount] = Int32(truncatingIfNeeded: j)
                    survivorCount &+= 1
                } else {
                    created[createdCount] = Int32(truncatingIfNeeded: i)
                    createdCount &+= 1
                }
                i &+= 1
                j &+= 1
            }
        }
        while i < nowCount {
            created[createdCount] = Int32(truncatingIfNeeded: i)
            createdCount &+= 1
            i &+= 1
        }

        // Destroyed, when any is: their count, then each one's baseline index as the gap after
        // the previous one (§4.5.4): a few destroyed among many cost a few symbols, not a bit each.
        let anyDestroyed = survivorCount < thenCount
        coder.encode(anyDestroyed, &models.p[EntropyModels.hasDestroyed])
        if anyDestroyed {
            coder.encodeInteger(UInt64(thenCount &- survivorCount &- 1), models: models.p + EntropyModels.destroyedCountTree)
            var following = 0
            var next = 0
            for j in 0..<thenCount {
                if next < survivorCount && Int(survivorsThen[next]) == j {
                    next &+= 1
                    continue
                }
                coder.encodeInteger(UInt64(j &- following), models: models.p + EntropyModels.destroyedGapTree)
                following = j &+ 1
            }
        }

        // Changed: a bit per survivor, then the changed entity's fields. The survivors before
        // the first changed one are unchanged: they are not compared twice.
        let fieldStarts = schema.fieldStarts
        let hasTextFields = schema.hasTextFields
        let nowTexts = currentTexts, thenTexts = baselineTexts
        let layouts = schema.layouts
        /// Whether survivor `pair` changed any field.
        func differs(_ pair: Int) -> Bool {
            let old = Int(survivorsThen[pair])
            let type = Int(then.types[old])
            let a = Int(now.offsets[Int(survivorsNow[pair])]), b = Int(then.offsets[old])
            for field in 0..<(fieldStarts[type + 1] - fieldStarts[type]) where now.values[a &+ field] != then.values[b &+ field] {
                return true
            }
            // Texts only where the schema has them: a text field's q is always 0.
            return hasTextFields
                && Snapshot.textDifferences(nowTexts, thenTexts, id: then.ids[old], fields: layouts[type].textFields) != 0
        }
        var firstChanged = 0
        while firstChanged < survivorCount && !differs(firstChanged) { firstChanged += 1 }
        let anyChanged = firstChanged < survivorCount
        coder.encode(anyChanged, &models.p[EntropyModels.hasChanged])
        if anyChanged {
            // The field layouts and the baseline's motion through buffers too (local copies: the
            // loop mutates the coder).
            let fields = schema.flatFields, motionDeltas = baselineMotion.deltas
            fields.withUnsafeBufferPointer { fields in
                motionDeltas.withUnsafeBufferPointer { motionDeltas in
                    var history = 0
                    for pair in 0..<survivorCount {
                        let current = Int(survivorsNow[pair]), old = Int(survivorsThen[pair])
                        let changed = pair >= firstChanged && (pair == firstChanged || differs(pair))
                        let activity = models.activity(type: Int(then.types[old]), offset: Int(then.offsets[old]), in: then.values)
                        coder.encode(changed, &models.p[EntropyModels.changed &+ history &+ 4 &* activity])
                        history = (history &<< 1 | (changed ? 1 : 0)) & 3
                        if changed {
                            let textMask =
                                hasTextFields
                                ? Snapshot.textDifferences(
                                    nowTexts, thenTexts, id: now.ids[current], fields: layouts[Int(now.types[current])].textFields) : 0
                            encodeChanges(
                                now, current, then, old, activity: activity, fields: fields, motionDeltas: motionDeltas, textMask: textMask)
                        }
                    }
                }
            }
        }

        // Created, whole.
        coder.encode(createdCount > 0, &models.p[EntropyModels.hasCreated])
        if createdCount > 0 {
            coder.encodeInteger(UInt64(createdCount - 1), models: models.p + EntropyModels.countTree)
            var previous: Int64 = -1
            for index in 0..<createdCount {
                encodeWhole(now, Int(created[index]), previous: &previous)
            }
        }
    }

    /// Codes a changed survivor's fields: per field a changed bit, then its new value or delta
    /// (in the motion-predicted coding, its residual from the prediction). `fields` are the
    /// schema's ``Schema/flatFields``, `motionDeltas` the baseline motion's values.
    private mutating func encodeChanges(
        _ now: SnapshotColumns, _ i: Int, _ then: SnapshotColumns, _ j: Int, activity: Int,
        fields: UnsafeBufferPointer<TypeLayout.FieldLayout>, motionDeltas: UnsafeBufferPointer<Int64>, textMask: UInt64
    ) {
        let type = Int(now.types[i])
        models.prepare(type: type)
        let start = schema.fieldStarts[type]
        let fieldCount = schema.fieldStarts[type + 1] - start
        let a = Int(now.offsets[i]), b = Int(then.offsets[j])
        let predicts = prediction.isUsed
        let id = now.ids[i]
        let baselineStart = predicts ? baselineCursor.start(of: id, fields: fieldCount, in: baselineMotion) : nil
        let records = motionBuilder.isActive
        let slot: UnsafeMutablePointer<Int64>? = records ? motionBuilder.slot(fields: fieldCount) : nil
        let firstBase = models.fieldBase(type: type, field: 0)
        var moved = false
        var state = 0
        for field in 0..<fieldCount {
            let new = now.values[a &+ field], old = then.values[b &+ field]
            let base = firstBase &+ field &* EntropyModels.perField
            let layout = fields[start &+ field]
            var predicted = old
            var motion: Int64 = 0
            if records, MotionPrediction.isMotionField(layout) {
                if let baselineStart {
                    motion = prediction.scaled(motionDeltas[baselineStart &+ field])
                    predicted = MotionPrediction.predicted(old: old, motion: motion, maxQuantized: layout.maxQuantized)
                }
                let difference = Int64(new) - Int64(old)
                slot?[field] = difference
                moved = moved || difference != 0
            } else if records {
                slot?[field] = 0
            }
            // A text field's q is always 0: its change is in `textMask` (protocol 1.2).
            let changed = new != predicted || (textMask != 0 && textMask >> UInt64(field) & 1 != 0)
            if predicts {
                let context = state &+ 3 &* activity &+ (motion != 0 ? 6 : 0)
                coder.encode(changed, &models.p[base &+ EntropyModels.fieldChangedPredicted &+ context])
            } else if field < fieldCount - 1 || state != 0 {
                coder.encode(changed, &models.p[base &+ EntropyModels.fieldChanged &+ state &+ 3 &* activity])
            }
            state = changed ? 2 : (state == 0 ? 0 : 1)
            guard changed else { continue }
            if layout.deltaMode == .none {
                if layout.width > 1 { encodeValue(new, layout, base: base) }
                continue
            }
            if layout.deltaMode == .text {
                encodeText(currentTexts[Snapshot.textKey(id: id, field: field)] ?? [], lengthBits: layout.width)
                continue
            }
            let delta: Int64
            if layout.deltaMode == .wrapping {
                // Wrapping arithmetic: angle deltas are taken modulo 2^width, then centred on 0.
                let raw = (new &- old) & BitWriter.mask(layout.width)
                delta = raw >= (1 << UInt64(layout.width - 1)) ? Int64(raw) - (1 << Int64(layout.width)) : Int64(raw)
            } else {
                // Both values are below 2^62, so the difference fits.
                delta = Int64(new) - Int64(predicted)
            }
            let sign = motion == 0 ? EntropyModels.sign : EntropyModels.motionSign + (motion > 0 ? 0 : 1)
            encodeDelta(delta, base: base, sign: sign, width: layout.width)
        }
        if moved { motionBuilder.commit(id: id, fields: fieldCount) }
    }

    /// Codes a non-zero delta of a field `width` bits wide: its sign, its magnitude's bucket (the
    /// position of its leading one; past 6 in a field wider than 8 bits, escaped), then the
    /// magnitude's bits below the leading one, raw.
    @inline(__always)
    private mutating func encodeDelta(_ delta: Int64, base: Int, sign: Int, width: Int) {
        coder.encodeUnpredictable(delta < 0 ? 1 : 0, &models.p[base &+ sign])
        let magnitude = delta.magnitude
        let bucket = 63 &- magnitude.leadingZeroBitCount
        let escapes = width > 8 && bucket >= EntropyModels.escapedBucket
        coder.encodeTree(
            UInt64(escapes ? EntropyModels.escapedBucket : bucket), bits: EntropyModels.directBucketBits(width: width),
            models: models.p + (base &+ EntropyModels.bucket))
        if escapes {
            coder.encodeTree(
                UInt64(bucket &- EntropyModels.escapedBucket), bits: EntropyModels.escapeBits(width: width),
                models: models.p + (base &+ EntropyModels.bucketEscape))
        }
        coder.encodeRaw(magnitude, count: bucket)
    }

    /// Codes a whole value: through the field's tree when at most 8 bits wide, raw otherwise.
    @inline(__always)
    private mutating func encodeValue(_ value: UInt64, _ layout: TypeLayout.FieldLayout, base: Int) {
        if layout.width <= 8 {
            coder.encodeTree(value, bits: layout.width, models: models.p + base + EntropyModels.whole)
        } else {
            coder.encodeRaw(value, count: layout.width)
        }
    }

    /// Codes a text value (§4.5.4): its length raw in `lengthBits` bits, then each byte raw in 8 bits,
    /// outside the context models.
    private mutating func encodeText(_ text: [UInt8], lengthBits: Int) {
        coder.encodeRaw(UInt64(text.count), count: lengthBits)
        for byte in text { coder.encodeRaw(UInt64(byte), count: 8) }
    }

    /// Codes one entity whole: id gap, type index, every field (a text from ``currentTexts``).
    private mutating func encodeWhole(_ snapshot: SnapshotColumns, _ index: Int, previous: inout Int64) {
        let id = Int64(snapshot.ids[index])
        coder.encodeInteger(UInt64(id - previous - 1), models: models.p + EntropyModels.gapTree)
        previous = id
        let type = Int(snapshot.types[index])
        if schema.typeIndexBits > 0 {
            coder.encodeTree(UInt64(type), bits: schema.typeIndexBits, models: models.p + EntropyModels.typeTree)
        }
        models.prepare(type: type)
        let layout = schema.layouts[type]
        let offset = Int(snapshot.offsets[index])
        if layout.textFields != 0 {
            for field in 0..<layout.fieldCount {
                if layout.fields[field].deltaMode == .text {
                    let text = currentTexts[Snapshot.textKey(id: UInt32(id), field: field)] ?? []
                    encodeText(text, lengthBits: layout.fields[field].width)
                } else {
                    encodeValue(snapshot.values[offset + field], layout.fields[field], base: models.fieldBase(type: type, field: field))
                }
            }
            return
        }
        for field in 0..<layout.fieldCount {
            encodeValue(snapshot.values[offset + field], layout.fields[field], base: models.fieldBase(type: type, field: field))
        }
    }
}

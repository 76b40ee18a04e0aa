/// Writes one snapshot, whole or as a delta against a baseline (`Protocol/PROTOCOL.md` §4).
///
/// The caller (``SnapshotCodec``) has checked schemas and limits. Work per snapshot is one
/// merge pass over both sorted id lists plus the writes; scratch lists are per snapshot, not
/// per entity.
struct DeltaEncoder {
    let layouts: [TypeLayout]
    let typeIndexBits: Int
    let flatFields: [TypeLayout.FieldLayout]
    let fieldStarts: [Int]
    /// Whether the schema has text fields: only then are texts compared and written (§4.1).
    let hasTextFields: Bool

    private var destroyed: [UInt32] = []
    private var created: [Int32] = []
    /// Changed entities as (survivor index, current index, baseline index) triples, flattened.
    private var changed: [Int32] = []

    init(schema: Schema) {
        self.layouts = schema.layouts
        self.typeIndexBits = schema.typeIndexBits
        self.flatFields = schema.flatFields
        self.fieldStarts = schema.fieldStarts
        self.hasTextFields = schema.hasTextFields
    }

    mutating func encode(_ snapshot: Snapshot, against baseline: Snapshot?, into writer: inout BitWriter) {
        writer.writeVarint(UInt64(snapshot.tick))
        guard let baseline else {
            writer.write(false)
            writer.writeVarint(UInt64(snapshot.count))
            var previous: Int64 = -1
            for index in snapshot.indices {
                writeCreated(snapshot, index, previous: &previous, into: &writer)
            }
            return
        }
        writer.write(true)
        // Wrapping subtraction: ticks are counted modulo 2^32.
        writer.writeVarint(UInt64(snapshot.tick &- baseline.tick))
        let survivorCount = classify(snapshot, against: baseline)

        // Destroyed entities by id, as gaps.
        writer.write(!destroyed.isEmpty)
        if !destroyed.isEmpty {
            writer.writeVarint(UInt64(destroyed.count))
            var previous: Int64 = -1
            for id in destroyed {
                writer.writeVarint(UInt64(Int64(id) - previous - 1))
                previous = Int64(id)
            }
        }

        // Changed entities: which ones, then their changed fields.
        writer.write(!changed.isEmpty)
        if !changed.isEmpty {
            writeChangedIndices(survivorCount: survivorCount, into: &writer)
            // Specialized twice: a schema without text fields runs exactly the numeric code.
            if hasTextFields {
                writeChangedEntities(snapshot, against: baseline, texts: EntityTexts.self, into: &writer)
            } else {
                writeChangedEntities(snapshot, against: baseline, texts: NoTexts.self, into: &writer)
            }
        }

        // Created entities, whole.
        writer.write(!created.isEmpty)
        if !created.isEmpty {
            writer.writeVarint(UInt64(created.count))
            var previous: Int64 = -1
            for index in created {
                writeCreated(snapshot, Int(index), previous: &previous, into: &writer)
            }
        }
    }

    /// Writes each changed entity's field changes; `texts` finds its changed texts (``NoTexts`` for
    /// a schema without text fields, which specializes the text handling away).
    private func writeChangedEntities<Texts: ChangedTexts>(
        _ snapshot: Snapshot, against baseline: Snapshot, texts: Texts.Type, into writer: inout BitWriter
    ) {
        snapshot.values.withUnsafeBufferPointer { currentValues in
            baseline.values.withUnsafeBufferPointer { baselineValues in
                flatFields.withUnsafeBufferPointer { fields in
                    var triple = 0
                    while triple < changed.count {
                        let i = Int(changed[triple + 1]), j = Int(changed[triple + 2])
                        let type = Int(snapshot.types[i])
                        let typeFields = UnsafeBufferPointer(rebasing: fields[fieldStarts[type]..<fieldStarts[type + 1]])
                        writeChanges(
                            UnsafeBufferPointer(rebasing: currentValues[Int(snapshot.offsets[i])...]),
                            UnsafeBufferPointer(rebasing: baselineValues[Int(baseline.offsets[j])...]),
                            typeFields, texts: Texts(snapshot, baseline, index: i, type: type), into: &writer
                        )
                        triple += 3
                    }
                }
            }
        }
    }

    /// Sorts entities into destroyed, created and changed; returns how many baseline entities survive.
    private mutating func classify(_ current: Snapshot, against baseline: Snapshot) -> Int {
        destroyed.removeAll(keepingCapacity: true)
        created.removeAll(keepingCapacity: true)
        changed.removeAll(keepingCapacity: true)
        var survivor = 0
        var i = 0, j = 0
        let fieldCounts = layouts.map(\.fieldCount)
        let hasTextFields = self.hasTextFields
        // Read through buffers: the loop over every entity makes no array checks per read.
        current.withColumns { now in
            baseline.withColumns { then in
                while i < now.count || j < then.count {
                    if j == then.count || (i < now.count && now.ids[i] < then.ids[j]) {
                        created.append(Int32(i))
                        i += 1
                    } else if i == now.count || then.ids[j] < now.ids[i] {
                        destroyed.append(then.ids[j])
                        j += 1
                    } else {
                        let type = now.types[i]
                        if type != then.types[j] {
                            // Same id, new type: destroyed and created again.
                            destroyed.append(then.ids[j])
                            created.append(Int32(i))
                        } else {
                            let a = Int(now.offsets[i]), b = Int(then.offsets[j])
                            var field = fieldCounts[Int(type)] - 1
                            while field >= 0 && now.values[a + field] == then.values[b + field] { field -= 1 }
                            // Texts only where the schema has them (§4.1): a text field's q is always 0.
                            if field < 0 && hasTextFields && !current.hasSameTexts(of: now.ids[i], type: Int(type), as: baseline) {
                                field = 0
                            }
                            if field >= 0 {
                                changed.append(Int32(survivor))
                                changed.append(Int32(i))
                                changed.append(Int32(j))
                            }
                            survivor += 1
                        }
                        i += 1
                        j += 1
                    }
                }
            }
        }
        return survivor
    }

    /// Writes the changed survivors' indices: a bit per survivor or a gamma-coded gap list, whichever is shorter.
    private func writeChangedIndices(survivorCount: Int, into writer: inout BitWriter) {
        let changedCount = changed.count / 3
        var listBits = BitWriter.varintBitCount(UInt64(changedCount))
        var previous = -1
        var triple = 0
        while triple < changed.count {
            let index = Int(changed[triple])
            listBits += BitWriter.gammaBitCount(UInt64(index - previous))
            previous = index
            triple += 3
        }
        if listBits < survivorCount {
            writer.write(true)
            writer.writeVarint(UInt64(changedCount))
            previous = -1
            triple = 0
            while triple < changed.count {
                let index = Int(changed[triple])
                writer.writeGamma(UInt64(index - previous))
                previous = index
                triple += 3
            }
        } else {
            writer.write(false)
            var next = 0
            triple = 0
            while triple < changed.count {
                let index = Int(changed[triple])
                var zeros = index - next
                while zeros > 0 {
                    let run = min(zeros, 64)
                    writer.write(0, bits: run)
                    zeros -= run
                }
                writer.write(true)
                next = index + 1
                triple += 3
            }
            var zeros = survivorCount - next
            while zeros > 0 {
                let run = min(zeros, 64)
                writer.write(0, bits: run)
                zeros -= run
            }
        }
    }

    /// Writes one changed entity: its changed-field mask, then each changed field, as a delta when shorter.
    ///
    /// `current` and `baseline` start at the entity's first value; `fields` are its type's fields.
    private func writeChanges(
        _ current: UnsafeBufferPointer<UInt64>, _ baseline: UnsafeBufferPointer<UInt64>,
        _ fields: UnsafeBufferPointer<TypeLayout.FieldLayout>, texts: some ChangedTexts, into writer: inout BitWriter
    ) {
        var mask: UInt64 = texts.mask
        for field in 0..<fields.count where current[field] != baseline[field] {
            mask |= 1 << UInt64(field)
        }
        writer.write(mask, bits: fields.count)
        var rest = mask
        while rest != 0 {
            let field = rest.trailingZeroBitCount
            rest &= rest - 1
            let new = current[field]
            let layout = fields[field]
            let width = layout.width
            guard layout.deltaMode != .none else {
                writer.write(new, bits: width)
                continue
            }
            if texts.isPresent && layout.deltaMode == .text {
                texts.write(field: field, lengthBits: width, into: &writer)
                continue
            }
            let old = baseline[field]
            let delta: Int64
            if layout.deltaMode == .wrapping {
                // Wrapping arithmetic: angle deltas are taken modulo 2^width, then centred on 0.
                let raw = (new &- old) & BitWriter.mask(width)
                delta = raw >= (1 << UInt64(width - 1)) ? Int64(raw) - (1 << Int64(width)) : Int64(raw)
            } else {
                // Both values are below 2^62, so the difference fits.
                delta = Int64(new) - Int64(old)
            }
            let code = ZigZag.encode(delta)  // ≥ 1: the field changed.
            if BitWriter.gammaBitCount(code) < width {
                writer.write(true)
                writer.writeGamma(code)
            } else {
                writer.write(false)
                writer.write(new, bits: width)
            }
        }
    }

    /// Writes one entity whole: id gap, type index, every field at full width.
    private func writeCreated(_ snapshot: Snapshot, _ index: Int, previous: inout Int64, into writer: inout BitWriter) {
        let id = Int64(snapshot.ids[index])
        writer.writeVarint(UInt64(id - previous - 1))
        previous = id
        let type = Int(snapshot.types[index])
        writer.write(UInt64(type), bits: typeIndexBits)
        let layout = layouts[type]
        let offset = Int(snapshot.offsets[index])
        guard layout.textFields != 0 else {
            for field in 0..<layout.fieldCount {
                writer.write(snapshot.values[offset + field], bits: layout.fields[field].width)
            }
            return
        }
        for field in 0..<layout.fieldCount {
            if layout.fields[field].deltaMode == .text {
                let text = snapshot.texts[Snapshot.textKey(id: UInt32(id), field: field)] ?? []
                Self.writeText(text, lengthBits: layout.fields[field].width, into: &writer)
            } else {
                writer.write(snapshot.values[offset + field], bits: layout.fields[field].width)
            }
        }
    }

    /// Writes a text value (§4.1): its length in `lengthBits` bits, then each byte as `u(8)`.
    static func writeText(_ text: [UInt8], lengthBits: Int, into writer: inout BitWriter) {
        writer.write(UInt64(text.count), bits: lengthBits)
        for byte in text { writer.write(UInt64(byte), bits: 8) }
    }
}

/// What ``DeltaEncoder`` needs of a changed entity's texts (protocol 1.2): which text fields
/// changed, and their bytes.
protocol ChangedTexts {
    /// Whether the schema has text fields at all (`false` lets the text code specialize away).
    var isPresent: Bool { get }
    /// The changed text fields, as a field mask.
    var mask: UInt64 { get }
    /// The texts of the entity at `index` (of type `type`) of `snapshot`, against `baseline`.
    init(_ snapshot: Snapshot, _ baseline: Snapshot, index: Int, type: Int)
    /// Writes text field `field` (§4.1).
    func write(field: Int, lengthBits: Int, into writer: inout BitWriter)
}

/// A schema without text fields: nothing changes, nothing is written.
struct NoTexts: ChangedTexts {
    var isPresent: Bool { false }
    var mask: UInt64 { 0 }
    @inline(__always)
    init(_ snapshot: Snapshot, _ baseline: Snapshot, index: Int, type: Int) {}
    func write(field: Int, lengthBits: Int, into writer: inout BitWriter) {}
}

/// One changed entity's texts.
struct EntityTexts: ChangedTexts {
    var isPresent: Bool { true }
    let mask: UInt64
    let id: UInt32
    let texts: [UInt64: [UInt8]]

    init(_ snapshot: Snapshot, _ baseline: Snapshot, index: Int, type: Int) {
        id = snapshot.ids[index]
        texts = snapshot.texts
        mask = Snapshot.textDifferences(
            snapshot.texts, baseline.texts, id: id, fields: snapshot.schema.textFieldMask(ofType: type))
    }

    func write(field: Int, lengthBits: Int, into writer: inout BitWriter) {
        DeltaEncoder.writeText(texts[Snapshot.textKey(id: id, field: field)] ?? [], lengthBits: lengthBits, into: &writer)
    }
}

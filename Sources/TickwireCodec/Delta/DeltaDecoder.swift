/// Reads one encoded snapshot, whole or as a delta against a baseline (`Protocol/PROTOCOL.md` §4).
///
/// Every count is checked against ``CodecLimits`` and against the bits left in the input
/// before anything is reserved, so a short hostile input cannot make it allocate much.
struct DeltaDecoder {
    let schema: Schema
    let limits: CodecLimits
    var reader: BitReader
    /// Texts read while the values are borrowed, applied after: (key, bytes; empty removes).
    private var textUpdates: [(key: UInt64, bytes: [UInt8])] = []

    init(schema: Schema, limits: CodecLimits, reader: BitReader) {
        self.schema = schema
        self.limits = limits
        self.reader = reader
    }

    /// Decodes into a new snapshot.
    mutating func decode(baseline: Snapshot?) throws(CodecError) -> Snapshot {
        var snapshot = Snapshot(schema: schema, tick: 0)
        try decode(baseline: baseline, into: &snapshot)
        return snapshot
    }

    /// Decodes into `snapshot`, replacing its contents and reusing its arrays' storage when it
    /// holds the only reference to them. On error `snapshot` is left empty.
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

    /// Reads the encoding into the empty `snapshot`.
    private mutating func decodeEntities(baseline: Snapshot?, into snapshot: inout Snapshot) throws(CodecError) {
        let tick = try reader.readVarint32("snapshot tick")
        snapshot.tick = tick
        guard try reader.readBool() else {
            let count = try readEntityCount(existing: 0)
            snapshot.reserveCapacity(count)
            try readCreated(count: count, into: &snapshot)
            try reader.finish()
            return
        }
        let age = try reader.readVarint32("baseline age")
        // Wrapping subtraction: ticks are counted modulo 2^32.
        let baselineTick = tick &- age
        guard let baseline else { throw CodecError(.baselineMissing(tick: baselineTick)) }
        guard baseline.tick == baselineTick else {
            throw CodecError(.baselineMismatch(expected: baselineTick, given: baseline.tick))
        }

        // Destroyed ids: checked here, read again from `destroyedIDs` while the survivors are
        // copied from the baseline in id order (no list of them is kept).
        var destroyedIDs = reader
        var destroyedCount = 0
        if try reader.readBool() {
            let count = try reader.readVarint()
            guard count >= 1 else {
                throw CodecError(.valueOutOfRange(what: "destroyed entity count", value: "0", allowed: "1 or more"))
            }
            guard count <= UInt64(baseline.count) else {
                throw CodecError(.tooManyEntities(count: count, limit: baseline.count))
            }
            try requireBits(Int(count) * 8)
            destroyedIDs = reader
            var previous: UInt64? = nil
            for _ in 0..<Int(count) {
                _ = try Self.readID(from: &reader, after: &previous)
            }
            destroyedCount = Int(count)
        }
        try copySurvivors(of: baseline, destroyedCount: destroyedCount, ids: &destroyedIDs, into: &snapshot)

        if try reader.readBool() {
            try readChanges(into: &snapshot)
        }

        if try reader.readBool() {
            let survivors = snapshot.count
            let count = try readEntityCount(existing: survivors)
            guard count >= 1 else {
                throw CodecError(.valueOutOfRange(what: "created entity count", value: "0", allowed: "1 or more"))
            }
            // Within the limit: readEntityCount checked survivors + count against it.
            snapshot.reserve(entities: survivors + count, values: snapshot.values.count + count * schema.widestFieldCount)
            try readCreated(count: count, into: &snapshot)
            // Created ids are increasing; usually they are all above the survivors' (new ids
            // grow), otherwise the two sorted runs are merged in place.
            if survivors > 0 && snapshot.ids[survivors] <= snapshot.ids[survivors - 1] {
                try Self.mergeCreated(from: survivors, into: &snapshot)
            }
        }
        try reader.finish()
    }

    /// Reads an entity count and checks it against the limit and the bits left (each entity takes at least 8).
    private mutating func readEntityCount(existing: Int) throws(CodecError) -> Int {
        let count = try reader.readVarint()
        let total = UInt64(existing) + min(count, UInt64(Int32.max))
        guard total <= UInt64(limits.maxEntities) else {
            // Wrapping addition: only the message needs the sum, and a hostile count may be near 2^64.
            throw CodecError(.tooManyEntities(count: UInt64(existing) &+ count, limit: limits.maxEntities))
        }
        try requireBits(Int(count) * 8)
        return Int(count)
    }

    private func requireBits(_ bits: Int) throws(CodecError) {
        guard bits <= reader.remainingBits else {
            throw CodecError(.truncated(neededBits: bits, availableBits: reader.remainingBits))
        }
    }

    /// Reads an id gap: the first id is the gap, each next id is the previous plus one plus the gap.
    private static func readID(from reader: inout BitReader, after previous: inout UInt64?) throws(CodecError) -> UInt32 {
        let gap = try reader.readVarint()
        let base: UInt64 = previous.map { $0 + 1 } ?? 0
        let (id, overflow) = base.addingReportingOverflow(gap)
        guard !overflow, id <= UInt64(UInt32.max) else {
            throw CodecError(.entityIDOutOfRange(previous: previous ?? 0, gap: gap))
        }
        previous = id
        return UInt32(id)
    }

    /// Reads `count` whole entities and appends them to `snapshot` (whose ids are all below them).
    private mutating func readCreated(count: Int, into snapshot: inout Snapshot) throws(CodecError) {
        var previous: UInt64? = nil
        let typeCount = schema.layouts.count
        for _ in 0..<count {
            let id = try Self.readID(from: &reader, after: &previous)
            let type = try reader.read(bits: schema.typeIndexBits)
            guard type < UInt64(typeCount) else { throw CodecError(.unknownEntityType(index: type, typeCount: typeCount)) }
            let layout = schema.layouts[Int(type)]
            snapshot.ids.append(id)
            snapshot.types.append(UInt8(type))
            snapshot.offsets.append(UInt32(snapshot.values.count))
            guard layout.textFields != 0 else {
                for field in 0..<layout.fieldCount {
                    snapshot.values.append(try readFullValue(layout, field))
                }
                continue
            }
            for field in 0..<layout.fieldCount {
                guard layout.fields[field].deltaMode == .text else {
                    snapshot.values.append(try readFullValue(layout, field))
                    continue
                }
                snapshot.values.append(0)
                let text = try readText(layout.fields[field], field: field, id: id)
                if !text.isEmpty { snapshot.texts[Snapshot.textKey(id: id, field: field)] = text }
            }
        }
    }

    /// Reads a text value (§4.1): its length (checked against the field's bound, then against the
    /// bits left, before anything is allocated), its bytes, then checks they are UTF-8.
    private mutating func readText(_ layout: TypeLayout.FieldLayout, field: Int, id: UInt32) throws(CodecError) -> [UInt8] {
        let length = try reader.read(bits: layout.width)
        try TextValue.checkLength(length, maxBytes: layout.maxQuantized, field: field, id: id)
        try requireBits(Int(length) * 8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        for _ in 0..<Int(length) { bytes.append(UInt8(truncatingIfNeeded: reader.readUnchecked(bits: 8))) }
        try TextValue.checkUTF8(bytes, field: field, id: id)
        return bytes
    }

    private mutating func readFullValue(_ layout: TypeLayout, _ field: Int) throws(CodecError) -> UInt64 {
        let value = try reader.read(bits: layout.fields[field].width)
        guard value <= layout.fields[field].maxQuantized else {
            throw CodecError(
                .valueOutOfRange(what: "field \(field) value", value: "\(value)", allowed: "0...\(layout.fields[field].maxQuantized)"))
        }
        return value
    }

    /// Copies the baseline's entities but the `destroyedCount` ones whose ids `ids` reads
    /// (sorted, already checked) into the empty `snapshot`.
    private func copySurvivors(
        of baseline: Snapshot, destroyedCount: Int, ids: inout BitReader, into snapshot: inout Snapshot
    ) throws(CodecError) {
        // Room for the survivors and a few created entities, so that a fresh snapshot is not
        // copied again when some arrive; never past the limit (the baseline itself may be).
        // The baseline is trusted (the receiver's own), so a reused snapshot may keep headroom.
        let survivors = baseline.count - destroyedCount
        let room = max(survivors, min(survivors + max(8, survivors / 8), limits.maxEntities))
        snapshot.reserve(entities: room, values: baseline.liveValueCount + (room - survivors) * schema.widestFieldCount, headroom: true)
        var runStart = 0
        var position = 0
        var previous: UInt64? = nil
        for _ in 0..<destroyedCount {
            let id = try Self.readID(from: &ids, after: &previous)
            // Binary search from the current position: destroyed ids are sorted.
            var low = position, high = baseline.count
            while low < high {
                let middle = (low + high) / 2
                if baseline.ids[middle] < id { low = middle + 1 } else { high = middle }
            }
            guard low < baseline.count, baseline.ids[low] == id else { throw CodecError(.unknownEntity(id)) }
            snapshot.appendEntities(of: baseline, in: runStart..<low)
            runStart = low + 1
            position = low + 1
        }
        snapshot.appendEntities(of: baseline, in: runStart..<baseline.count)
    }

    /// Reads which survivors changed (bit per survivor or gap list) and applies their field changes.
    ///
    /// All the indices come before the changes: they are checked in a first pass, then read
    /// again from a second reader alongside the changes (no list of them is kept).
    private mutating func readChanges(into snapshot: inout Snapshot) throws(CodecError) {
        let survivors = snapshot.count
        let usesGaps = try reader.readBool()
        var marks = reader
        var changedCount = 0
        if usesGaps {
            let count = try reader.readVarint()
            guard count >= 1 && count <= UInt64(survivors) else {
                throw CodecError(.valueOutOfRange(what: "changed entity count", value: "\(count)", allowed: "1...\(survivors)"))
            }
            try requireBits(Int(count))
            marks = reader
            var index: UInt64 = 0
            for number in 0..<Int(count) {
                let gap = try reader.readGamma()
                let (next, overflow) = (number == 0 ? 0 : index + 1).addingReportingOverflow(gap - 1)
                guard !overflow, next < UInt64(survivors) else {
                    throw CodecError(.entityIndexOutOfRange(index: overflow ? UInt64.max : next, count: survivors))
                }
                index = next
            }
            changedCount = Int(count)
        } else {
            try requireBits(survivors)
            var index = 0
            while index < survivors {
                let run = min(64, survivors - index)
                changedCount += try reader.read(bits: run).nonzeroBitCount
                index += run
            }
            guard changedCount > 0 else {
                throw CodecError(.valueOutOfRange(what: "changed entity bits", value: "all 0", allowed: "at least one 1"))
            }
        }
        // Apply the changes through raw pointers: no per-entity layout copies or uniqueness checks.
        let flatFields = schema.flatFields, fieldStarts = schema.fieldStarts
        let types = snapshot.types, offsets = snapshot.offsets, ids = snapshot.ids
        let hasTextFields = schema.hasTextFields
        var failure: CodecError?
        snapshot.values.withUnsafeMutableBufferPointer { values in
            flatFields.withUnsafeBufferPointer { fields in
                do throws(CodecError) {
                    func apply(_ index: Int) throws(CodecError) {
                        let type = Int(types[index])
                        let entityValues = UnsafeMutableBufferPointer(rebasing: values[Int(offsets[index])...])
                        let typeFields = UnsafeBufferPointer(rebasing: fields[fieldStarts[type]..<fieldStarts[type + 1]])
                        // Specialized twice: a schema without text fields runs exactly the numeric code.
                        if hasTextFields {
                            try readFieldChanges(of: ids[index], values: entityValues, fields: typeFields, texts: WithTexts.self)
                        } else {
                            try readFieldChanges(of: ids[index], values: entityValues, fields: typeFields, texts: WithoutTexts.self)
                        }
                    }
                    // The second pass over the indices, which the first one checked.
                    if usesGaps {
                        var index = 0
                        for number in 0..<changedCount {
                            let gap = Int(try marks.readGamma())
                            index = number == 0 ? gap - 1 : index + gap
                            try apply(index)
                        }
                    } else {
                        var base = 0
                        while base < survivors {
                            let run = min(64, survivors - base)
                            var bits = try marks.read(bits: run)
                            while bits != 0 {
                                try apply(base + bits.trailingZeroBitCount)
                                bits &= bits - 1
                            }
                            base += run
                        }
                    }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        if !textUpdates.isEmpty {
            for update in textUpdates { snapshot.texts[update.key] = update.bytes.isEmpty ? nil : update.bytes }
            textUpdates.removeAll()
        }
    }

    /// Reads one changed entity's field mask and changed values, applying them in place.
    ///
    /// `values` starts at the entity's first value; `fields` are its type's fields.
    private mutating func readFieldChanges<Texts: TextPresence>(
        of id: UInt32, values: UnsafeMutableBufferPointer<UInt64>, fields: UnsafeBufferPointer<TypeLayout.FieldLayout>,
        texts: Texts.Type
    ) throws(CodecError) {
        var mask = try reader.read(bits: fields.count)
        guard mask != 0 else {
            throw CodecError(.valueOutOfRange(what: "changed field mask of entity \(id)", value: "0", allowed: "at least one 1"))
        }
        while mask != 0 {
            let field = mask.trailingZeroBitCount
            mask &= mask - 1
            let layout = fields[field]
            if Texts.isPresent && layout.deltaMode == .text {
                textUpdates.append((Snapshot.textKey(id: id, field: field), try readText(layout, field: field, id: id)))
                continue
            }
            let isDelta = layout.deltaMode != .none ? try reader.readBool() : false
            if !isDelta {
                let value = try reader.read(bits: layout.width)
                guard value <= layout.maxQuantized else {
                    throw CodecError(
                        .valueOutOfRange(what: "field \(field) of entity \(id)", value: "\(value)", allowed: "0...\(layout.maxQuantized)"))
                }
                values[field] = value
                continue
            }
            let delta = ZigZag.decode(try reader.readGamma())
            let old = values[field]
            if layout.deltaMode == .wrapping {
                // Wrapping arithmetic: angles live modulo 2^width.
                values[field] = (old &+ UInt64(bitPattern: delta)) & BitWriter.mask(layout.width)
            } else {
                let (new, overflow) = Int64(old).addingReportingOverflow(delta)
                guard !overflow, new >= 0, UInt64(new) <= layout.maxQuantized else {
                    throw CodecError(
                        .valueOutOfRange(
                            what: "field \(field) of entity \(id) after a delta of \(delta) from \(old)",
                            value: overflow ? "overflow" : "\(new)", allowed: "0...\(layout.maxQuantized)"))
                }
                values[field] = UInt64(new)
            }
        }
    }

    /// Merges the created entities (from index `start`, ids increasing) into the survivors
    /// before them, in place; the value pool is then repacked in id order.
    ///
    /// - Throws: ``CodecError`` `.duplicateEntity` for the first created id a survivor holds.
    static func mergeCreated(from start: Int, into snapshot: inout Snapshot) throws(CodecError) {
        // Check first, in increasing id order, so that the error names the first duplicate.
        var i = 0
        for j in start..<snapshot.count {
            let id = snapshot.ids[j]
            while i < start && snapshot.ids[i] < id { i += 1 }
            if i < start && snapshot.ids[i] == id { throw CodecError(.duplicateEntity(id)) }
        }
        let createdIDs = Array(snapshot.ids[start...])
        let createdTypes = Array(snapshot.types[start...])
        let createdOffsets = Array(snapshot.offsets[start...])
        // Backward merge: each slot written lies at or after every unread survivor.
        var survivor = start - 1, created = createdIDs.count - 1, slot = snapshot.count - 1
        while created >= 0 {
            if survivor >= 0 && snapshot.ids[survivor] > createdIDs[created] {
                snapshot.ids[slot] = snapshot.ids[survivor]
                snapshot.types[slot] = snapshot.types[survivor]
                snapshot.offsets[slot] = snapshot.offsets[survivor]
                survivor -= 1
            } else {
                snapshot.ids[slot] = createdIDs[created]
                snapshot.types[slot] = createdTypes[created]
                snapshot.offsets[slot] = createdOffsets[created]
                created -= 1
            }
            slot -= 1
        }
        snapshot.isPacked = false
        snapshot.compact()
    }
}

/// Whether a schema has text fields, as a type, so that a decoding loop specializes the text
/// handling away for schemas without them.
protocol TextPresence {
    /// Whether text fields may occur.
    static var isPresent: Bool { get }
}

/// A schema with text fields.
enum WithTexts: TextPresence {
    static var isPresent: Bool { true }
}

/// A schema without text fields.
enum WithoutTexts: TextPresence {
    static var isPresent: Bool { false }
}

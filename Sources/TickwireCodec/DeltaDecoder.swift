/// Reads one encoded snapshot, whole or as a delta against a baseline (`Protocol/PROTOCOL.md` §4).
///
/// Every count is checked against ``CodecLimits`` and against the bits left in the input
/// before anything is reserved, so a short hostile input cannot make it allocate much.
struct DeltaDecoder {
    let schema: Schema
    let limits: CodecLimits
    var reader: BitReader

    init(schema: Schema, limits: CodecLimits, reader: BitReader) {
        self.schema = schema
        self.limits = limits
        self.reader = reader
    }

    mutating func decode(baseline: Snapshot?) throws(CodecError) -> Snapshot {
        let tick = try reader.readVarint32("snapshot tick")
        guard try reader.readBool() else {
            var snapshot = Snapshot(schema: schema, tick: tick)
            let count = try readEntityCount(existing: 0)
            snapshot.reserveCapacity(count)
            try readCreated(count: count, into: &snapshot)
            try reader.finish()
            return snapshot
        }
        let age = try reader.readVarint32("baseline age")
        // Wrapping subtraction: ticks are counted modulo 2^32.
        let baselineTick = tick &- age
        guard let baseline else { throw CodecError(.baselineMissing(tick: baselineTick)) }
        guard baseline.tick == baselineTick else {
            throw CodecError(.baselineMismatch(expected: baselineTick, given: baseline.tick))
        }

        // Destroyed ids, then the survivors copied from the baseline in id order.
        var destroyed: [UInt32] = []
        if try reader.readBool() {
            let count = try reader.readVarint()
            guard count >= 1 else {
                throw CodecError(.valueOutOfRange(what: "destroyed entity count", value: "0", allowed: "1 or more"))
            }
            guard count <= UInt64(baseline.count) else {
                throw CodecError(.tooManyEntities(count: count, limit: baseline.count))
            }
            try requireBits(Int(count) * 8)
            destroyed.reserveCapacity(Int(count))
            var previous: UInt64? = nil
            for _ in 0..<Int(count) {
                destroyed.append(try readID(after: &previous))
            }
        }
        var snapshot = Snapshot(schema: schema, tick: tick)
        try copySurvivors(of: baseline, except: destroyed, into: &snapshot)

        if try reader.readBool() {
            try readChanges(baseline: baseline, into: &snapshot)
        }

        if try reader.readBool() {
            let count = try readEntityCount(existing: snapshot.count)
            guard count >= 1 else {
                throw CodecError(.valueOutOfRange(what: "created entity count", value: "0", allowed: "1 or more"))
            }
            var created = Snapshot(schema: schema, tick: tick, capacity: count)
            try readCreated(count: count, into: &created)
            snapshot = try merge(snapshot, created)
        }
        try reader.finish()
        return snapshot
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
    private mutating func readID(after previous: inout UInt64?) throws(CodecError) -> UInt32 {
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
            let id = try readID(after: &previous)
            let type = try reader.read(bits: schema.typeIndexBits)
            guard type < UInt64(typeCount) else { throw CodecError(.unknownEntityType(index: type, typeCount: typeCount)) }
            let layout = schema.layouts[Int(type)]
            snapshot.ids.append(id)
            snapshot.types.append(UInt8(type))
            snapshot.offsets.append(UInt32(snapshot.values.count))
            for field in 0..<layout.fieldCount {
                snapshot.values.append(try readFullValue(layout, field))
            }
        }
    }

    private mutating func readFullValue(_ layout: TypeLayout, _ field: Int) throws(CodecError) -> UInt64 {
        let value = try reader.read(bits: layout.fields[field].width)
        guard value <= layout.fields[field].maxQuantized else {
            throw CodecError(.valueOutOfRange(what: "field \(field) value", value: "\(value)", allowed: "0...\(layout.fields[field].maxQuantized)"))
        }
        return value
    }

    /// Copies the baseline's entities not in `destroyed` (sorted) into the empty `snapshot`.
    private func copySurvivors(of baseline: Snapshot, except destroyed: [UInt32], into snapshot: inout Snapshot) throws(CodecError) {
        snapshot.reserveCapacity(baseline.count - destroyed.count)
        var runStart = 0
        var position = 0
        for id in destroyed {
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
    private mutating func readChanges(baseline: Snapshot, into snapshot: inout Snapshot) throws(CodecError) {
        let survivors = snapshot.count
        // All indices come first, then the changes, so collect the indices before reading on.
        var marked: [Int32] = []
        if try reader.readBool() {
            let count = try reader.readVarint()
            guard count >= 1 && count <= UInt64(survivors) else {
                throw CodecError(.valueOutOfRange(what: "changed entity count", value: "\(count)", allowed: "1...\(survivors)"))
            }
            try requireBits(Int(count))
            marked.reserveCapacity(Int(count))
            var index: UInt64 = 0
            for number in 0..<Int(count) {
                let gap = try reader.readGamma()
                let (next, overflow) = (number == 0 ? 0 : index + 1).addingReportingOverflow(gap - 1)
                guard !overflow, next < UInt64(survivors) else {
                    throw CodecError(.entityIndexOutOfRange(index: overflow ? UInt64.max : next, count: survivors))
                }
                index = next
                marked.append(Int32(index))
            }
        } else {
            try requireBits(survivors)
            var index = 0
            while index < survivors {
                let run = min(64, survivors - index)
                var bits = try reader.read(bits: run)
                while bits != 0 {
                    marked.append(Int32(index + bits.trailingZeroBitCount))
                    bits &= bits - 1
                }
                index += run
            }
            guard !marked.isEmpty else {
                throw CodecError(.valueOutOfRange(what: "changed entity bits", value: "all 0", allowed: "at least one 1"))
            }
        }
        // Apply the changes through raw pointers: no per-entity layout copies or uniqueness checks.
        let flatFields = schema.flatFields, fieldStarts = schema.fieldStarts
        let types = snapshot.types, offsets = snapshot.offsets, ids = snapshot.ids
        var failure: CodecError?
        snapshot.values.withUnsafeMutableBufferPointer { values in
            flatFields.withUnsafeBufferPointer { fields in
                do throws(CodecError) {
                    for entity in marked {
                        let index = Int(entity), type = Int(types[index])
                        try readFieldChanges(
                            of: ids[index],
                            values: UnsafeMutableBufferPointer(rebasing: values[Int(offsets[index])...]),
                            fields: UnsafeBufferPointer(rebasing: fields[fieldStarts[type]..<fieldStarts[type + 1]])
                        )
                    }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
    }

    /// Reads one changed entity's field mask and changed values, applying them in place.
    ///
    /// `values` starts at the entity's first value; `fields` are its type's fields.
    private mutating func readFieldChanges(
        of id: UInt32, values: UnsafeMutableBufferPointer<UInt64>, fields: UnsafeBufferPointer<TypeLayout.FieldLayout>
    ) throws(CodecError) {
        var mask = try reader.read(bits: fields.count)
        guard mask != 0 else {
            throw CodecError(.valueOutOfRange(what: "changed field mask of entity \(id)", value: "0", allowed: "at least one 1"))
        }
        while mask != 0 {
            let field = mask.trailingZeroBitCount
            mask &= mask - 1
            let layout = fields[field]
            let isDelta = layout.deltaMode != .none ? try reader.readBool() : false
            if !isDelta {
                let value = try reader.read(bits: layout.width)
                guard value <= layout.maxQuantized else {
                    throw CodecError(.valueOutOfRange(what: "field \(field) of entity \(id)", value: "\(value)", allowed: "0...\(layout.maxQuantized)"))
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
                    throw CodecError(.valueOutOfRange(
                        what: "field \(field) of entity \(id) after a delta of \(delta) from \(old)",
                        value: overflow ? "overflow" : "\(new)", allowed: "0...\(layout.maxQuantized)"))
                }
                values[field] = UInt64(new)
            }
        }
    }

    /// Merges two snapshots with disjoint ids into one sorted snapshot.
    private func merge(_ survivors: Snapshot, _ created: Snapshot) throws(CodecError) -> Snapshot {
        var result = Snapshot(schema: schema, tick: survivors.tick, capacity: survivors.count + created.count)
        var i = 0
        for j in created.indices {
            let id = created.ids[j]
            var end = i
            while end < survivors.count && survivors.ids[end] < id { end += 1 }
            if end < survivors.count && survivors.ids[end] == id { throw CodecError(.duplicateEntity(id)) }
            result.appendEntities(of: survivors, in: i..<end)
            result.appendEntities(of: created, in: j..<j + 1)
            i = end
        }
        result.appendEntities(of: survivors, in: i..<survivors.count)
        return result
    }
}

/// The quantized state of a world at one tick: entities sorted by id, each with a type and
/// one quantized value per field of its type.
///
/// Storage is flat (ids, type indices and offsets into one shared value pool), so a snapshot of
/// thousands of entities is a handful of arrays and adding an entity allocates nothing per
/// entity once capacity is reserved. Entities are addressed by *index* (their position in id
/// order, `0..<count`); ``insert(id:type:)`` and ``remove(id:)`` shift later indices.
///
/// Values are stored quantized (see ``FieldKind``); ``double(at:field:)`` and
/// ``set(_:at:field:)`` convert. Text fields (``FieldKind/text(maxBytes:)``) keep their bytes
/// beside the numbers, by entity id, only when not empty: ``text(at:field:)`` and
/// ``setText(_:at:field:)``; a snapshot of a schema without text fields never touches them.
/// Accessing an index or field out of range is a programming
/// error and traps, as with arrays.
public struct Snapshot: Sendable {
    /// The schema the entities follow.
    public let schema: Schema
    /// The tick this snapshot was taken at.
    public var tick: UInt32

    var ids: [UInt32] = []
    var types: [UInt8] = []
    var offsets: [UInt32] = []
    var values: [UInt64] = []
    /// The non-empty texts, by ``textKey(id:field:)``; valid UTF-8 within each field's bound.
    var texts: [UInt64: [UInt8]] = [:]
    /// Pool slots no longer referenced (left by removals); compacted when they dominate.
    var unusedValues = 0
    /// Whether the value pool holds every entity's values in id order with nothing else, so
    /// runs of entities can be copied in bulk.
    var isPacked = true

    /// Creates an empty snapshot.
    ///
    /// - Parameters:
    ///   - schema: The schema its entities follow.
    ///   - tick: The tick it describes.
    ///   - capacity: Entities to reserve room for.
    public init(schema: Schema, tick: UInt32, capacity: Int = 0) {
        self.schema = schema
        self.tick = tick
        reserveCapacity(capacity)
    }

    /// Reserves room for `count` entities (and their values, assuming the widest type).
    ///
    /// - Parameter count: Entities.
    public mutating func reserveCapacity(_ count: Int) {
        guard count > 0 else { return }
        reserve(entities: count, values: count * schema.widestFieldCount)
    }

    /// Reserves room for `entities` entities and `values` pool slots in all (each array
    /// reallocates only when its capacity is short).
    ///
    /// With `headroom`, an array that already has storage and is short grows a quarter past
    /// the need, so that a reused snapshot whose world grows a little at a time does not
    /// reallocate each time. Only for trusted sizes: the headroom may pass a decoder's limit.
    mutating func reserve(entities: Int, values valueCount: Int, headroom: Bool = false) {
        func grow<Element>(_ array: inout [Element], to needed: Int) {
            guard array.capacity < needed else { return }
            array.reserveCapacity(headroom && array.capacity > 0 ? needed + needed / 4 : needed)
        }
        grow(&ids, to: entities)
        grow(&types, to: entities)
        grow(&offsets, to: entities)
        grow(&values, to: valueCount)
    }

    /// The pool slots that hold an entity's value (those not left unused by removals).
    var liveValueCount: Int { values.count - unusedValues }

    /// The number of entities.
    public var count: Int { ids.count }
    /// Whether there are no entities.
    public var isEmpty: Bool { ids.isEmpty }
    /// The valid entity indices, `0..<count`, in increasing id order.
    public var indices: Range<Int> { 0..<ids.count }
    /// The entity ids in increasing order.
    public var entityIDs: [UInt32] { ids }

    /// The index of the entity with `id` (binary search).
    ///
    /// - Parameter id: An entity id.
    /// - Returns: Its index, or `nil` when the snapshot has no such entity.
    public func index(of id: UInt32) -> Int? {
        let position = insertionPoint(of: id)
        return position < ids.count && ids[position] == id ? position : nil
    }

    /// The id of the entity at `index`.
    ///
    /// - Parameter index: An index in ``indices``.
    /// - Returns: The id.
    public func id(at index: Int) -> UInt32 { ids[index] }

    /// The type index (into ``Schema/entityTypes``) of the entity at `index`.
    ///
    /// - Parameter index: An index in ``indices``.
    /// - Returns: The type index.
    public func typeIndex(at index: Int) -> Int { Int(types[index]) }

    /// The quantized value of field `field` of the entity at `index`.
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The quantized value.
    public func value(at index: Int, field: Int) -> UInt64 {
        precondition(field >= 0 && field < schema.layouts[Int(types[index])].fieldCount, "field index out of range")
        return values[Int(offsets[index]) + field]
    }

    /// Sets the quantized value of field `field` of the entity at `index`.
    ///
    /// - Parameters:
    ///   - quantized: The value; clamped to the field's largest quantized value.
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    public mutating func setValue(_ quantized: UInt64, at index: Int, field: Int) {
        let layout = schema.layouts[Int(types[index])]
        precondition(field >= 0 && field < layout.fieldCount, "field index out of range")
        // A text field's quantized value is always 0 (its bytes are set with setText).
        let fieldLayout = layout.fields[field]
        values[Int(offsets[index]) + field] = fieldLayout.deltaMode == .text ? 0 : min(quantized, fieldLayout.maxQuantized)
    }

    /// The key of a text in ``texts``.
    @inline(__always)
    static func textKey(id: UInt32, field: Int) -> UInt64 { UInt64(id) << 8 | UInt64(field) }

    /// The text of a text field (``FieldKind/text(maxBytes:)``) of the entity at `index`.
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The text; empty for a new entity, and for a field of another kind.
    public func text(at index: Int, field: Int) -> String {
        String(decoding: textBytes(at: index, field: field), as: UTF8.self)
    }

    /// The UTF-8 bytes of a text field of the entity at `index`, as they travel.
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The bytes; empty for a new entity, and for a field of another kind.
    public func textBytes(at index: Int, field: Int) -> [UInt8] {
        precondition(field >= 0 && field < schema.layouts[Int(types[index])].fieldCount, "field index out of range")
        return texts[Snapshot.textKey(id: ids[index], field: field)] ?? []
    }

    /// Sets a text field of the entity at `index`, cut to the field's `maxBytes` at a character
    /// boundary (the longest prefix of whole Unicode scalars that fits), as numbers are clamped.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - index: An index in ``indices``.
    ///   - field: A text field index of the entity's type; a field of another kind is left as it is.
    public mutating func setText(_ text: String, at index: Int, field: Int) {
        let layout = schema.layouts[Int(types[index])]
        precondition(field >= 0 && field < layout.fieldCount, "field index out of range")
        guard layout.fields[field].deltaMode == .text else { return }
        let bytes = Snapshot.prefix(of: text, maxBytes: Int(layout.fields[field].maxQuantized))
        let key = Snapshot.textKey(id: ids[index], field: field)
        if bytes.isEmpty { texts[key] = nil } else { texts[key] = bytes }
    }

    /// The UTF-8 bytes of the longest prefix of whole Unicode scalars of `text` within `maxBytes`.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - maxBytes: The most bytes.
    /// - Returns: The bytes, valid UTF-8.
    package static func prefix(of text: String, maxBytes: Int) -> [UInt8] {
        var bytes = Array(text.utf8)
        guard bytes.count > maxBytes else { return bytes }
        var end = max(maxBytes, 0)
        // Back up over continuation bytes (10xxxxxx) to the start of the cut character.
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes.removeSubrange(end...)
        return bytes
    }

    /// The value of a field as a number (see ``FieldKind/dequantize(_:)``).
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The dequantized value.
    public func double(at index: Int, field: Int) -> Double {
        kind(at: index, field: field).dequantize(value(at: index, field: field))
    }

    /// Quantizes and sets a field (see ``FieldKind/quantize(_:)``).
    ///
    /// - Parameters:
    ///   - value: The number; clamped into the field's range.
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    public mutating func set(_ value: Double, at index: Int, field: Int) {
        setValue(kind(at: index, field: field).quantize(value), at: index, field: field)
    }

    /// The value of an integer, enumeration or boolean field as an integer.
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The value (the quantized value mapped back into the field's range).
    public func integer(at index: Int, field: Int) -> Int64 {
        kind(at: index, field: field).dequantizeInteger(value(at: index, field: field))
    }

    /// Sets an integer, enumeration or boolean field from an integer.
    ///
    /// - Parameters:
    ///   - value: The value; clamped into the field's range.
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    public mutating func set(integer value: Int64, at index: Int, field: Int) {
        setValue(kind(at: index, field: field).quantize(integer: value), at: index, field: field)
    }

    /// The kind of field `field` of the entity at `index`.
    ///
    /// - Parameters:
    ///   - index: An index in ``indices``.
    ///   - field: A field index of the entity's type.
    /// - Returns: The field's kind.
    public func kind(at index: Int, field: Int) -> FieldKind {
        schema.entityTypes[Int(types[index])].fields[field].kind
    }

    /// Adds an entity with every field at quantized value 0, keeping ids sorted.
    ///
    /// Appending ids in increasing order is O(1); inserting before existing ids shifts them.
    ///
    /// - Parameters:
    ///   - id: The new entity's id.
    ///   - type: Its type index in ``Schema/entityTypes``.
    /// - Returns: The new entity's index.
    /// - Throws: ``SnapshotError`` when the id is taken, the type unknown, or the snapshot full
    ///   (``CodecLimits/maxEntitiesPerSnapshot``).
    @discardableResult
    public mutating func insert(id: UInt32, type: Int) throws(SnapshotError) -> Int {
        guard type >= 0 && type < schema.layouts.count else {
            throw SnapshotError(.unknownEntityType(type, typeCount: schema.layouts.count))
        }
        guard ids.count < CodecLimits.maxEntitiesPerSnapshot else {
            throw SnapshotError(.tooManyEntities(limit: CodecLimits.maxEntitiesPerSnapshot))
        }
        let position = ids.last.map { $0 < id } ?? true ? ids.count : insertionPoint(of: id)
        if position < ids.count && ids[position] == id { throw SnapshotError(.duplicateEntity(id)) }
        let offset = UInt32(values.count)
        values.append(contentsOf: repeatElement(0, count: schema.layouts[type].fieldCount))
        if position == ids.count {
            isPacked = isPacked && unusedValues == 0
            ids.append(id)
            types.append(UInt8(type))
            offsets.append(offset)
        } else {
            isPacked = false
            ids.insert(id, at: position)
            types.insert(UInt8(type), at: position)
            offsets.insert(offset, at: position)
        }
        return position
    }

    /// Removes the entity with `id`.
    ///
    /// - Parameter id: An entity id.
    /// - Returns: Whether there was such an entity.
    @discardableResult
    public mutating func remove(id: UInt32) -> Bool {
        guard let position = index(of: id) else { return false }
        unusedValues += schema.layouts[Int(types[position])].fieldCount
        isPacked = false
        if !texts.isEmpty { removeTexts(of: id, type: Int(types[position])) }
        ids.remove(at: position)
        types.remove(at: position)
        offsets.remove(at: position)
        if unusedValues > 64 && unusedValues > values.count / 2 { compact() }
        return true
    }

    /// Removes every entity, keeping capacity.
    public mutating func removeAll() {
        ids.removeAll(keepingCapacity: true)
        types.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        if !texts.isEmpty { texts.removeAll() }
        unusedValues = 0
        isPacked = true
    }

    /// Forgets the texts of entity `id` of type `type`.
    mutating func removeTexts(of id: UInt32, type: Int) {
        var fields = schema.layouts[type].textFields
        while fields != 0 {
            texts[Snapshot.textKey(id: id, field: fields.trailingZeroBitCount)] = nil
            fields &= fields - 1
        }
    }

    /// Copies the texts of entity `id` of type `type` from `source`.
    mutating func copyTexts(of id: UInt32, type: Int, from source: Snapshot) {
        var fields = schema.layouts[type].textFields
        while fields != 0 {
            let key = Snapshot.textKey(id: id, field: fields.trailingZeroBitCount)
            if let text = source.texts[key] { texts[key] = text }
            fields &= fields - 1
        }
    }

    /// The fields of `fields` (a text field mask) whose texts for entity `id` differ between two
    /// snapshots' texts, as a field mask.
    static func textDifferences(_ current: [UInt64: [UInt8]], _ baseline: [UInt64: [UInt8]], id: UInt32, fields: UInt64) -> UInt64 {
        var rest = fields
        var mask: UInt64 = 0
        while rest != 0 {
            let field = rest.trailingZeroBitCount
            let key = textKey(id: id, field: field)
            if current[key] != baseline[key] { mask |= 1 << UInt64(field) }
            rest &= rest - 1
        }
        return mask
    }

    /// Whether entity `id` of type `type` has the same texts here and in `other`.
    func hasSameTexts(of id: UInt32, type: Int, as other: Snapshot) -> Bool {
        var fields = schema.layouts[type].textFields
        while fields != 0 {
            let key = Snapshot.textKey(id: id, field: fields.trailingZeroBitCount)
            if texts[key] != other.texts[key] { return false }
            fields &= fields - 1
        }
        return true
    }

    /// Rewrites the value pool in id order with no unused slots.
    mutating func compact() {
        var packed: [UInt64] = []
        packed.reserveCapacity(values.count - unusedValues)
        for index in ids.indices {
            let start = Int(offsets[index])
            let fieldCount = schema.layouts[Int(types[index])].fieldCount
            offsets[index] = UInt32(packed.count)
            packed.append(contentsOf: values[start..<start + fieldCount])
        }
        values = packed
        unusedValues = 0
        isPacked = true
    }

    /// Appends the entities `range` of `source` (all with ids above this snapshot's), in bulk
    /// when `source` is packed.
    mutating func appendEntities(of source: Snapshot, in range: Range<Int>) {
        guard !range.isEmpty else { return }
        if !source.texts.isEmpty {
            for index in range { copyTexts(of: source.ids[index], type: Int(source.types[index]), from: source) }
        }
        ids.append(contentsOf: source.ids[range])
        types.append(contentsOf: source.types[range])
        if source.isPacked {
            let start = Int(source.offsets[range.lowerBound])
            let end = range.upperBound < source.count ? Int(source.offsets[range.upperBound]) : source.values.count
            let shift = values.count - start
            for index in range {
                offsets.append(UInt32(Int(source.offsets[index]) + shift))
            }
            values.append(contentsOf: source.values[start..<end])
        } else {
            for index in range {
                let start = Int(source.offsets[index])
                offsets.append(UInt32(values.count))
                values.append(contentsOf: source.values[start..<start + schema.layouts[Int(source.types[index])].fieldCount])
            }
        }
    }

    /// The first position whose id is not below `id`.
    func insertionPoint(of id: UInt32) -> Int {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension Snapshot: Equatable {
    /// Snapshots are equal when they have the same schema, tick, entities, types and values
    /// (however their storage is laid out).
    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        guard lhs.tick == rhs.tick, lhs.schema.fingerprint == rhs.schema.fingerprint,
            lhs.ids == rhs.ids, lhs.types == rhs.types, lhs.texts == rhs.texts
        else { return false }
        for index in lhs.ids.indices {
            let fieldCount = lhs.schema.layouts[Int(lhs.types[index])].fieldCount
            let left = Int(lhs.offsets[index]), right = Int(rhs.offsets[index])
            for field in 0..<fieldCount where lhs.values[left + field] != rhs.values[right + field] {
                return false
            }
        }
        return true
    }
}

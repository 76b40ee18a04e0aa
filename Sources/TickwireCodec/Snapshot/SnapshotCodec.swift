/// Encodes snapshots as bit-packed deltas against a baseline and decodes them back
/// (`Protocol/PROTOCOL.md` §4).
///
/// Without a baseline the encoding is a full snapshot. With one, unchanged entities cost
/// nothing (or one bit each, whichever is cheaper for the snapshot), changed entities send only
/// their changed fields, each as a small delta from the baseline value when that is shorter,
/// created entities are sent whole and destroyed ones by id. An unchanged world costs a few
/// bytes of header.
///
/// ```swift
/// let codec = SnapshotCodec(schema: schema)
/// let bytes = try codec.encode(current, against: acknowledged)
/// let copy = try codec.decode(bytes, baseline: acknowledged)   // copy == current
/// ```
///
/// The decoder enforces ``limits`` before it allocates and throws ``CodecError`` for any input
/// it cannot accept; no input makes it trap.
public struct SnapshotCodec: Sendable {
    /// The schema both sides use.
    public let schema: Schema
    /// The limits the decoder enforces (and the encoder respects).
    public var limits: CodecLimits

    /// Creates a codec.
    ///
    /// - Parameters:
    ///   - schema: The schema of every snapshot it encodes and decodes.
    ///   - limits: Entity count and size limits; the protocol maxima by default.
    public init(schema: Schema, limits: CodecLimits = .default) {
        self.schema = schema
        self.limits = limits
        self.activityFields = EntropyModels.activityFields(schema)
    }

    /// Per type, the field whose baseline value is the entropy coder's activity bit (§4.5).
    let activityFields: [Int]

    /// Encodes `snapshot` as a delta against `baseline`, or whole when `baseline` is `nil`.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot to send.
    ///   - baseline: A snapshot the receiver holds (usually the newest it acknowledged), or `nil`.
    /// - Returns: The encoding; its header names `snapshot.tick` and the baseline's tick.
    /// - Throws: ``CodecError`` `.schemaMismatch` when a snapshot follows another schema,
    ///   `.tooManyEntities` or `.inputTooLarge` when the result would break ``limits``.
    public func encode(_ snapshot: Snapshot, against baseline: Snapshot?) throws(CodecError) -> [UInt8] {
        var writer = BitWriter(capacity: 64)
        try encode(snapshot, against: baseline, into: &writer)
        return writer.bytes
    }

    /// Encodes `snapshot` against `baseline` (whole when `nil`) in the given coding.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot to send.
    ///   - baseline: A snapshot the receiver holds (usually the newest it acknowledged), or `nil`.
    ///   - coding: ``DeltaCoding/bitPacked`` (§4.1, as ``encode(_:against:)``) or
    ///     ``DeltaCoding/entropy`` (§4.5, only for a peer that offered it).
    /// - Returns: The encoding; its header names `snapshot.tick` and the baseline's tick.
    /// - Throws: ``CodecError`` as ``encode(_:against:)``.
    public func encode(_ snapshot: Snapshot, against baseline: Snapshot?, coding: DeltaCoding) throws(CodecError) -> [UInt8] {
        guard coding.isEntropy else { return try encode(snapshot, against: baseline) }
        var motion = SnapshotMotion.zero
        return try encode(snapshot, against: baseline, coding: coding, baselineMotion: .zero, motion: &motion)
    }

    /// Encodes `snapshot` against `baseline` (whole when `nil`) in the given coding, with the
    /// baseline's motion for ``DeltaCoding/predictedEntropy`` (§4.5.6).
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot to send.
    ///   - baseline: A snapshot the receiver holds (usually the newest it acknowledged), or `nil`.
    ///   - coding: The connection's coding.
    ///   - baselineMotion: The motion kept with `baseline` when it was sent to this peer (``SnapshotMotion/zero`` when none).
    ///   - motion: Receives `snapshot`'s motion against `baseline`, to keep with it for this peer
    ///     (``SnapshotMotion/zero`` in the codings that do not predict).
    /// - Returns: The encoding; its header names `snapshot.tick` and the baseline's tick.
    /// - Throws: ``CodecError`` as ``encode(_:against:)``.
    public func encode(
        _ snapshot: Snapshot, against baseline: Snapshot?, coding: DeltaCoding, baselineMotion: SnapshotMotion,
        motion: inout SnapshotMotion
    ) throws(CodecError) -> [UInt8] {
        guard coding.isEntropy else {
            motion = .zero
            return try encode(snapshot, against: baseline)
        }
        try checkSchema(snapshot.schema)
        if let baseline { try checkSchema(baseline.schema) }
        guard snapshot.count <= limits.maxEntities else {
            throw CodecError(.tooManyEntities(count: UInt64(snapshot.count), limit: limits.maxEntities))
        }
        let predicts = coding.predictsMotion
        let scratch = EntropyScratch(tableSize: EntropyModels.tableSize(schema), slotCount: Self.motionSlots(predicts: predicts, baseline))
        defer { scratch.deallocate() }
        var encoder = EntropyDeltaEncoder(
            schema: schema, models: EntropyModels(table: scratch.table, schema: schema, activityFields: activityFields))
        let bytes: [UInt8]
        if predicts {
            bytes = encoder.encodePredicted(
                snapshot, against: baseline, baselineMotion: baselineMotion, motion: &motion, storage: scratch.slots,
                slots: scratch.slotCount)
        } else {
            motion = .zero
            bytes = encoder.encode(snapshot, against: baseline)
        }
        guard bytes.count <= limits.maxEncodedBytes else {
            throw CodecError(.inputTooLarge(count: bytes.count, limit: limits.maxEncodedBytes))
        }
        return bytes
    }

    /// Encodes `snapshot` as ``encode(_:against:)`` does, appending to `writer`.
    ///
    /// - Parameters:
    ///   - snapshot: The snapshot to send.
    ///   - baseline: A snapshot the receiver holds, or `nil`.
    ///   - writer: Receives the bits; reuse one (after ``BitWriter/removeAll()``) to avoid allocations.
    /// - Throws: ``CodecError`` as ``encode(_:against:)``.
    func encode(_ snapshot: Snapshot, against baseline: Snapshot?, into writer: inout BitWriter) throws(CodecError) {
        try checkSchema(snapshot.schema)
        if let baseline { try checkSchema(baseline.schema) }
        guard snapshot.count <= limits.maxEntities else {
            throw CodecError(.tooManyEntities(count: UInt64(snapshot.count), limit: limits.maxEntities))
        }
        let start = writer.bitCount
        var encoder = DeltaEncoder(schema: schema)
        encoder.encode(snapshot, against: baseline, into: &writer)
        let bytes = (writer.bitCount - start + 7) / 8
        guard bytes <= limits.maxEncodedBytes else {
            throw CodecError(.inputTooLarge(count: bytes, limit: limits.maxEncodedBytes))
        }
    }

    /// Decodes an encoding made by ``encode(_:against:)``.
    ///
    /// - Parameters:
    ///   - bytes: The encoding, exactly (trailing bytes are an error).
    ///   - baseline: The snapshot the encoding was made against, or `nil` for a full snapshot.
    ///     Read the tick it needs with ``header(of:)``.
    /// - Returns: The snapshot.
    /// - Throws: ``CodecError`` for truncated or malformed input, a missing or wrong baseline,
    ///   values outside their fields, unknown or duplicate entities, and broken ``limits``.
    public func decode(_ bytes: [UInt8], baseline: Snapshot?) throws(CodecError) -> Snapshot {
        guard bytes.count <= limits.maxEncodedBytes else {
            throw CodecError(.inputTooLarge(count: bytes.count, limit: limits.maxEncodedBytes))
        }
        if let baseline { try checkSchema(baseline.schema) }
        var decoder = DeltaDecoder(schema: schema, limits: limits, reader: BitReader(bytes))
        return try decoder.decode(baseline: baseline)
    }

    /// Decodes an encoding made by ``encode(_:against:)`` into `snapshot`, replacing its
    /// contents: the same result as ``decode(_:baseline:)`` without allocating, once
    /// `snapshot`'s arrays have grown to the world's size, when `snapshot` holds the only
    /// reference to its storage (a receiver keeps one spare snapshot and decodes into it).
    ///
    /// - Parameters:
    ///   - bytes: The encoding, exactly (trailing bytes are an error).
    ///   - baseline: The snapshot the encoding was made against, or `nil` for a full snapshot.
    ///   - snapshot: Receives the decoded snapshot. A snapshot of another schema is replaced
    ///     by a new one of ``schema``. On error it is left empty.
    /// - Throws: ``CodecError`` as ``decode(_:baseline:)``.
    public func decode(_ bytes: [UInt8], baseline: Snapshot?, into snapshot: inout Snapshot) throws(CodecError) {
        do throws(CodecError) {
            guard bytes.count <= limits.maxEncodedBytes else {
                throw CodecError(.inputTooLarge(count: bytes.count, limit: limits.maxEncodedBytes))
            }
            if let baseline { try checkSchema(baseline.schema) }
        } catch {
            snapshot.removeAll()
            throw error
        }
        var decoder = DeltaDecoder(schema: schema, limits: limits, reader: BitReader(bytes))
        try decoder.decode(baseline: baseline, into: &snapshot)
    }

    /// Decodes an encoding made by ``encode(_:against:coding:)`` in `coding` into `snapshot`,
    /// replacing its contents (see ``decode(_:baseline:into:)``).
    ///
    /// - Parameters:
    ///   - bytes: The encoding, exactly (trailing bytes are an error).
    ///   - baseline: The snapshot the encoding was made against, or `nil` for a full snapshot.
    ///   - coding: The coding the sender used (the one the welcome named).
    ///   - snapshot: Receives the decoded snapshot; left empty on error.
    /// - Throws: ``CodecError`` as ``decode(_:baseline:)``, and `.malformedRangeCode` for an
    ///   entropy-coded payload no encoder produces.
    public func decode(_ bytes: [UInt8], baseline: Snapshot?, coding: DeltaCoding, into snapshot: inout Snapshot) throws(CodecError) {
        var motion = SnapshotMotion.zero
        try decode(bytes, baseline: baseline, coding: coding, baselineMotion: .zero, into: &snapshot, motion: &motion)
    }

    /// Decodes an encoding made by ``encode(_:against:coding:baselineMotion:motion:)`` into
    /// `snapshot`, replacing its contents (see ``decode(_:baseline:into:)``), with the baseline's
    /// motion for ``DeltaCoding/predictedEntropy`` (§4.5.6).
    ///
    /// - Parameters:
    ///   - bytes: The encoding, exactly (trailing bytes are an error).
    ///   - baseline: The snapshot the encoding was made against, or `nil` for a full snapshot.
    ///   - coding: The coding the sender used (the one the welcome named).
    ///   - baselineMotion: The motion kept with `baseline` when it was decoded (``SnapshotMotion/zero`` when none).
    ///   - snapshot: Receives the decoded snapshot; left empty on error.
    ///   - motion: Receives the decoded snapshot's motion, to keep with it (``SnapshotMotion/zero``
    ///     in the codings that do not predict, and on error).
    /// - Throws: ``CodecError`` as ``decode(_:baseline:)``, `.malformedRangeCode` for an
    ///   entropy-coded payload no encoder produces, and `.valueOutOfRange` for a prediction the
    ///   header may not ask for.
    public func decode(
        _ bytes: [UInt8], baseline: Snapshot?, coding: DeltaCoding, baselineMotion: SnapshotMotion, into snapshot: inout Snapshot,
        motion: inout SnapshotMotion
    ) throws(CodecError) {
        motion = .zero
        guard coding.isEntropy else { return try decode(bytes, baseline: baseline, into: &snapshot) }
        do throws(CodecError) {
            guard bytes.count <= limits.maxEncodedBytes else {
                throw CodecError(.inputTooLarge(count: bytes.count, limit: limits.maxEncodedBytes))
            }
            if let baseline { try checkSchema(baseline.schema) }
        } catch {
            snapshot.removeAll()
            throw error
        }
        let predicts = coding.predictsMotion
        let scratch = EntropyScratch(tableSize: EntropyModels.tableSize(schema), slotCount: Self.motionSlots(predicts: predicts, baseline))
        defer { scratch.deallocate() }
        var decoder = EntropyDeltaDecoder(
            schema: schema, limits: limits, bytes: bytes,
            models: EntropyModels(table: scratch.table, schema: schema, activityFields: activityFields))
        if predicts {
            try decoder.decodePredicted(
                baseline: baseline, baselineMotion: baselineMotion, into: &snapshot, motion: &motion, storage: scratch.slots,
                slots: scratch.slotCount)
        } else {
            try decoder.decode(baseline: baseline, into: &snapshot)
        }
    }

    /// Decodes an encoding made by ``encode(_:against:coding:)`` in `coding`.
    ///
    /// - Parameters:
    ///   - bytes: The encoding, exactly (trailing bytes are an error).
    ///   - baseline: The snapshot the encoding was made against, or `nil` for a full snapshot.
    ///   - coding: The coding the sender used.
    /// - Returns: The snapshot.
    /// - Throws: ``CodecError`` as ``decode(_:baseline:coding:into:)``.
    public func decode(_ bytes: [UInt8], baseline: Snapshot?, coding: DeltaCoding) throws(CodecError) -> Snapshot {
        var snapshot = Snapshot(schema: schema, tick: 0)
        try decode(bytes, baseline: baseline, coding: coding, into: &snapshot)
        return snapshot
    }

    /// Reads the header of an encoding: its tick and the baseline tick it needs. Both codings
    /// (``DeltaCoding``) start with the same header.
    ///
    /// - Parameter bytes: An encoding.
    /// - Returns: The header.
    /// - Throws: ``CodecError`` when the header itself is truncated or malformed.
    public static func header(of bytes: [UInt8]) throws(CodecError) -> SnapshotHeader {
        var reader = BitReader(bytes)
        let tick = try reader.readVarint32("snapshot tick")
        guard try reader.readBool() else { return SnapshotHeader(tick: tick, baselineTick: nil) }
        let age = try reader.readVarint32("baseline age")
        // Wrapping subtraction: ticks are counted modulo 2^32.
        return SnapshotHeader(tick: tick, baselineTick: tick &- age)
    }

    /// The motion slots an entropy-coded snapshot against `baseline` needs: ``MotionBuilder/capacity(for:)``
    /// in the coding that `predicts`, one otherwise.
    private static func motionSlots(predicts: Bool, _ baseline: Snapshot?) -> Int {
        guard predicts, let baseline else { return 1 }
        return MotionBuilder.capacity(for: baseline)
    }

    private func checkSchema(_ other: Schema) throws(CodecError) {
        guard other.fingerprint == schema.fingerprint else {
            throw CodecError(.schemaMismatch(expected: schema.fingerprint, given: other.fingerprint))
        }
    }
}

/// The header of an encoded snapshot.
public struct SnapshotHeader: Hashable, Sendable {
    /// The tick of the encoded snapshot.
    public var tick: UInt32
    /// The tick of the baseline it was encoded against, or `nil` for a full snapshot.
    public var baselineTick: UInt32?

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - tick: The snapshot's tick.
    ///   - baselineTick: The baseline's tick, or `nil`.
    public init(tick: UInt32, baselineTick: UInt32?) {
        self.tick = tick
        self.baselineTick = baselineTick
    }
}

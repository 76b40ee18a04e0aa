/// Turns the frames of one recorded connection into text a person can follow: message type,
/// sizes on the wire and after inflation, the message's fields, and for snapshots the entities
/// created, changed (each changed field old → new, dequantized, by name) and destroyed.
///
/// Feed it every frame of the connection in order: it keeps a ``FrameDecompressor`` per
/// direction, switching both to the compression mode the welcome announces (as the peers do),
/// and the decoded snapshots by tick, so that later deltas decode against their baselines.
///
/// ```swift
/// let inspector = FrameInspector(schema: reader.schema)
/// while let frame = try reader.next() {
///     for line in inspector.inspect(frame) { print(line) }
/// }
/// ```
///
/// Not thread-safe: it owns zlib streams; use it from one thread at a time.
public final class FrameInspector {
    /// How many decoded snapshots are kept as possible baselines (the newest ones).
    public static let maximumStoredSnapshots = 64
    /// The most entity lines printed for one snapshot; the rest are counted in one line.
    public static let maximumEntityLines = 200

    /// The schema the snapshots follow.
    public let schema: Schema
    /// The limits every frame must respect.
    public let limits: FrameLimits
    private let codec: SnapshotCodec
    /// How snapshot deltas are coded, from the welcome.
    private var deltaCoding = DeltaCoding.bitPacked
    private var toClient: FrameDecompressor?
    private var toServer: FrameDecompressor?
    /// The snapshots seen, by tick, each with its motion (kept for ``DeltaCoding/predictedEntropy``).
    private var snapshots: [UInt32: (snapshot: Snapshot, motion: SnapshotMotion)] = [:]
    private var snapshotOrder: [UInt32] = []
    private var firstTime: UInt64?

    /// Creates an inspector for one connection.
    ///
    /// - Parameters:
    ///   - schema: The schema of the connection's snapshots.
    ///   - limits: The frame limits to decode with; the protocol's by default.
    public init(schema: Schema, limits: FrameLimits = .standard) {
        self.schema = schema
        self.limits = limits
        self.codec = SnapshotCodec(schema: schema)
        self.toClient = .uncompressed(limits: limits)
        self.toServer = .uncompressed(limits: limits)
    }

    /// Describes one frame, decoding it in the connection's state (compression, baselines).
    ///
    /// - Parameter frame: The next frame of the connection.
    /// - Returns: The text lines: a heading, the message's fields, and the entity changes of a
    ///   snapshot; an `error:` line when the frame cannot be decoded.
    public func inspect(_ frame: RecordedFrame) -> [String] {
        let origin = firstTime ?? frame.time
        firstTime = origin
        let elapsed = frame.time >= origin ? Double(frame.time - origin) / 1_000_000 : 0
        let when = "[+" + FrameInspector.format(elapsed, decimals: 3) + " s]"
        guard let decompressor = frame.direction == .toClient ? toClient : toServer else {
            return ["\(when) \(frame.direction) \(frame.bytes.count) B", "  error: zlib could not be set up"]
        }
        let opened: Frame
        do {
            opened = try decompressor.decompress(frame.bytes)
        } catch {
            return ["\(when) \(frame.direction) \(frame.bytes.count) B", "  error: \(error)"]
        }
        let isCompressed = (frame.bytes.first ?? 0) & Frame.compressedFlag != 0
        let sizes =
            isCompressed
            ? "\(frame.bytes.count) B on the wire, body \(frame.bytes.count - 1) B compressed → \(opened.body.count) B"
            : "\(frame.bytes.count) B on the wire, body \(opened.body.count) B uncompressed"
        var lines = ["\(when) \(frame.direction): \(opened.type), \(sizes)"]
        let message: Message
        do {
            message = try Message(type: opened.type, body: opened.body, limits: limits)
        } catch {
            lines.append("  error: \(error)")
            return lines
        }
        lines.append("  \(message)")
        switch message {
        case .welcome(let welcome):
            // Both directions use the announced compression from the next frame on.
            toClient = try? FrameDecompressor(mode: welcome.compression, limits: limits)
            toServer = try? FrameDecompressor(mode: welcome.compression, limits: limits)
            deltaCoding = welcome.deltaCoding
        case .snapshot(let snapshot):
            lines.append(contentsOf: describe(snapshot))
        default:
            break
        }
        return lines
    }

    /// Decodes a snapshot message against its stored baseline, stores the result, and lists the changes.
    private func describe(_ message: Message.Snapshot) -> [String] {
        var baseline: Snapshot? = nil
        var baselineMotion = SnapshotMotion.zero
        if let tick = message.baselineTick {
            guard let stored = snapshots[tick] else {
                return ["  error: baseline tick \(tick) is not among the snapshots seen, so the delta cannot be decoded"]
            }
            baseline = stored.snapshot
            baselineMotion = stored.motion
        }
        var snapshot = Snapshot(schema: schema, tick: 0)
        var motion = SnapshotMotion.zero
        do {
            try codec.decode(
                message.delta, baseline: baseline, coding: deltaCoding, baselineMotion: baselineMotion, into: &snapshot, motion: &motion)
        } catch {
            return ["  error: \(error)"]
        }
        store(snapshot, motion: motion)
        return changes(from: baseline, to: snapshot)
    }

    private func store(_ snapshot: Snapshot, motion: SnapshotMotion) {
        if snapshots.updateValue((snapshot, motion), forKey: snapshot.tick) == nil { snapshotOrder.append(snapshot.tick) }
        while snapshotOrder.count > Self.maximumStoredSnapshots {
            snapshots[snapshotOrder.removeFirst()] = nil
        }
    }

    /// Lines for the entities created, changed and destroyed between two snapshots.
    func changes(from baseline: Snapshot?, to snapshot: Snapshot) -> [String] {
        var lines: [String] = []
        var created = 0, changed = 0, destroyed = 0, unchanged = 0, hidden = 0
        func add(_ line: String) {
            if lines.count < Self.maximumEntityLines { lines.append(line) } else { hidden += 1 }
        }
        let old = baseline
        var oldIndex = 0
        let oldCount = old?.count ?? 0
        for index in snapshot.indices {
            let id = snapshot.id(at: index)
            while let old, oldIndex < oldCount, old.id(at: oldIndex) < id {
                add("  destroyed \(entityName(old, oldIndex))")
                destroyed += 1
                oldIndex += 1
            }
            if let old, oldIndex < oldCount, old.id(at: oldIndex) == id, old.typeIndex(at: oldIndex) == snapshot.typeIndex(at: index) {
                let fields = schema.entityTypes[snapshot.typeIndex(at: index)].fields
                var differences: [String] = []
                for (field, descriptor) in fields.enumerated() {
                    let before = Self.format(old, oldIndex, field, of: descriptor.kind)
                    let after = Self.format(snapshot, index, field, of: descriptor.kind)
                    if before != after { differences.append("\(descriptor.name) \(before) → \(after)") }
                }
                if differences.isEmpty {
                    unchanged += 1
                } else {
                    changed += 1
                    add("  changed \(entityName(snapshot, index)): " + differences.joined(separator: ", "))
                }
                oldIndex += 1
            } else {
                if let old, oldIndex < oldCount, old.id(at: oldIndex) == id {
                    add("  destroyed \(entityName(old, oldIndex))")
                    destroyed += 1
                    oldIndex += 1
                }
                let fields = schema.entityTypes[snapshot.typeIndex(at: index)].fields
                let values = fields.enumerated().map { field, descriptor in
                    "\(descriptor.name) \(Self.format(snapshot, index, field, of: descriptor.kind))"
                }
                created += 1
                add("  created \(entityName(snapshot, index))" + (values.isEmpty ? "" : ": " + values.joined(separator: ", ")))
            }
        }
        while let old, oldIndex < oldCount {
            add("  destroyed \(entityName(old, oldIndex))")
            destroyed += 1
            oldIndex += 1
        }
        if hidden > 0 { lines.append("  … \(hidden) more entity lines not shown") }
        lines.append(
            "  = \(snapshot.count) entities: \(created) created, \(changed) changed, \(destroyed) destroyed, \(unchanged) unchanged")
        return lines
    }

    private func entityName(_ snapshot: Snapshot, _ index: Int) -> String {
        "\(schema.entityTypes[snapshot.typeIndex(at: index)].name) \(snapshot.id(at: index))"
    }

    /// A quantized value as a person reads it: `true`/`false`, the integer or case number,
    /// a float to the digits its resolution carries, an angle in degrees.
    ///
    /// - Parameters:
    ///   - quantized: The value on the wire.
    ///   - kind: Its field's kind.
    /// - Returns: The text.
    /// A field of an entity in words: a text quoted (protocol 1.2), a number as ``format(_:of:)`` writes it.
    static func format(_ snapshot: Snapshot, _ index: Int, _ field: Int, of kind: FieldKind) -> String {
        guard kind.maxTextBytes != nil else { return format(snapshot.value(at: index, field: field), of: kind) }
        return "\"" + snapshot.text(at: index, field: field) + "\""
    }

    static func format(_ quantized: UInt64, of kind: FieldKind) -> String {
        switch kind.storage {
        case .bool:
            return quantized != 0 ? "true" : "false"
        case .integer, .enumeration:
            return String(kind.dequantizeInteger(quantized))
        case let .float(_, _, resolution):
            var decimals = 0
            var step = resolution
            while decimals < 6 && (step - step.rounded()).magnitude > 1e-9 {
                step *= 10
                decimals += 1
            }
            return format(kind.dequantize(quantized), decimals: decimals)
        case .angle:
            return format(kind.dequantize(quantized) * 180 / Double.pi, decimals: 2) + "°"
        case .text:
            // A text's bytes are not a quantized value; the snapshot holds them.
            return "text"
        }
    }

    /// `value` with exactly `decimals` digits after the point (rounded half away from zero).
    static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let whole = UInt64(scaled)
        let unit = UInt64(scale)
        var text = String(whole / unit)
        if decimals > 0 {
            let fraction = String(whole % unit)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return (value < 0 && whole != 0 ? "-" : "") + text
    }
}

@available(*, unavailable, message: "A FrameInspector owns zlib streams; use it from one thread at a time.")
extension FrameInspector: Sendable {}

import CommandLineSupport
import Foundation
import Tickwire
import TickwireZlib

/// `tickwire bench codec [--json] [--runs N] [--scene NAME] [--no-json]`: sizes and speeds of JSON, the full binary
/// snapshot, the delta, the entropy-coded delta, and the delta with per-frame and streaming
/// zlib, on four seeded scenes (see `BenchCodecScenes.swift`, `BenchCodecCubes.swift`), each
/// encoding also as a ratio to the scene's zeroth-order bound (`BenchCodecBound.swift`); then a game client's cost to receive a busy arena
/// room's snapshots (scene `arena-client-56`, see `BenchClientReceive.swift`).
///
/// Every encoding is first run once untimed and decoded back and compared with its input
/// (the benchmark fails if anything does not round-trip); then `--runs` timed runs (default 5;
/// JSON at most 3) encode and decode every measured snapshot, and the median run is reported.
/// Times are the thread's CPU time (so that other processes on a shared machine do not inflate
/// them); `--json` also gives the median wall-clock times.
/// `--no-json` skips the (slow) JSON rows, for profiling; the JSON ratios are then left out.
/// Snapshots 6...599 are measured, so that every delta has its baseline (the previous tick, or
/// six ticks back).
enum BenchCodecCommand {
    static let firstMeasuredTick = 6

    /// What `tickwire bench codec` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench codec",
        synopsis: ["[--json] [--runs N] [--scene NAME] [--encoding PREFIX,...] [--no-json]"],
        summary: "codec benchmark: JSON vs binary vs delta vs entropy vs zlib, on seeded scenes, and a client's receive cost",
        options: [
            .flag("json", "machine-readable output"),
            .value("runs", "N", default: "5; JSON at most 3", "timed runs per encoding, 1...100, the median reported"),
            .value("scene", "NAME", default: "all", "only arena-1000, moving-60, idle-1000, cubes-900 or arena-client-56"),
            .value("encoding", "PREFIX,...", default: "all", "only the encodings whose names start with one of these (for profiling)"),
            .flag("no-json", "skip the slow Codable JSON rows (for profiling; the JSON ratios are then left out)"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        let runs = try parsed.integer("runs", default: 5)
        let only = parsed.string("scene")
        let encodings = parsed.string("encoding").map { $0.split(separator: ",").map(String.init) }
        let skipJSON = parsed.flag("no-json")
        try parsed.rejectUnknown()
        guard (1...100).contains(runs) else { throw CommandArguments.UsageError(description: "--runs wants 1...100") }
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench codec`\n")
        #endif
        var reports: [BenchSceneReport] = []
        for scene in try BenchScenes.all() where only == nil || only == scene.name {
            reports.append(try measure(scene, runs: runs, skipJSON: skipJSON, encodings: encodings))
        }
        var report = BenchCodecReport(scenes: reports, runs: runs)
        if only == nil || only == BenchClientScene.name {
            report.clientReceive = try BenchClientReceive.measure(runs: runs)
        }
        try report.print(asJSON: asJSON)
    }

    /// What one encoding puts on the wire for one snapshot.
    struct Payload {
        var bytes: [UInt8]
        /// Whether `bytes` is deflate output (a frame with the compressed flag, PROTOCOL.md §5.1).
        var isCompressed = false
    }

    /// One encoding's work for one run: fresh state (zlib streams), encode and decode closures.
    struct Pipeline {
        let name: String
        let baselineDistance: Int?
        /// Builds fresh per-run state and returns (encode tick, decode tick's payload and verify when asked).
        let start: () throws -> (encode: (Int) throws -> Payload, decode: (Int, Payload, Bool) throws -> Void)
    }

    /// The empty stored block a sync flush ends with; PROTOCOL.md §6.3 strips it on the wire.
    static let syncTrailer: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    struct RoundTripFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func pipelines(for scene: BenchScene) throws -> [Pipeline] {
        let codec = SnapshotCodec(schema: scene.schema)
        let snapshots = scene.snapshots
        let limit = InflationLimit(maximumBytes: CodecLimits.defaultMaxEncodedBytes)
        var result: [Pipeline] = [
            Pipeline(name: "JSON (Codable, full)", baselineDistance: nil) {
                let encoder = JSONEncoder(), decoder = JSONDecoder()
                return (
                    { tick in Payload(bytes: Array(try encoder.encode(scene.json[tick]))) },
                    { tick, payload, verify in
                        let document = try decoder.decode(JSONWorldSnapshot.self, from: Data(payload.bytes))
                        if verify && document != scene.json[tick] {
                            throw RoundTripFailure(description: "JSON tick \(tick) did not round-trip")
                        }
                    }
                )
            },
            Pipeline(name: "binary full", baselineDistance: nil) {
                (
                    { tick in Payload(bytes: try codec.encode(snapshots[tick], against: nil)) },
                    { tick, payload, verify in
                        let decoded = try codec.decode(payload.bytes, baseline: nil)
                        if verify && decoded != snapshots[tick] {
                            throw RoundTripFailure(description: "full snapshot \(tick) did not round-trip")
                        }
                    }
                )
            },
        ]
        for distance in [1, 6] {
            let label = distance == 1 ? "prev" : "6 back"
            let check = { (tick: Int, decoded: Snapshot, verify: Bool) throws in
                if verify && decoded != snapshots[tick] {
                    throw RoundTripFailure(description: "delta \(tick) against \(tick - distance) did not round-trip")
                }
            }
            result.append(
                Pipeline(name: "delta (\(label))", baselineDistance: distance) {
                    (
                        { tick in Payload(bytes: try codec.encode(snapshots[tick], against: snapshots[tick - distance])) },
                        { tick, payload, verify in
                            try check(tick, try codec.decode(payload.bytes, baseline: snapshots[tick - distance]), verify)
                        }
                    )
                })
            // The entropy-coded delta of PROTOCOL.md §4.5 (used with peers that offered it).
            result.append(
                Pipeline(name: "entropy (\(label))", baselineDistance: distance) {
                    (
                        { tick in Payload(bytes: try codec.encode(snapshots[tick], against: snapshots[tick - distance], coding: .entropy))
                        },
                        { tick, payload, verify in
                            try check(tick, try codec.decode(payload.bytes, baseline: snapshots[tick - distance], coding: .entropy), verify)
                        }
                    )
                })
            // The motion-predicted entropy coding of PROTOCOL.md §4.5.6 (used with Tickwire clients
            // that offered it): each snapshot coded against its baseline and the baseline's motion
            // (the motion kept when the baseline itself was coded against the snapshot `distance`
            // before it). Motions are a function of a snapshot and its baseline alone, so the chain
            // is computed once, untimed; the timed encoder and decoder each compute the new motion.
            var motions: [SnapshotMotion] = []
            for tick in snapshots.indices {
                var motion = SnapshotMotion.zero
                let baseline = tick >= distance ? snapshots[tick - distance] : nil
                let baselineMotion = tick >= distance ? motions[tick - distance] : .zero
                _ = try codec.encode(
                    snapshots[tick], against: baseline, coding: .predictedEntropy, baselineMotion: baselineMotion, motion: &motion)
                motions.append(motion)
            }
            let chain = motions
            result.append(
                Pipeline(name: "predicted entropy (\(label))", baselineDistance: distance) {
                    (
                        { tick in
                            var motion = SnapshotMotion.zero
                            return Payload(
                                bytes: try codec.encode(
                                    snapshots[tick], against: snapshots[tick - distance], coding: .predictedEntropy,
                                    baselineMotion: chain[tick - distance], motion: &motion))
                        },
                        { tick, payload, verify in
                            var decoded = Snapshot(schema: codec.schema, tick: 0)
                            var motion = SnapshotMotion.zero
                            try codec.decode(
                                payload.bytes, baseline: snapshots[tick - distance], coding: .predictedEntropy,
                                baselineMotion: chain[tick - distance], into: &decoded, motion: &motion)
                            try check(tick, decoded, verify)
                            if verify && motion != chain[tick] {
                                throw RoundTripFailure(description: "the motion decoded with \(tick) is not the encoder's")
                            }
                        }
                    )
                })
            // Per-frame zlib as PROTOCOL.md §6.2 sends it: each delta its own zlib stream, sent
            // compressed only when that is shorter.
            result.append(
                Pipeline(name: "delta+zlib frame (\(label))", baselineDistance: distance) {
                    let deflater = try Deflater(format: .zlib), inflater = try Inflater(format: .zlib)
                    return (
                        { tick in
                            let delta = try codec.encode(snapshots[tick], against: snapshots[tick - distance])
                            let compressed = deflater.compress(delta, flush: .finish)
                            return compressed.count < delta.count ? Payload(bytes: compressed, isCompressed: true) : Payload(bytes: delta)
                        },
                        { tick, payload, verify in
                            let delta =
                                payload.isCompressed
                                ? try inflater.inflate(payload.bytes, limit: limit, requiresEnd: true) : payload.bytes
                            try check(tick, try codec.decode(delta, baseline: snapshots[tick - distance]), verify)
                        }
                    )
                })
            // Streaming zlib as PROTOCOL.md §6.3 sends it: one raw deflate stream with a sync flush
            // per delta, the 00 00 FF FF trailer stripped, sent compressed only when that is shorter;
            // an uncompressed delta still joins the receiver's window as a stored block.
            result.append(
                Pipeline(name: "delta+zlib stream (\(label))", baselineDistance: distance) {
                    let deflater = try Deflater(format: .raw), inflater = try Inflater(format: .raw)
                    return (
                        { tick in
                            let delta = try codec.encode(snapshots[tick], against: snapshots[tick - distance])
                            var compressed = deflater.compress(delta, flush: .sync)
                            if compressed.suffix(4).elementsEqual(syncTrailer) { compressed.removeLast(4) }
                            return compressed.count < delta.count ? Payload(bytes: compressed, isCompressed: true) : Payload(bytes: delta)
                        },
                        { tick, payload, verify in
                            let delta: [UInt8]
                            if payload.isCompressed {
                                delta = try inflater.inflate(payload.bytes + syncTrailer, limit: limit)
                            } else {
                                // A stored block (BFINAL 0, BTYPE 00), LEN and NLEN little-endian; deltas are < 64 KiB here.
                                let length = UInt16(payload.bytes.count)
                                let header: [UInt8] = [
                                    0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8),
                                ]
                                _ = try inflater.inflate(header + payload.bytes, limit: limit)
                                delta = payload.bytes
                            }
                            try check(tick, try codec.decode(delta, baseline: snapshots[tick - distance]), verify)
                        }
                    )
                })
        }
        return result
    }

    static func measure(_ scene: BenchScene, runs: Int, skipJSON: Bool, encodings prefixes: [String]? = nil) throws -> BenchSceneReport {
        let ticks = Array(firstMeasuredTick..<scene.snapshots.count)
        let entities = Double(ticks.reduce(0) { $0 + scene.snapshots[$1].count }) / Double(ticks.count)
        var changed: [Int: Double] = [:]
        for distance in [1, 6] {
            let total = ticks.reduce(0) { $0 + changedEntities(scene.snapshots[$1], against: scene.snapshots[$1 - distance]) }
            changed[distance] = Double(total) / Double(ticks.count)
        }
        let bounds = [
            1: BenchBound.bytesPerSnapshot(scene, distance: 1, ticks: ticks),
            6: BenchBound.bytesPerSnapshot(scene, distance: 6, ticks: ticks),
        ]
        var encodings: [BenchEncodingReport] = []
        var jsonBytes: Double?
        for pipeline in try pipelines(for: scene)
        where !(skipJSON && pipeline.name.hasPrefix("JSON")) && (prefixes?.contains { pipeline.name.hasPrefix($0) } ?? true) {
            // Untimed pass: sizes, and a check that every snapshot round-trips.
            let (encode, decode) = try pipeline.start()
            var encoded: [Payload] = []
            for tick in ticks { encoded.append(try encode(tick)) }
            for (tick, payload) in zip(ticks, encoded) { try decode(tick, payload, true) }
            let bytesPerSnapshot = Double(encoded.reduce(0) { $0 + $1.bytes.count }) / Double(ticks.count)
            if pipeline.name.hasPrefix("JSON") { jsonBytes = bytesPerSnapshot }

            var encodeTimes: [Double] = [], decodeTimes: [Double] = []
            var wallEncodeTimes: [Double] = [], wallDecodeTimes: [Double] = []
            let timedRuns = pipeline.name.hasPrefix("JSON") ? min(runs, 3) : runs
            for _ in 0..<timedRuns {
                let (encode, decode) = try pipeline.start()
                var outputs: [Payload] = []
                outputs.reserveCapacity(ticks.count)
                let clock = ContinuousClock()
                let encodeStart = clock.now, encodeCPU = threadCPUSeconds()
                for tick in ticks { outputs.append(try encode(tick)) }
                let decodeStart = clock.now, decodeCPU = threadCPUSeconds()
                for (tick, payload) in zip(ticks, outputs) { try decode(tick, payload, false) }
                let end = clock.now, endCPU = threadCPUSeconds()
                encodeTimes.append((decodeCPU - encodeCPU) / Double(ticks.count))
                decodeTimes.append((endCPU - decodeCPU) / Double(ticks.count))
                wallEncodeTimes.append(seconds(decodeStart - encodeStart) / Double(ticks.count))
                wallDecodeTimes.append(seconds(end - decodeStart) / Double(ticks.count))
            }
            let changedPerSnapshot = changed[pipeline.baselineDistance ?? 1] ?? 0
            let encodeTime = median(encodeTimes), decodeTime = median(decodeTimes)
            encodings.append(
                BenchEncodingReport(
                    name: pipeline.name,
                    bytesPerSnapshot: bytesPerSnapshot,
                    bytesPerEntity: bytesPerSnapshot / max(entities, 1),
                    bytesPerChangedEntity: changedPerSnapshot > 0 ? bytesPerSnapshot / changedPerSnapshot : nil,
                    kbitPerSecond: bytesPerSnapshot * 8 * Double(scene.hz) / 1000,
                    encodeMicrosecondsPerSnapshot: encodeTime * 1e6,
                    decodeMicrosecondsPerSnapshot: decodeTime * 1e6,
                    encodeNanosecondsPerEntity: encodeTime * 1e9 / max(entities, 1),
                    decodeNanosecondsPerEntity: decodeTime * 1e9 / max(entities, 1),
                    codecNanosecondsPerChangedEntity: changedPerSnapshot > 0 ? (encodeTime + decodeTime) * 1e9 / changedPerSnapshot : nil,
                    wallEncodeMicrosecondsPerSnapshot: median(wallEncodeTimes) * 1e6,
                    wallDecodeMicrosecondsPerSnapshot: median(wallDecodeTimes) * 1e6,
                    timesSmallerThanJSON: jsonBytes.map { $0 / bytesPerSnapshot },
                    ratioToZerothOrderBound: (bounds[pipeline.baselineDistance ?? 1] ?? 0) > 0
                        ? bytesPerSnapshot / (bounds[pipeline.baselineDistance ?? 1] ?? 1) : nil
                ))
        }
        return BenchSceneReport(
            name: scene.name, summary: scene.summary, hz: scene.hz, entitiesPerSnapshot: entities,
            snapshotsMeasured: ticks.count, changedPerSnapshotVsPrevious: changed[1] ?? 0,
            changedPerSnapshotVsSixBack: changed[6] ?? 0,
            zerothOrderBoundBytesVsPrevious: bounds[1] ?? 0, zerothOrderBoundBytesVsSixBack: bounds[6] ?? 0,
            encodings: encodings
        )
    }

    /// Entities created, destroyed or with any changed field between `baseline` and `current`.
    static func changedEntities(_ current: Snapshot, against baseline: Snapshot) -> Int {
        var count = 0, i = 0, j = 0
        while i < current.count || j < baseline.count {
            if j == baseline.count || (i < current.count && current.id(at: i) < baseline.id(at: j)) {
                count += 1
                i += 1
            } else if i == current.count || baseline.id(at: j) < current.id(at: i) {
                count += 1
                j += 1
            } else {
                let type = current.typeIndex(at: i)
                let fields = current.schema.entityTypes[type].fields.indices
                if type != baseline.typeIndex(at: j)
                    || fields.contains(where: { current.value(at: i, field: $0) != baseline.value(at: j, field: $0) })
                {
                    count += 1
                }
                i += 1
                j += 1
            }
        }
        return count
    }

    /// The CPU time this thread has used, in seconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`):
    /// unlike wall time, it does not count time the thread waited for a core on a busy machine.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

import Foundation
import Tickwire
import TickwireZlib
import CommandLineSupport

/// `tickwire bench codec [--json] [--runs N]`: sizes and speeds of JSON, the full binary
/// snapshot, the delta, and the delta with per-frame and streaming zlib, on three seeded
/// scenes (see `BenchCodecScenes.swift`).
///
/// Every encoding is first run once untimed and decoded back and compared with its input
/// (the benchmark fails if anything does not round-trip); then `--runs` timed runs (default 5;
/// JSON at most 3) encode and decode every measured snapshot, and the median run is reported.
/// Snapshots 6...599 are measured, so that every delta has its baseline (the previous tick, or
/// six ticks back).
enum BenchCodecCommand {
    static let firstMeasuredTick = 6

    static func run(_ arguments: [String]) throws {
        var parsed = try CommandArguments(arguments, valueOptions: ["runs"])
        let asJSON = parsed.flag("json")
        let runs = try parsed.integer("runs", default: 5)
        try parsed.rejectUnknown()
        guard (1...100).contains(runs) else { throw CommandArguments.UsageError(description: "--runs wants 1...100") }
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench codec`\n")
        #endif
        var reports: [BenchSceneReport] = []
        for scene in try BenchScenes.all() {
            reports.append(try measure(scene, runs: runs))
        }
        let report = BenchCodecReport(scenes: reports)
        if asJSON {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table())
        }
    }

    /// One encoding's work for one run: fresh state (zlib streams), encode and decode closures.
    struct Pipeline {
        let name: String
        let baselineDistance: Int?
        /// Builds fresh per-run state and returns (encode tick, decode tick's bytes and verify when asked).
        let start: () throws -> (encode: (Int) throws -> [UInt8], decode: (Int, [UInt8], Bool) throws -> Void)
    }

    struct RoundTripFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func pipelines(for scene: BenchScene) -> [Pipeline] {
        let codec = SnapshotCodec(schema: scene.schema)
        let snapshots = scene.snapshots
        let limit = InflationLimit(maximumBytes: CodecLimits.defaultMaxEncodedBytes)
        var result: [Pipeline] = [
            Pipeline(name: "JSON (Codable, full)", baselineDistance: nil) {
                let encoder = JSONEncoder(), decoder = JSONDecoder()
                return (
                    { tick in Array(try encoder.encode(scene.json[tick])) },
                    { tick, bytes, verify in
                        let document = try decoder.decode(JSONWorldSnapshot.self, from: Data(bytes))
                        if verify && document != scene.json[tick] {
                            throw RoundTripFailure(description: "JSON tick \(tick) did not round-trip")
                        }
                    }
                )
            },
            Pipeline(name: "binary full", baselineDistance: nil) {
                (
                    { tick in try codec.encode(snapshots[tick], against: nil) },
                    { tick, bytes, verify in
                        let decoded = try codec.decode(bytes, baseline: nil)
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
            result.append(Pipeline(name: "delta (\(label))", baselineDistance: distance) {
                (
                    { tick in try codec.encode(snapshots[tick], against: snapshots[tick - distance]) },
                    { tick, bytes, verify in
                        try check(tick, try codec.decode(bytes, baseline: snapshots[tick - distance]), verify)
                    }
                )
            })
            result.append(Pipeline(name: "delta+zlib frame (\(label))", baselineDistance: distance) {
                let deflater = try Deflater(format: .raw), inflater = try Inflater(format: .raw)
                return (
                    { tick in
                        deflater.compress(try codec.encode(snapshots[tick], against: snapshots[tick - distance]), flush: .finish)
                    },
                    { tick, bytes, verify in
                        let delta = try inflater.inflate(bytes, limit: limit, requiresEnd: true)
                        try check(tick, try codec.decode(delta, baseline: snapshots[tick - distance]), verify)
                    }
                )
            })
            result.append(Pipeline(name: "delta+zlib stream (\(label))", baselineDistance: distance) {
                let deflater = try Deflater(format: .raw), inflater = try Inflater(format: .raw)
                return (
                    { tick in
                        deflater.compress(try codec.encode(snapshots[tick], against: snapshots[tick - distance]), flush: .sync)
                    },
                    { tick, bytes, verify in
                        let delta = try inflater.inflate(bytes, limit: limit)
                        try check(tick, try codec.decode(delta, baseline: snapshots[tick - distance]), verify)
                    }
                )
            })
        }
        return result
    }

    static func measure(_ scene: BenchScene, runs: Int) throws -> BenchSceneReport {
        let ticks = Array(firstMeasuredTick..<scene.snapshots.count)
        let entities = Double(ticks.reduce(0) { $0 + scene.snapshots[$1].count }) / Double(ticks.count)
        var changed: [Int: Double] = [:]
        for distance in [1, 6] {
            let total = ticks.reduce(0) { $0 + changedEntities(scene.snapshots[$1], against: scene.snapshots[$1 - distance]) }
            changed[distance] = Double(total) / Double(ticks.count)
        }
        var encodings: [BenchEncodingReport] = []
        var jsonBytes = 0.0
        for pipeline in pipelines(for: scene) {
            // Untimed pass: sizes, and a check that every snapshot round-trips.
            let (encode, decode) = try pipeline.start()
            var encoded: [[UInt8]] = []
            for tick in ticks { encoded.append(try encode(tick)) }
            for (tick, bytes) in zip(ticks, encoded) { try decode(tick, bytes, true) }
            let bytesPerSnapshot = Double(encoded.reduce(0) { $0 + $1.count }) / Double(ticks.count)
            if pipeline.baselineDistance == nil && encodings.isEmpty { jsonBytes = bytesPerSnapshot }

            var encodeTimes: [Double] = [], decodeTimes: [Double] = []
            let timedRuns = pipeline.name.hasPrefix("JSON") ? min(runs, 3) : runs
            for _ in 0..<timedRuns {
                let (encode, decode) = try pipeline.start()
                var outputs: [[UInt8]] = []
                outputs.reserveCapacity(ticks.count)
                let clock = ContinuousClock()
                let encodeStart = clock.now
                for tick in ticks { outputs.append(try encode(tick)) }
                let decodeStart = clock.now
                for (tick, bytes) in zip(ticks, outputs) { try decode(tick, bytes, false) }
                let end = clock.now
                encodeTimes.append(seconds(decodeStart - encodeStart) / Double(ticks.count))
                decodeTimes.append(seconds(end - decodeStart) / Double(ticks.count))
            }
            let changedPerSnapshot = changed[pipeline.baselineDistance ?? 1] ?? 0
            let encodeTime = median(encodeTimes), decodeTime = median(decodeTimes)
            encodings.append(BenchEncodingReport(
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
                timesSmallerThanJSON: jsonBytes / bytesPerSnapshot
            ))
        }
        return BenchSceneReport(
            name: scene.name, summary: scene.summary, hz: scene.hz, entitiesPerSnapshot: entities,
            snapshotsMeasured: ticks.count, changedPerSnapshotVsPrevious: changed[1] ?? 0,
            changedPerSnapshotVsSixBack: changed[6] ?? 0, encodings: encodings
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
                    || fields.contains(where: { current.value(at: i, field: $0) != baseline.value(at: j, field: $0) }) {
                    count += 1
                }
                i += 1
                j += 1
            }
        }
        return count
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

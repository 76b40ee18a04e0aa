import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire bench js [--json] [--runs N]`: what the browser client library (JavaScript, under
/// Node) pays per snapshot against Swift, on the same frames in the same run.
///
/// Swift builds the `arena-client-56` scene (see `BenchClientReceive.swift`: 56 players and their
/// bullets, 300 deltas each against the previous tick), times `SnapshotCodec.decode(_:baseline:)`
/// over its deltas, writes its frames to a temporary file, and runs
/// `node Tools/bench-js/decode.mjs FILE RUNS`, which decodes them with
/// `Clients/javascript` twice over: the deltas alone against stored baselines (the
/// same work as the Swift row), and every frame as a client takes it (envelope, then delta); then
/// the same messages compressed in perFrame mode, as `arena serve` sends them to a browser,
/// inflated and decoded by both (Swift with zlib, JavaScript with its own inflater); and the same
/// snapshots in the motion-predicted entropy coding (PROTOCOL.md 4.5.6, what `arena serve
/// --entropy-deltas` sends), each delta decoded against its stored baseline and that baseline's
/// motion by both (`EntropySnapshotDecoder` in JavaScript, in a Node process of its own:
/// `Tools/bench-js/decodePredicted.mjs`). The last snapshot Node decodes in each coding must
/// equal Swift's, entity by entity, or the benchmark fails.
/// Times are medians of the runs: the thread's CPU time in Swift, the process's in Node (its
/// compiler and collector threads count too, so the ratio is, if anything, unkind to Node).
/// The goal (issue #20) is JavaScript at most 3× Swift.
enum BenchJSCommand {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What `bench js` measured.
    struct Report: Codable {
        var scene: String
        var deltas: Int
        var entitiesPerSnapshot: Double
        var node: String
        /// Swift's `decode(_:baseline:)`, median µs of thread CPU time per snapshot.
        var swiftMicrosecondsPerSnapshot: Double
        /// JavaScript's `SnapshotDecoder.decode` against stored baselines, median µs of process CPU time per snapshot.
        var javaScriptMicrosecondsPerSnapshot: Double
        /// JavaScript taking each frame as a client does (envelope, then delta), µs per snapshot.
        var javaScriptReceiveMicrosecondsPerSnapshot: Double
        /// Swift taking each perFrame-compressed frame (inflate, envelope, delta), µs per snapshot.
        var swiftPerFrameMicrosecondsPerSnapshot: Double
        /// JavaScript taking the same perFrame-compressed frames (its own inflater), µs per snapshot.
        var javaScriptPerFrameMicrosecondsPerSnapshot: Double
        /// Bytes per perFrame-compressed frame.
        var perFrameBytes: Double
        /// JavaScript's decode time over Swift's.
        var ratio: Double
        /// JavaScript's perFrame receive time over Swift's.
        var perFrameRatio: Double
        /// Swift decoding the motion-predicted entropy-coded deltas against stored baselines and motions, µs per snapshot.
        var swiftPredictedMicrosecondsPerSnapshot: Double
        /// JavaScript's `EntropySnapshotDecoder.decode` on the same deltas, µs per snapshot.
        var javaScriptPredictedMicrosecondsPerSnapshot: Double
        /// Bytes per delta: the bit-packed coding.
        var bitPackedBytesPerDelta: Double
        /// Bytes per delta: the motion-predicted entropy coding.
        var predictedBytesPerDelta: Double
        /// JavaScript's predicted-entropy decode time over Swift's.
        var predictedRatio: Double
        /// The goal: at most this ratio.
        var goal: Double

        func table() -> String {
            [
                "bench js: \(scene), \(deltas) deltas of \(String(format: "%.1f", entitiesPerSnapshot)) entities; node \(node); median of the runs",
                "  Swift  SnapshotCodec.decode(_:baseline:)         " + String(format: "%8.2f µs/snap", swiftMicrosecondsPerSnapshot),
                "  JS     SnapshotDecoder.decode(delta, baseline)   " + String(format: "%8.2f µs/snap", javaScriptMicrosecondsPerSnapshot),
                "  JS     FrameDecoder + SnapshotDecoder per frame  "
                    + String(format: "%8.2f µs/snap", javaScriptReceiveMicrosecondsPerSnapshot),
                String(format: "  JS / Swift: %.2f× (goal ≤ %.0f×)", ratio, goal),
                String(format: "  perFrame zlib frames as arena serve sends them (%.0f B each): inflate, envelope, delta", perFrameBytes),
                "  Swift  FrameDecompressor + decode per frame      "
                    + String(format: "%8.2f µs/snap", swiftPerFrameMicrosecondsPerSnapshot),
                "  JS     FrameDecoder (own inflater) + decode      "
                    + String(format: "%8.2f µs/snap", javaScriptPerFrameMicrosecondsPerSnapshot),
                String(format: "  JS / Swift: %.2f×", perFrameRatio),
                String(
                    format:
                        "  motion-predicted entropy coding (%.0f B per delta, bit-packed %.0f B): delta against stored baseline and motion",
                    predictedBytesPerDelta, bitPackedBytesPerDelta),
                "  Swift  decode(_:baseline:coding:baselineMotion:…) "
                    + String(format: "%8.2f µs/snap", swiftPredictedMicrosecondsPerSnapshot),
                "  JS     EntropySnapshotDecoder.decode             "
                    + String(format: "%8.2f µs/snap", javaScriptPredictedMicrosecondsPerSnapshot),
                String(format: "  JS / Swift: %.2f×", predictedRatio),
            ].joined(separator: "\n")
        }
    }

    /// What decode.mjs prints.
    private struct NodeResult: Decodable {
        struct Times: Decodable {
            var cpu: Double
            var wall: Double
        }
        var node: String
        var deltas: Int
        var entitiesPerSnapshot: Double
        var lastSnapshot: String
        var decode: Times
        var receive: Times
        var receivePerFrame: Times
        var perFrameBytes: Double
    }

    /// What decodePredicted.mjs prints.
    private struct NodePredictedResult: Decodable {
        var deltas: Int
        var lastSnapshot: String
        var predicted: NodeResult.Times
    }

    /// The Node script, found next to this source file (or at `TICKWIRE_BENCH_JS`).
    static var scriptPath: String {
        ProcessInfo.processInfo.environment["TICKWIRE_BENCH_JS"] ?? benchScript("decode.mjs")
    }

    /// The Node script for the motion-predicted coding, beside ``scriptPath``'s.
    static var predictedScriptPath: String {
        URL(fileURLWithPath: scriptPath).deletingLastPathComponent().appendingPathComponent("decodePredicted.mjs").path
    }

    private static func benchScript(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../bench-js/\(name)")
            .standardizedFileURL.path
    }

    /// What `tickwire bench js` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench js",
        synopsis: ["[--json] [--runs N]"],
        summary: """
            decodes the arena-client-56 scene's frames in Swift and, with the browser client
            library, in Node (node on the PATH; Tools/bench-js/decode.mjs); µs per snapshot of each
            """,
        options: [
            .flag("json", "machine-readable output"),
            .value("runs", "N", default: "5", "timed runs, 1...100, the median reported"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        let runs = try parsed.integer("runs", default: 5)
        try parsed.rejectUnknown()
        guard (1...100).contains(runs) else { throw CommandArguments.UsageError(description: "--runs wants 1...100") }
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench js`\n")
        #endif
        let report = try measure(runs: runs)
        if asJSON {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.table())
        }
    }

    static func measure(runs: Int) throws -> Report {
        let scene = try BenchClientScene.make()
        let codec = SnapshotCodec(schema: scene.schema)
        let snapshots = scene.snapshots, deltas = scene.deltas
        let swift = try BenchClientReceive.time("decode", runs: runs, count: deltas.count) {
            var total = 0
            for (index, delta) in deltas.enumerated() {
                total &+= try codec.decode(delta, baseline: snapshots[index]).count
            }
            return total
        }
        // The same messages in perFrame mode, as `arena serve` sends them to a browser.
        let compressor = try FrameCompressor(mode: .perFrame)
        let compressed = try scene.frames.map { frame in try compressor.encode(FrameDecompressor.uncompressed().decode(frame)) }
        let swiftPerFrame = try BenchClientReceive.time("perFrame", runs: runs, count: deltas.count) {
            let decompressor = try FrameDecompressor(mode: .perFrame)
            var previous: Snapshot?
            var total = 0
            for frame in compressed {
                guard case .snapshot(let message) = try decompressor.decode(frame) else { continue }
                let snapshot = try codec.decode(message.delta, baseline: message.baselineTick == nil ? nil : previous)
                total &+= snapshot.count
                previous = snapshot
            }
            return total
        }
        // The same snapshots in the motion-predicted entropy coding: the first whole, then each
        // against the previous with the motion kept beside it, as a host with entropy deltas sends them.
        var predicted: [[UInt8]] = [], motions: [SnapshotMotion] = []
        for (index, snapshot) in snapshots.enumerated() {
            var motion = SnapshotMotion.zero
            predicted.append(
                try codec.encode(
                    snapshot, against: index == 0 ? nil : snapshots[index - 1], coding: .predictedEntropy,
                    baselineMotion: motions.last ?? .zero, motion: &motion))
            motions.append(motion)
        }
        let swiftPredicted = try BenchClientReceive.time("predicted", runs: runs, count: deltas.count) {
            var total = 0
            for index in 1..<predicted.count {
                var decoded = Snapshot(schema: scene.schema, tick: 0)
                var motion = SnapshotMotion.zero
                try codec.decode(
                    predicted[index], baseline: snapshots[index - 1], coding: .predictedEntropy, baselineMotion: motions[index - 1],
                    into: &decoded, motion: &motion)
                total &+= decoded.count
            }
            return total
        }
        let directory = FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("tickwire-bench-js-\(getpid()).frames")
        let perFrameFile = directory.appendingPathComponent("tickwire-bench-js-\(getpid()).perframe")
        let predictedFile = directory.appendingPathComponent("tickwire-bench-js-\(getpid()).predicted")
        defer {
            for written in [file, perFrameFile, predictedFile] { try? FileManager.default.removeItem(at: written) }
        }
        try write(scene.frames, to: file)
        try write(compressed, to: perFrameFile)
        try write(predicted, to: predictedFile)
        let result: NodeResult = try runNode(scriptPath, [file.path, String(runs), perFrameFile.path])
        guard result.deltas == deltas.count, let last = snapshots.last, result.lastSnapshot == describe(last) else {
            throw Failure(description: "bench js: the JavaScript decoder's last snapshot differs from Swift's")
        }
        let predictedResult: NodePredictedResult = try runNode(predictedScriptPath, [predictedFile.path, String(runs)])
        guard predictedResult.deltas == deltas.count, predictedResult.lastSnapshot == describe(last) else {
            throw Failure(description: "bench js: the JavaScript entropy decoder's last snapshot differs from Swift's")
        }
        let predictedBytes = predicted.dropFirst().reduce(0) { $0 + $1.count }, bitPackedBytes = deltas.reduce(0) { $0 + $1.count }
        return Report(
            scene: BenchClientScene.name, deltas: deltas.count, entitiesPerSnapshot: result.entitiesPerSnapshot, node: result.node,
            swiftMicrosecondsPerSnapshot: swift.microsecondsPerSnapshot, javaScriptMicrosecondsPerSnapshot: result.decode.cpu,
            javaScriptReceiveMicrosecondsPerSnapshot: result.receive.cpu,
            swiftPerFrameMicrosecondsPerSnapshot: swiftPerFrame.microsecondsPerSnapshot,
            javaScriptPerFrameMicrosecondsPerSnapshot: result.receivePerFrame.cpu, perFrameBytes: result.perFrameBytes,
            ratio: result.decode.cpu / swift.microsecondsPerSnapshot,
            perFrameRatio: result.receivePerFrame.cpu / swiftPerFrame.microsecondsPerSnapshot,
            swiftPredictedMicrosecondsPerSnapshot: swiftPredicted.microsecondsPerSnapshot,
            javaScriptPredictedMicrosecondsPerSnapshot: predictedResult.predicted.cpu,
            bitPackedBytesPerDelta: Double(bitPackedBytes) / Double(deltas.count),
            predictedBytesPerDelta: Double(predictedBytes) / Double(deltas.count),
            predictedRatio: predictedResult.predicted.cpu / swiftPredicted.microsecondsPerSnapshot, goal: 3)
    }

    /// Writes frames as a little-endian u32 length and the bytes, one after another.
    private static func write(_ frames: [[UInt8]], to file: URL) throws {
        var bytes: [UInt8] = []
        for frame in frames {
            withUnsafeBytes(of: UInt32(frame.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: frame)
        }
        try Data(bytes).write(to: file)
    }

    /// The entities as the JavaScript `Snapshot.describeEntities()` writes them: `id type q…`, one a line.
    static func describe(_ snapshot: Snapshot) -> String {
        snapshot.indices.map { index in
            let fields = snapshot.schema.entityTypes[snapshot.typeIndex(at: index)].fields.indices
            return
                ([String(snapshot.id(at: index)), String(snapshot.typeIndex(at: index))]
                + fields.map { String(snapshot.value(at: index, field: $0)) }).joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// Runs `node script arguments…` and decodes the JSON it prints.
    private static func runNode<Result: Decodable>(_ script: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { throw Failure(description: "bench js: cannot run node: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "bench js: node \(script) exited with status \(process.terminationStatus) (is node installed?)")
        }
        do {
            return try JSONDecoder().decode(Result.self, from: data)
        } catch {
            throw Failure(description: "bench js: cannot read node's output: \(error)")
        }
    }
}

import CommandLineSupport
import Foundation

/// What `tickwire bench codec` measured, printable as a table or encodable as JSON.
struct BenchCodecReport: Codable {
    var scenes: [BenchSceneReport]
    var goals: [BenchGoal]
    /// A game client's cost to take in a busy room's snapshots, when measured.
    var clientReceive: BenchClientReceiveReport?
    /// Timed runs per encoding (JSON at most 3); every time is the median run.
    var runs: Int
    /// What the times measure.
    var timing = "thread CPU time per snapshot or entity, median of the runs; wall* fields: wall-clock time"

    init(scenes: [BenchSceneReport], runs: Int) {
        self.scenes = scenes
        self.goals = BenchGoal.evaluate(scenes)
        self.runs = runs
    }

    func table() -> String {
        var lines: [String] = []
        let header = [
            "encoding", "B/snap", "B/entity", "B/changed", "kbit/s", "enc µs/snap", "dec µs/snap",
            "enc ns/ent", "dec ns/ent", "e+d ns/chg", "×JSON", "×bound",
        ]
        let widths = [26, 10, 9, 10, 9, 12, 12, 11, 11, 11, 8, 7]
        func row(_ cells: [String]) -> String { benchTableRow(cells, widths: widths) }
        for scene in scenes {
            lines.append("\(scene.name): \(scene.summary)")
            lines.append(
                String(
                    format:
                        "  %d snapshots measured, %.1f entities each; changed per snapshot: %.1f vs previous tick, %.1f vs six ticks back",
                    scene.snapshotsMeasured, scene.entitiesPerSnapshot,
                    scene.changedPerSnapshotVsPrevious, scene.changedPerSnapshotVsSixBack))
            lines.append(
                String(
                    format:
                        "  zeroth-order bound (per-field delta entropy + changed flags, see the DocC article Tools.md): %.1f B/snapshot vs previous tick, %.1f vs six back",
                    scene.zerothOrderBoundBytesVsPrevious, scene.zerothOrderBoundBytesVsSixBack))
            lines.append(
                "  times: thread CPU time, median of the runs; ×JSON: how many times smaller than JSON; ×bound: bytes / that bound")
            lines.append(row(header))
            for encoding in scene.encodings {
                lines.append(
                    row([
                        encoding.name,
                        decimalText(encoding.bytesPerSnapshot, places: 1), decimalText(encoding.bytesPerEntity, places: 2),
                        encoding.bytesPerChangedEntity.map { decimalText($0, places: 2) } ?? "-",
                        decimalText(encoding.kbitPerSecond, places: 1),
                        decimalText(encoding.encodeMicrosecondsPerSnapshot, places: 1),
                        decimalText(encoding.decodeMicrosecondsPerSnapshot, places: 1),
                        decimalText(encoding.encodeNanosecondsPerEntity, places: 1),
                        decimalText(encoding.decodeNanosecondsPerEntity, places: 1),
                        encoding.codecNanosecondsPerChangedEntity.map { decimalText($0, places: 1) } ?? "-",
                        encoding.timesSmallerThanJSON.map { decimalText($0, places: 1) } ?? "-",
                        encoding.ratioToZerothOrderBound.map { decimalText($0, places: 2) } ?? "-",
                    ]))
            }
            lines.append("")
        }
        if let clientReceive {
            lines.append(clientReceive.table())
            lines.append("")
        }
        lines.append("goals:")
        for goal in goals {
            lines.append("  " + goal.textLine)
        }
        return lines.joined(separator: "\n")
    }
}

struct BenchSceneReport: Codable {
    var name: String
    var summary: String
    var hz: Int
    var entitiesPerSnapshot: Double
    var snapshotsMeasured: Int
    var changedPerSnapshotVsPrevious: Double
    var changedPerSnapshotVsSixBack: Double
    /// The empirical zeroth-order bound of the deltas against the previous tick, bytes per snapshot (BenchBound).
    var zerothOrderBoundBytesVsPrevious: Double
    /// The same against six ticks back.
    var zerothOrderBoundBytesVsSixBack: Double
    var encodings: [BenchEncodingReport]

    func encoding(_ name: String) -> BenchEncodingReport? {
        encodings.first { $0.name == name }
    }
}

struct BenchEncodingReport: Codable {
    var name: String
    var bytesPerSnapshot: Double
    var bytesPerEntity: Double
    /// Bytes per snapshot divided by the entities created, destroyed or changed against the
    /// baseline (the previous tick for non-delta encodings); absent when nothing changed.
    var bytesPerChangedEntity: Double?
    var kbitPerSecond: Double
    var encodeMicrosecondsPerSnapshot: Double
    var decodeMicrosecondsPerSnapshot: Double
    var encodeNanosecondsPerEntity: Double
    var decodeNanosecondsPerEntity: Double
    /// Encode plus decode time per created, destroyed or changed entity.
    var codecNanosecondsPerChangedEntity: Double?
    /// Median wall-clock encode time (the other times are thread CPU time).
    var wallEncodeMicrosecondsPerSnapshot: Double
    /// Median wall-clock decode time.
    var wallDecodeMicrosecondsPerSnapshot: Double
    /// JSON bytes per snapshot divided by this encoding's; absent when the JSON rows were skipped.
    var timesSmallerThanJSON: Double?
    /// Bytes per snapshot divided by the scene's zeroth-order bound for this encoding's baseline
    /// distance (the previous tick's bound for encodings without a baseline).
    var ratioToZerothOrderBound: Double?
}

/// One of the issue's goals, measured.
struct BenchGoal: Codable {
    var goal: String
    var measured: Double
    var target: String
    var met: Bool

    /// The goal as a report line: `[met] what: measured (target …)`.
    var textLine: String {
        "[\(met ? "met" : "MISSED")] \(goal): \(decimalText(measured, places: 2)) (target \(target))"
    }

    static func evaluate(_ scenes: [BenchSceneReport]) -> [BenchGoal] {
        var goals: [BenchGoal] = []
        let byName = Dictionary(scenes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if let moving = byName["moving-60"]?.encoding("delta (prev)") {
            goals.append(
                BenchGoal(
                    goal: "moving-60 delta (prev), bytes per entity per tick", measured: moving.bytesPerEntity,
                    target: "<= 4", met: moving.bytesPerEntity <= 4))
        }
        if let ratio = byName["arena-1000"]?.encoding("delta+zlib stream (prev)")?.timesSmallerThanJSON {
            goals.append(
                BenchGoal(
                    goal: "arena-1000 delta+zlib stream (prev), times smaller than JSON",
                    measured: ratio, target: ">= 50", met: ratio >= 50))
        }
        if let idle = byName["idle-1000"]?.encoding("delta (prev)") {
            goals.append(
                BenchGoal(
                    goal: "idle-1000 delta (prev), bytes per snapshot", measured: idle.bytesPerSnapshot,
                    target: "<= 8", met: idle.bytesPerSnapshot <= 8))
        }
        for name in ["arena-1000", "moving-60"] {
            if let delta = byName[name]?.encoding("delta (prev)"), let perChanged = delta.codecNanosecondsPerChangedEntity {
                goals.append(
                    BenchGoal(
                        goal: "\(name) delta (prev) encode+decode, ns per changed entity",
                        measured: perChanged, target: "<= 1000", met: perChanged <= 1000))
            }
        }
        goals += entropyGoals(byName)
        return goals
    }

    /// The goals of the entropy-coded delta (issue 22), against the same run's bound and delta,
    /// for the entropy coding Tickwire's clients get: with motion prediction (PROTOCOL.md §4.5.6).
    static func entropyGoals(_ byName: [String: BenchSceneReport]) -> [BenchGoal] {
        var goals: [BenchGoal] = []
        let mode = "predicted entropy"
        if let ratio = byName["cubes-900"]?.encoding("\(mode) (6 back)")?.ratioToZerothOrderBound {
            goals.append(
                BenchGoal(
                    goal: "cubes-900 \(mode) (6 back), ratio to the zeroth-order bound", measured: ratio,
                    target: "<= 0.85", met: ratio <= 0.85))
        }
        if let arena = byName["arena-1000"], let entropy = arena.encoding("\(mode) (prev)"), let delta = arena.encoding("delta (prev)") {
            let saving = 1 - entropy.bytesPerSnapshot / delta.bytesPerSnapshot
            goals.append(
                BenchGoal(
                    goal: "arena-1000 \(mode) (prev), fraction of bytes saved against delta (prev)", measured: saving,
                    target: ">= 0.20", met: saving >= 0.20))
        }
        if let moving = byName["moving-60"]?.encoding("\(mode) (prev)") {
            goals.append(
                BenchGoal(
                    goal: "moving-60 \(mode) (prev), bytes per entity per tick", measured: moving.bytesPerEntity,
                    target: "<= 1.8", met: moving.bytesPerEntity <= 1.8))
        }
        for (name, label) in [("arena-1000", "prev"), ("moving-60", "prev"), ("cubes-900", "6 back")] {
            guard let scene = byName[name], let entropy = scene.encoding("\(mode) (\(label))")?.codecNanosecondsPerChangedEntity,
                let delta = scene.encoding("delta (\(label))")?.codecNanosecondsPerChangedEntity, delta > 0
            else { continue }
            goals.append(
                BenchGoal(
                    goal: "\(name) \(mode) (\(label)) encode+decode per changed entity, times delta's", measured: entropy / delta,
                    target: "<= 3", met: entropy / delta <= 3))
        }
        return goals
    }
}

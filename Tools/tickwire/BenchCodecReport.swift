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
            "enc ns/ent", "dec ns/ent", "e+d ns/chg", "×JSON",
        ]
        let widths = [26, 10, 9, 10, 9, 12, 12, 11, 11, 11, 8]
        func row(_ cells: [String]) -> String {
            zip(cells, widths).enumerated().map { index, pair in
                index == 0
                    ? pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: max(0, pair.1 - pair.0.count)) + pair.0
            }.joined(separator: " ")
        }
        for scene in scenes {
            lines.append("\(scene.name): \(scene.summary)")
            lines.append(
                String(
                    format:
                        "  %d snapshots measured, %.1f entities each; changed per snapshot: %.1f vs previous tick, %.1f vs six ticks back",
                    scene.snapshotsMeasured, scene.entitiesPerSnapshot,
                    scene.changedPerSnapshotVsPrevious, scene.changedPerSnapshotVsSixBack))
            lines.append("  times: thread CPU time, median of the runs; ×JSON: how many times smaller than JSON")
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
        return goals
    }
}

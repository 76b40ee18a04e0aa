import CommandLineSupport
import Foundation

/// `tickwire bench all [--json]`: runs every benchmark this build has, one after another, each
/// in its own `tickwire bench NAME` process (so one's memory and threads do not disturb the
/// next), and gathers their JSON into one document with the machine and the date, which
/// `Tools/bench-report` turns into `BENCHMARKS.md`.
///
/// Each sub-benchmark is one function returning its JSON (``subBenchmarks``). A name this
/// build's `tickwire bench` does not know yet is listed under `missing` rather than failing,
/// so the command works while benchmarks are still being written.
enum BenchAllCommand {
    /// One benchmark: its name and the function that runs it and returns its JSON.
    struct SubBenchmark: Sendable {
        let name: String
        let run: @Sendable () throws -> Outcome
    }

    /// A benchmark's JSON (as `JSONSerialization` parsed it), or `missing` when this build lacks it.
    enum Outcome {
        case measured(Any)
        case missing
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The benchmarks in the order they run: codec, WebSocket, WebSocket over TLS, simulation.
    static let subBenchmarks: [SubBenchmark] = [
        SubBenchmark(name: "codec") { try runSelf(["bench", "codec", "--json"]) },
        SubBenchmark(name: "ws") { try runSelf(["bench", "ws", "--json"]) },
        SubBenchmark(name: "wss") { try runSelf(["bench", "ws", "--tls", "--json"]) },
        SubBenchmark(name: "sim") { try runSelf(["bench", "sim", "--json"]) },
    ]

    /// What `tickwire bench all` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench all",
        synopsis: ["[--json] [--only codec,ws,wss,sim]"],
        summary: """
            runs each benchmark in its own process and prints one JSON document (machine, date,
            each benchmark's JSON, and the ones this build lacks under "missing");
            Tools/bench-report turns it into BENCHMARKS.md. Without --json, a summary.
            """,
        options: [
            .flag("json", "print the JSON document (without it, a summary)"),
            .value("only", "LIST", default: "codec,ws,wss,sim", "run only these benchmarks"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        let only = parsed.string("only").map { Set($0.split(separator: ",").map(String.init)) }
        try parsed.rejectUnknown()
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench all --json`\n")
        #endif
        var results: [String: Any] = [:]
        var missing: [String] = []
        var failed: [String: String] = [:]
        for benchmark in subBenchmarks where only?.contains(benchmark.name) ?? true {
            StandardError.write("bench all: running bench \(benchmark.name)…\n")
            let start = Date()
            do {
                switch try benchmark.run() {
                case .measured(let json): results[benchmark.name] = json
                case .missing: missing.append(benchmark.name)
                }
            } catch {
                failed[benchmark.name] = "\(error)"
            }
            StandardError.write("bench all: bench \(benchmark.name) done in \(Int(Date().timeIntervalSince(start))) s\n")
        }
        let document: [String: Any] = [
            "tool": "tickwire bench all",
            "date": ISO8601DateFormatter().string(from: Date()),
            "machine": machine(),
            "benchmarks": results,
            "missing": missing,
            "failed": failed,
        ]
        if asJSON {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("measured: \(results.keys.sorted().joined(separator: ", "))")
            print("missing from this build: \(missing.isEmpty ? "none" : missing.joined(separator: ", "))")
            for (name, why) in failed.sorted(by: { $0.key < $1.key }) { print("FAILED \(name): \(why)") }
            print("(use --json and Tools/bench-report for the tables)")
        }
        if !failed.isEmpty { throw Failure(description: "failed: \(failed.keys.sorted().joined(separator: ", "))") }
    }

    /// Runs this executable with `arguments` and parses its standard output as JSON.
    static func runSelf(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        // Standard error goes to a file (read after the exit), so neither pipe can fill and block the child.
        let errorPath = NSTemporaryDirectory() + "tickwire-bench-all-\(getpid())-\(arguments[1]).err"
        guard FileManager.default.createFile(atPath: errorPath, contents: nil),
            let errorFile = FileHandle(forWritingAtPath: errorPath)
        else {
            throw Failure(description: "cannot create \(errorPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorFile
        try process.run()
        let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorFile.close()
        let stderrData = FileManager.default.contents(atPath: errorPath) ?? Data()
        let stderrText = String(decoding: stderrData, as: UTF8.self)
        if process.terminationStatus != 0 {
            if stderrText.contains("bench wants one of") { return .missing }
            let tail = stderrText.split(separator: "\n").suffix(5).joined(separator: " | ")
            throw Failure(description: "tickwire \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(tail)")
        }
        do {
            return .measured(try JSONSerialization.jsonObject(with: stdoutData))
        } catch {
            throw Failure(description: "tickwire \(arguments.joined(separator: " ")) printed no valid JSON: \(error)")
        }
    }

    /// The machine: logical CPUs, CPU model (/proc/cpuinfo), memory (/proc/meminfo), OS.
    static func machine() -> [String: Any] {
        var info: [String: Any] = ["cpus": ProcessInfo.processInfo.activeProcessorCount]
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            info["cpuModel"] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        info["memoryBytes"] = ProcessInfo.processInfo.physicalMemory
        info["os"] = ProcessInfo.processInfo.operatingSystemVersionString
        return info
    }
}

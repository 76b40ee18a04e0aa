import CommandLineSupport
import Foundation

/// One server's figures for one load case.
struct BenchWSResult: Codable {
    var server: BenchEchoServerProcess.Kind
    var messagesPerSecond = 0.0
    /// Payload megabytes (10⁶ B) echoed per second, one direction.
    var megabytesPerSecond = 0.0
    var p50Microseconds = 0.0
    var p99Microseconds = 0.0
    /// The load client's CPU time over the window's wall time (1.0 = one core busy).
    var clientCPUShare = 0.0
    /// The server process's CPU time over the same wall time, warm-up included (it spans 2 cores).
    var serverCPUShare: Double?
    /// Ours only: the lowest and highest of the per-round ratios to the plain TCP echo, each
    /// round's messages per second over the TCP echo's in the same round (the spread behind the
    /// ratio of medians).
    var tcpRatioLowestRound: Double?
    var tcpRatioHighestRound: Double?
    /// The share of the machine's CPU time the host took away (steal) during the measurement,
    /// warm-up included; `nil` where the system does not say (no `/proc/stat`).
    var stealShare: Double?
    var failure: String?

    /// One line for progress output: messages per second and both CPU shares, or the failure.
    var summary: String {
        if let failure { return "failed: \(failure)" }
        let serverCPU = serverCPUShare.map { String(format: "%.2f", $0) } ?? "-"
        let steal = stealShare.map { ", steal \(decimalText($0 * 100, places: 0))%" } ?? ""
        return String(format: "%.0f msg/s, client CPU %.2f, server CPU ", messagesPerSecond, clientCPUShare) + serverCPU + steal
    }

    init(server: BenchEchoServerProcess.Kind, failure: String) {
        self.server = server
        self.failure = failure
    }

    init(
        server: BenchEchoServerProcess.Kind, size: Int, measurement: LoadMeasurement, serverCPUSeconds: Double?,
        warmUpSeconds: Double
    ) {
        self.server = server
        let seconds = max(measurement.seconds, 1e-9)
        messagesPerSecond = Double(measurement.messages) / seconds
        megabytesPerSecond = messagesPerSecond * Double(size) / 1e6
        let sorted = measurement.latencies.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
        }
        p50Microseconds = percentile(0.5)
        p99Microseconds = percentile(0.99)
        clientCPUShare = measurement.clientCPUSeconds / seconds
        serverCPUShare = serverCPUSeconds.map { $0 / (seconds + warmUpSeconds) }
    }
}

/// One load case: message size, connections, messages in flight per connection, every server.
struct BenchWSCaseReport: Codable, BenchEchoCase {
    var size: Int
    var connections: Int
    var inFlight: Int
    var results: [BenchWSResult]
    /// Rounds measured again because the host took more CPU time than `--max-steal` allows.
    var roundsDroppedForSteal = 0
    /// The most steal in any kept round (0 to 1), `nil` where the system does not say.
    var highestStealKept: Double?

    /// Our messages per second over the plain TCP echo's.
    var ratioToTCP: Double? { ratio(of: .tickwire, to: .tcp) }
    /// Our messages per second over the Python `websockets` server's.
    var ratioToPython: Double? { ratio(of: .tickwire, to: .python) }
    /// The plain TCP echo's messages per second over the Python `websockets` server's.
    var tcpRatioToPython: Double? { ratio(of: .tcp, to: .python) }
}

/// Server memory growth over idle connections.
struct BenchWSMemoryReport: Codable {
    var connections: Int
    var compression: Bool
    var serverRSSBefore: Int?
    var serverRSSAfter: Int?
    var bytesPerConnection: Double?
    var failure: String?

    init(connections: Int, compression: Bool) {
        self.connections = connections
        self.compression = compression
    }
}

/// What `tickwire bench ws` measured, printable as a table or encodable as JSON.
struct BenchWSReport: Codable {
    var secondsPerCase: Double
    var rounds: Int
    /// The most steal (0 to 1) a kept round may have had (`--max-steal`).
    var maximumStealShare: Double
    var cases: [BenchWSCaseReport]
    var memory: [BenchWSMemoryReport]
    var goals: [BenchGoal]
    /// Set when some case ran out of extra rounds and kept rounds with more steal than
    /// ``maximumStealShare``: its figures then measure the host's load as much as the servers.
    var stealWarning: String?

    init(
        secondsPerCase: Double, rounds: Int, maximumStealShare: Double, cases: [BenchWSCaseReport],
        memory: [BenchWSMemoryReport]
    ) {
        self.secondsPerCase = secondsPerCase
        self.rounds = rounds
        self.maximumStealShare = maximumStealShare
        self.cases = cases
        self.memory = memory
        goals = Self.evaluate(cases, memory)
        let stolen = cases.filter { ($0.highestStealKept ?? 0) > maximumStealShare }
        if !stolen.isEmpty {
            stealWarning =
                "\(stolen.count) of \(cases.count) cases kept rounds in which the host took more than "
                + "\(decimalText(maximumStealShare * 100, places: 0))% of the CPU time (\(stolen.map(\.name).joined(separator: "; "))): "
                + "their figures, and the goals that rest on them, measure the host's load as much as the servers"
        }
    }

    static func evaluate(_ cases: [BenchWSCaseReport], _ memory: [BenchWSMemoryReport]) -> [BenchGoal] {
        var goals: [BenchGoal] = []
        let againstTCP = cases.compactMap { item in item.ratioToTCP.map { (item.name, $0) } }
        if let worst = againstTCP.min(by: { $0.1 < $1.1 }) {
            goals.append(
                BenchGoal(
                    goal: "messages/s vs plain TCP echo, worst case (\(worst.0))", measured: worst.1,
                    target: ">= 0.80 in every case", met: worst.1 >= 0.8 && againstTCP.count == cases.count))
        }
        // The issue derives "about 5x websockets" from its reference case, 64 B x 100 connections x 1
        // in flight, measured on its machine (websockets ~20k/s, plain TCP ~105k/s, so 80% of TCP
        // is ~4.2x). How far plain TCP is ahead of websockets depends on the machine and its load
        // (on this one 3-10x between runs), so the target is the same 80% of plain TCP in the same
        // run, expressed as a multiple of websockets; the issue's 4.2 is shown beside it.
        // Elsewhere plain TCP itself can be as little as 2x websockets (64 KiB messages), so the
        // ratio is reported per case but judged only here.
        if let reference = cases.first(where: { $0.size == 64 && $0.connections == 100 && $0.inFlight == 1 }),
            let ratio = reference.ratioToPython, let tcpMultiple = reference.tcpRatioToPython
        {
            let target = 0.8 * tcpMultiple
            goals.append(
                BenchGoal(
                    goal: "messages/s vs Python websockets, the issue's reference case (\(reference.name))", measured: ratio,
                    target: ">= \(decimalText(target, places: 2)) (80% of plain TCP's \(decimalText(tcpMultiple, places: 2))x "
                        + "websockets in this run; 4.2 on the issue's machine)",
                    met: ratio >= target))
        }
        if let plain = memory.first(where: { !$0.compression }), let perConnection = plain.bytesPerConnection {
            goals.append(
                BenchGoal(
                    goal: "server memory per idle uncompressed connection, KiB", measured: perConnection / 1024,
                    target: "<= 16", met: perConnection <= 16 * 1024))
        }
        return goals
    }

    func table() -> String {
        var lines: [String] = []
        lines.append(
            "echo throughput: binary messages; per server the median of \(rounds) rounds of \(decimalText(secondsPerCase, places: 1)) s after 0.5 s warm-up; "
                + "MB/s = payload one way; CPU = core-seconds per second (client: one thread; server: whole process); "
                + "rounds = lowest-highest of each round's ratio to the TCP echo in the same round")
        let header = ["case / server", "msg/s", "MB/s", "p50 µs", "p99 µs", "client CPU", "server CPU", "×TCP", "rounds", "×py"]
        let widths = [38, 10, 8, 9, 9, 10, 10, 6, 10, 6]
        func row(_ cells: [String]) -> String { benchTableRow(cells, widths: widths) }
        lines.append(row(header))
        for item in cases {
            var caseLine = item.name
            if item.roundsDroppedForSteal > 0 || (item.highestStealKept ?? 0) > 0 {
                let kept = item.highestStealKept.map { "; steal in kept rounds at most \(decimalText($0 * 100, places: 0))%" } ?? ""
                let dropped = item.roundsDroppedForSteal == 1 ? "1 round" : "\(item.roundsDroppedForSteal) rounds"
                caseLine += " (\(dropped) dropped for host steal\(kept))"
            }
            lines.append(caseLine)
            for result in item.results {
                let isOurs = result.server == .tickwire
                if let failure = result.failure {
                    lines.append("  \(result.server.label): FAILED: \(failure)")
                    continue
                }
                lines.append(
                    row([
                        "  " + result.server.label,
                        decimalText(result.messagesPerSecond, places: 0), decimalText(result.megabytesPerSecond, places: 1),
                        decimalText(result.p50Microseconds, places: 0), decimalText(result.p99Microseconds, places: 0),
                        decimalText(result.clientCPUShare, places: 2), result.serverCPUShare.map { decimalText($0, places: 2) } ?? "-",
                        isOurs ? item.ratioToTCP.map { decimalText($0, places: 2) } ?? "-" : "",
                        isOurs
                            ? result.tcpRatioLowestRound.flatMap { low in
                                result.tcpRatioHighestRound.map { high in
                                    "\(decimalText(low, places: 2))-\(decimalText(high, places: 2))"
                                }
                            } ?? "-" : "",
                        isOurs ? item.ratioToPython.map { decimalText($0, places: 1) } ?? "-" : "",
                    ]))
            }
        }
        lines.append("")
        lines.append(
            "memory per idle connection (fresh tickwire echo, deflate offered by the server; each connection exchanged one 64 B message):")
        for item in memory {
            let label = "  \(item.connections) connections, client \(item.compression ? "negotiates" : "does not offer") permessage-deflate"
            if let failure = item.failure {
                lines.append("\(label): FAILED: \(failure)")
            } else if let perConnection = item.bytesPerConnection, let before = item.serverRSSBefore, let after = item.serverRSSAfter {
                lines.append(
                    "\(label): \(decimalText(perConnection / 1024, places: 1)) KiB each (RSS \(before / 1024) KiB -> \(after / 1024) KiB)")
            }
        }
        lines.append("")
        lines.append("goals:")
        for goal in goals {
            lines.append("  " + goal.textLine)
        }
        if let stealWarning { lines.append("  warning: " + stealWarning) }
        return lines.joined(separator: "\n")
    }
}

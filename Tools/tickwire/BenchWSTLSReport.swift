import CommandLineSupport
import Foundation

/// One `bench ws --tls` case: every server's median round, the ratios the goals name,
/// and each process's CPU time per echoed message.
struct BenchWSTLSCaseReport: Codable, BenchEchoCase {
    var size: Int
    var connections: Int
    var inFlight: Int
    var results: [BenchWSResult]
    /// The same-run ratios and CPU times per message, stored so that the JSON carries them.
    var wssOverPython: Double?
    var wssOverWS: Double?
    var wssServerMicrosecondsPerMessage: Double?
    var wsServerMicrosecondsPerMessage: Double?
    var wssClientMicrosecondsPerMessage: Double?
    var wsClientMicrosecondsPerMessage: Double?

    init(size: Int, connections: Int, inFlight: Int, results: [BenchWSResult]) {
        self.size = size
        self.connections = connections
        self.inFlight = inFlight
        self.results = results
        wssOverPython = ratioToPython
        wssOverWS = ratioToPlain
        wssServerMicrosecondsPerMessage = result(.tickwireTLS).flatMap(Self.serverMicrosecondsPerMessage)
        wsServerMicrosecondsPerMessage = result(.tickwire).flatMap(Self.serverMicrosecondsPerMessage)
        wssClientMicrosecondsPerMessage = result(.tickwireTLS).flatMap(Self.clientMicrosecondsPerMessage)
        wsClientMicrosecondsPerMessage = result(.tickwire).flatMap(Self.clientMicrosecondsPerMessage)
    }

    /// Our `wss` echo's messages per second over Python `websockets`+`ssl`'s.
    var ratioToPython: Double? { ratio(of: .tickwireTLS, to: .pythonTLS) }
    /// Our `wss` echo's messages per second over our plain `ws` echo's.
    var ratioToPlain: Double? { ratio(of: .tickwireTLS, to: .tickwire) }

    /// The server process's CPU microseconds per echoed message (its CPU share over the message rate).
    static func serverMicrosecondsPerMessage(_ result: BenchWSResult) -> Double? {
        guard let share = result.serverCPUShare, result.messagesPerSecond > 0 else { return nil }
        return share / result.messagesPerSecond * 1e6
    }

    /// The load client's CPU microseconds per echoed message (it sends and receives each one).
    static func clientMicrosecondsPerMessage(_ result: BenchWSResult) -> Double? {
        guard result.messagesPerSecond > 0 else { return nil }
        return result.clientCPUShare / result.messagesPerSecond * 1e6
    }
}

/// What `tickwire bench ws --tls` measured, printable as a table or encodable as JSON (a row of `bench all`).
struct BenchWSTLSReport: Codable {
    var secondsPerCase: Double
    var rounds: Int
    /// The TLS version and cipher suite our server and the load client negotiated.
    var negotiated: String
    var cases: [BenchWSTLSCaseReport]
    var idleMemory: BenchWSMemoryReport
    var goals: [BenchGoal]

    init(secondsPerCase: Double, rounds: Int, negotiated: String, cases: [BenchWSTLSCaseReport], idleMemory: BenchWSMemoryReport) {
        self.secondsPerCase = secondsPerCase
        self.rounds = rounds
        self.negotiated = negotiated
        self.cases = cases
        self.idleMemory = idleMemory
        goals = Self.evaluate(cases, idleMemory)
    }

    /// The three goals: ≥ 2× Python at 64 B × 100 × 1, ≥ 0.6 of plain `ws` at 64 KiB × 10
    /// (the worse of 1 and 16 in flight), ≤ 64 KiB per idle TLS connection.
    static func evaluate(_ cases: [BenchWSTLSCaseReport], _ memory: BenchWSMemoryReport) -> [BenchGoal] {
        var goals: [BenchGoal] = []
        if let small = cases.first(where: { $0.size == 64 && $0.connections == 100 && $0.inFlight == 1 }),
            let ratio = small.ratioToPython
        {
            goals.append(
                BenchGoal(goal: "wss messages/s vs Python websockets+ssl (\(small.name))", measured: ratio, target: ">= 2", met: ratio >= 2)
            )
        }
        let large = cases.filter { $0.size == 65536 && $0.connections == 10 }.compactMap { item in item.ratioToPlain.map { (item.name, $0) }
        }
        if let worst = large.min(by: { $0.1 < $1.1 }) {
            goals.append(
                BenchGoal(
                    goal: "wss messages/s vs our plain ws echo (\(worst.0))", measured: worst.1, target: ">= 0.6", met: worst.1 >= 0.6))
        }
        if let perConnection = memory.bytesPerConnection {
            goals.append(
                BenchGoal(
                    goal: "server memory per idle TLS connection, KiB", measured: perConnection / 1024, target: "<= 64",
                    met: perConnection <= 64 * 1024))
        }
        return goals
    }

    func table() -> String {
        var lines: [String] = []
        lines.append(
            "bench ws --tls: per server the median of \(rounds) rounds of \(decimalText(secondsPerCase, places: 1)) s; \(negotiated); "
                + "CPU µs/msg = process CPU time per echoed message (server: whole process; client: the load client, which does TLS too)")
        let header = ["case / server", "msg/s", "MB/s", "p50 µs", "p99 µs", "server µs/msg", "client µs/msg", "×py", "×ws"]
        let widths = [38, 10, 8, 9, 9, 13, 13, 6, 6]
        func row(_ cells: [String]) -> String { benchTableRow(cells, widths: widths) }
        lines.append(row(header))
        for item in cases {
            lines.append(item.name)
            for result in item.results {
                if let failure = result.failure {
                    lines.append("  \(result.server.label): FAILED: \(failure)")
                    continue
                }
                let isOurs = result.server == .tickwireTLS
                lines.append(
                    row([
                        "  " + result.server.label,
                        decimalText(result.messagesPerSecond, places: 0), decimalText(result.megabytesPerSecond, places: 1),
                        decimalText(result.p50Microseconds, places: 0), decimalText(result.p99Microseconds, places: 0),
                        BenchWSTLSCaseReport.serverMicrosecondsPerMessage(result).map { decimalText($0, places: 1) } ?? "-",
                        BenchWSTLSCaseReport.clientMicrosecondsPerMessage(result).map { decimalText($0, places: 1) } ?? "-",
                        isOurs ? item.ratioToPython.map { decimalText($0, places: 2) } ?? "-" : "",
                        isOurs ? item.ratioToPlain.map { decimalText($0, places: 2) } ?? "-" : "",
                    ]))
            }
        }
        lines.append("")
        if let failure = idleMemory.failure {
            lines.append("memory per idle TLS connection: FAILED: \(failure)")
        } else if let perConnection = idleMemory.bytesPerConnection, let before = idleMemory.serverRSSBefore,
            let after = idleMemory.serverRSSAfter
        {
            lines.append(
                "memory per idle TLS connection (\(idleMemory.connections) connections, each exchanged one 64 B message): "
                    + "\(decimalText(perConnection / 1024, places: 1)) KiB (RSS \(before / 1024) KiB -> \(after / 1024) KiB)")
        }
        lines.append("")
        lines.append("goals:")
        for goal in goals { lines.append("  " + goal.textLine) }
        return lines.joined(separator: "\n")
    }
}

extension BenchWSTLSReport: BenchReport {}

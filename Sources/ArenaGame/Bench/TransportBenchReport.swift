import CommandLineSupport

/// `tickwire bench transport`'s result: every cell (loss × RTT) with each transport's figures or
/// why it was not measured, and the goal lines at 2% loss and 100 ms RTT.
package struct TransportBenchReport: Hashable, Sendable, Codable {
    /// The server's tick rate, Hz.
    package var tickRate: Int
    /// Seconds each transport played in each cell.
    package var seconds: Double
    /// Seconds of each play left out before measuring.
    package var warmUp: Double
    /// The lab's seed (each direction's impairment draws from it).
    package var seed: UInt64
    /// How the input-to-server latency is measured (``TransportFigures/inputMethod``).
    package var inputMethod = TransportFigures.inputMethod
    /// How the wire bytes are counted.
    package var wireMethod =
        "IP bytes the relay took in per direction (b→a down, a→b up) while the client played, retransmissions and headers included"
    /// The cells, in the order they ran.
    package var cells: [TransportBenchCell] = []

    /// Creates an empty report.
    package init(tickRate: Int, seconds: Double, warmUp: Double, seed: UInt64) {
        self.tickRate = tickRate
        self.seconds = seconds
        self.warmUp = warmUp
        self.seed = seed
    }

    /// The goal lines (``TransportGoal``) for these cells.
    package var goals: [TransportGoal] { TransportGoal.lines(for: self) }

    /// The result of `transport` in the cell of `loss` percent and `rtt` ms, if that cell ran.
    package func result(transport: String, loss: Double, rtt: Double) -> TransportBenchResult? {
        cells.first { $0.lossPercent == loss && $0.rttMilliseconds == rtt }?.results.first { $0.transport == transport }
    }

    private enum CodingKeys: String, CodingKey {
        case tickRate, seconds, warmUp, seed, inputMethod, wireMethod, cells, goals
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tickRate, forKey: .tickRate)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(warmUp, forKey: .warmUp)
        try container.encode(seed, forKey: .seed)
        try container.encode(inputMethod, forKey: .inputMethod)
        try container.encode(wireMethod, forKey: .wireMethod)
        try container.encode(cells, forKey: .cells)
        try container.encode(goals, forKey: .goals)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tickRate = try container.decode(Int.self, forKey: .tickRate)
        seconds = try container.decode(Double.self, forKey: .seconds)
        warmUp = try container.decode(Double.self, forKey: .warmUp)
        seed = try container.decode(UInt64.self, forKey: .seed)
        inputMethod = try container.decode(String.self, forKey: .inputMethod)
        wireMethod = try container.decode(String.self, forKey: .wireMethod)
        cells = try container.decode([TransportBenchCell].self, forKey: .cells)
    }
}

/// One cell of the bench: a loss and an RTT, each transport played through the same lab.
package struct TransportBenchCell: Hashable, Sendable, Codable {
    /// Random loss each way, percent.
    package var lossPercent: Double
    /// The round trip the lab adds (half each way), ms.
    package var rttMilliseconds: Double
    /// Each transport's result, in the order they ran.
    package var results: [TransportBenchResult] = []

    /// Creates a cell with no results yet.
    package init(lossPercent: Double, rttMilliseconds: Double) {
        self.lossPercent = lossPercent
        self.rttMilliseconds = rttMilliseconds
    }
}

/// One transport in one cell: its figures, or why it was not measured.
package struct TransportBenchResult: Hashable, Sendable, Codable {
    /// `ws` or `udp` through the lab's relay, or `ws-model` or `udp-model` through the client's
    /// impairment model of the same cell (``modelName(of:)``).
    package var transport: String
    /// Why it was not measured (`not available: …`), or `nil` when it was.
    package var unavailable: String?
    /// Why the play failed (the lab, the server or the client), when it did.
    package var failure: String?
    /// The client's figures, when measured.
    package var figures: TransportFigures?
    /// IP bytes a second server → client through the relay (``TransportBenchReport/wireMethod``).
    package var wireBytesDownPerSecond: Double?
    /// IP bytes a second client → server through the relay.
    package var wireBytesUpPerSecond: Double?
    /// Packets the relay dropped while the client played, down (b→a) and up (a→b).
    package var droppedDown: Int?
    /// Packets the relay dropped up (a→b).
    package var droppedUp: Int?

    /// The name of `transport` played through the client's impairment model (`arena join --lag
    /// --loss`) over a lab that adds nothing: `ws-model`, `udp-model`.
    package static func modelName(of transport: String) -> String { "\(transport)-model" }

    /// A measured result.
    package init(transport: String, figures: TransportFigures) {
        self.transport = transport
        self.figures = figures
    }

    /// A result not measured, and why.
    package init(transport: String, unavailable reason: String) {
        self.transport = transport
        unavailable = reason
    }

    /// A play that failed, and how.
    package init(transport: String, failure: String) {
        self.transport = transport
        self.failure = failure
    }
}

extension TransportBenchReport {
    /// The report as a text table, the goal lines under it, and how figures are measured.
    package func table() -> String {
        let header = [
            "loss", "RTT", "transport", "age p50", "age p99", "age max", "starved", "freeze", "snap/s", "down B/s", "up B/s",
            "input p99",
        ]
        var rows: [[String]] = []
        var notes: [String] = []
        for cell in cells {
            for result in cell.results {
                let lead = [
                    "\(decimalText(cell.lossPercent, places: 0))%", "\(decimalText(cell.rttMilliseconds, places: 0)) ms", result.transport,
                ]
                guard let figures = result.figures else {
                    rows.append(lead + ["-", "-", "-", "-", "-", "-", "-", "-", "-"])
                    notes.append(
                        "\(lead.joined(separator: " ")): \(result.unavailable ?? result.failure.map { "FAILED: \($0)" } ?? "not measured")")
                    continue
                }
                rows.append(
                    lead + [
                        ms(figures.snapshotAgeMedian), ms(figures.snapshotAgeP99), ms(figures.snapshotAgeMax),
                        "\(decimalText(figures.starvedShare * 100, places: 2))%", ms(figures.longestFreeze),
                        decimalText(figures.snapshotsPerSecond, places: 1), whole(result.wireBytesDownPerSecond),
                        whole(result.wireBytesUpPerSecond), ms(figures.inputToServerP99),
                    ])
            }
        }
        var lines = [
            "transports through the loss lab: \(tickRate) Hz, \(decimalText(seconds, places: 0)) s a transport a cell (first \(decimalText(warmUp, places: 0)) s left out), seed \(seed)"
        ]
        lines += Self.aligned([header] + rows)
        lines += notes.map { "  \($0)" }
        lines.append(
            "age: newest snapshot's age at each render frame; starved: frames extrapolated; freeze: longest time without a snapshot")
        lines.append("down/up B/s: \(wireMethod)")
        lines.append("input p99: \(inputMethod)")
        lines.append(
            "goals at 2% loss, 100 ms RTT (UDP's four, WebSocket beside them for comparison; then each transport's impairment model against the lab):"
        )
        lines += goals.map { "  \($0.line)" }
        return lines.joined(separator: "\n")
    }

    private func ms(_ value: Double) -> String { "\(decimalText(value, places: 0)) ms" }

    private func whole(_ value: Double?) -> String { value.map { decimalText($0, places: 0) } ?? "-" }

    /// Columns padded to their widest cell, the first three left-aligned, the rest right-aligned.
    private static func aligned(_ rows: [[String]]) -> [String] {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return column < 3 ? text + padding : padding + text
            }.joined(separator: "  ")
        }
    }
}

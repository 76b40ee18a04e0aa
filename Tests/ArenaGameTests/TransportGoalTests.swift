import Testing

@testable import ArenaGame

/// ``TransportGoal``: the goal lines at 2% loss and 100 ms RTT are UDP's, pending (with the
/// reason) while UDP is not measured, and judged against the limits once it is.
@Suite("The transport bench's goal lines")
struct TransportGoalTests {
    static func figures(ageP99: Double, starved: Double, freeze: Double) -> TransportFigures {
        var figures = TransportFigures.empty
        figures.snapshotAgeP99 = ageP99
        figures.starvedShare = starved
        figures.longestFreeze = freeze
        return figures
    }

    static func result(_ transport: String, _ figures: TransportFigures, bytes: Double) -> TransportBenchResult {
        var result = TransportBenchResult(transport: transport, figures: figures)
        result.wireBytesDownPerSecond = bytes
        return result
    }

    @Test("without UDP every goal is pending with the transport's reason; WebSocket's figure stands beside it")
    func pendingWithoutUDP() {
        var report = TransportBenchReport(tickRate: 30, seconds: 60, warmUp: 3, seed: 1)
        var cell = TransportBenchCell(lossPercent: 2, rttMilliseconds: 100)
        cell.results = [
            Self.result("ws", Self.figures(ageP99: 180, starved: 0.01, freeze: 400), bytes: 9000),
            TransportBenchResult(transport: "udp", unavailable: "not available: arena join has no udp:// scheme"),
        ]
        report.cells = [cell]
        let goals = report.goals
        #expect(goals.count == 4)
        #expect(goals.allSatisfy { $0.verdict == .pending && $0.transport == "udp" })
        #expect(goals[0].webSocketValue == 180 && goals[0].limit == 50 + 2 * 1000 / 30.0)
        #expect(goals[0].line.contains("no udp:// scheme"), "the pending line says why: \(goals[0].line)")
        #expect(goals[1].webSocketValue == 1, "starved is in percent")
        #expect(goals[3].pendingReason?.contains("no udp:// scheme") == true)
    }

    @Test("with UDP measured at 2% and 0%, each goal passes or fails on its limit")
    func judged() {
        var report = TransportBenchReport(tickRate: 30, seconds: 60, warmUp: 3, seed: 1)
        var lossy = TransportBenchCell(lossPercent: 2, rttMilliseconds: 100)
        lossy.results = [Self.result("udp", Self.figures(ageP99: 110, starved: 0.002, freeze: 90), bytes: 11_500)]
        var clean = TransportBenchCell(lossPercent: 0, rttMilliseconds: 100)
        clean.results = [Self.result("udp", Self.figures(ageP99: 80, starved: 0, freeze: 40), bytes: 10_000)]
        report.cells = [clean, lossy]
        let verdicts = report.goals.map(\.verdict)
        // 110 ≤ 116.7 ms passes; 0.2% > 0.1% fails; 90 ≤ 100 ms passes; 15% > 10% fails.
        #expect(verdicts == [.pass, .fail, .pass, .fail])
        #expect(report.goals[3].value.map { abs($0 - 15) < 1e-9 } == true)
    }

    @Test("a failed UDP play leaves the goals pending, saying it failed, and the table says how")
    func failedPlay() {
        var report = TransportBenchReport(tickRate: 30, seconds: 60, warmUp: 3, seed: 1)
        var cell = TransportBenchCell(lossPercent: 2, rttMilliseconds: 100)
        cell.results = [TransportBenchResult(transport: "udp", failure: "arena join over udp exited with status 1")]
        report.cells = [cell]
        #expect(report.goals.allSatisfy { $0.verdict == .pending && $0.pendingReason?.hasPrefix("the play failed: ") == true })
        #expect(report.table().contains("2% 100 ms udp: FAILED: arena join over udp exited with status 1"))
    }

    @Test("the table names every cell, says why a transport is missing, and prints the goal lines")
    func table() {
        var report = TransportBenchReport(tickRate: 30, seconds: 60, warmUp: 3, seed: 1)
        var cell = TransportBenchCell(lossPercent: 2, rttMilliseconds: 100)
        cell.results = [
            Self.result("ws", Self.figures(ageP99: 180, starved: 0.01, freeze: 400), bytes: 9000),
            TransportBenchResult(transport: "udp", unavailable: "not available: arena join has no udp:// scheme"),
        ]
        report.cells = [cell]
        let table = report.table()
        #expect(table.contains("2% 100 ms udp: not available: arena join has no udp:// scheme"))
        #expect(table.contains("PENDING udp longest freeze ≤ 3 ticks"))
        #expect(table.contains("180 ms"))
    }
}

import CommandLineSupport
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
        #expect(goals.count == 6)
        #expect(goals.allSatisfy { $0.verdict == .pending })
        #expect(goals[..<4].allSatisfy { $0.transport == "udp" })
        #expect(goals[4].transport == "ws" && goals[4].pendingReason == "this run did not play ws-model in the 2% / 100 ms cell")
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
        let verdicts = report.goals.prefix(4).map(\.verdict)
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
        let udpGoals = report.goals.filter { $0.transport == "udp" }
        #expect(udpGoals.count == 5)
        #expect(udpGoals.allSatisfy { $0.verdict == .pending && $0.pendingReason?.hasPrefix("the play failed: ") == true })
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

    /// A report of the goal cell with `ws` through the lab and through the model.
    static func modelReport(lab: Double, model: Double) -> TransportBenchReport {
        var report = TransportBenchReport(tickRate: 30, seconds: 60, warmUp: 3, seed: 1)
        var cell = TransportBenchCell(lossPercent: 2, rttMilliseconds: 100)
        cell.results = [
            Self.result("ws", Self.figures(ageP99: 200, starved: lab, freeze: 300), bytes: 9000),
            Self.result("ws-model", Self.figures(ageP99: 200, starved: model, freeze: 300), bytes: 9000),
        ]
        report.cells = [cell]
        return report
    }

    @Test(
        "the model agrees with the lab within 1.5× of starved frames, either way; shares under 0.1% count as 0.1%",
        arguments: [
            (0.040, 0.060, 1.5, TransportGoal.Verdict.pass),
            (0.040, 0.0601, 0.0601 / 0.040, .fail),
            (0.060, 0.040, 1.5, .pass),
            (0.040, 0.026, 0.040 / 0.026, .fail),
            (0.0, 0.0, 1, .pass),
            (0.0005, 0.0, 1, .pass),
            (0.0, 0.0015, 1.5, .pass),
            (0.0, 0.0016, 1.6, .fail),
        ])
    func modelAgreement(lab: Double, model: Double, factor: Double, verdict: TransportGoal.Verdict) throws {
        let goal = TransportGoal.modelAgreement(transport: "ws", in: Self.modelReport(lab: lab, model: model))
        #expect(goal.verdict == verdict)
        #expect(abs(try #require(goal.value) - factor) < 1e-9)
        #expect(
            goal.line.contains("lab \(decimalText(lab * 100, places: 2))%, model \(decimalText(model * 100, places: 2))%"), "\(goal.line)")
    }

    @Test("without the model's play the agreement is pending and says which play is missing")
    func modelPending() {
        var report = Self.modelReport(lab: 0.04, model: 0.04)
        report.cells[0].results.removeLast()
        let goal = TransportGoal.modelAgreement(transport: "ws", in: report)
        #expect(goal.verdict == .pending && goal.value == nil)
        #expect(goal.pendingReason == "this run did not play ws-model in the 2% / 100 ms cell")
    }
}

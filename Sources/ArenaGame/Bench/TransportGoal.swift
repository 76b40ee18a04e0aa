import CommandLineSupport

/// One goal of issue #31 for the UDP transport at 2% loss and 100 ms RTT, with its verdict:
/// pass, fail, or pending (the cell or the transport was not measured in this run).
///
/// - p99 snapshot age at render time ≤ the one-way delay + 2 ticks;
/// - starved (extrapolated) render frames ≤ 0.1%;
/// - longest freeze ≤ 3 ticks;
/// - wire bytes a second down at 2% loss within 10% of the 0% loss figure (same RTT).
///
/// WebSocket's figure is given beside each line for comparison; it has no goal.
///
/// And for each transport, the impairment model's check (issue #31 point 6): the same cell played
/// through the client's own model (`arena join --lag 50 --loss 2` over a lab that adds nothing)
/// starves render frames within a factor of 1.5 of the lab's relay (``modelAgreement``).
package struct TransportGoal: Hashable, Sendable, Codable {
    /// The verdict.
    package enum Verdict: String, Hashable, Sendable, Codable {
        case pass, fail, pending
    }

    /// What is measured, in words.
    package var name: String
    /// The transport the goal is for (`udp`).
    package var transport: String
    /// The measured value, when measured.
    package var value: Double?
    /// The limit, in the value's unit.
    package var limit: Double
    /// The unit (`ms`, `%`).
    package var unit: String
    /// Pass, fail or pending.
    package var verdict: Verdict
    /// WebSocket's value in the same cell, for comparison.
    package var webSocketValue: Double?
    /// Why the verdict is pending, when it is.
    package var pendingReason: String?
    /// What the value was computed from, when that needs saying.
    package var note: String?

    /// The largest factor between the starved shares of the lab and of the model that counts as agreement.
    package static let modelAgreementFactor = 1.5
    /// The share of starved frames below which two plays are not told apart (one frame in a
    /// thousand; the UDP goal's limit): each share counts as at least this in ``modelAgreement``.
    package static let starvedShareFloor = 0.001

    /// The loss (percent) and RTT (ms) of the goals' cell.
    package static let cell = (loss: 2.0, rtt: 100.0)

    /// The goal lines for `report`'s cells.
    package static func lines(for report: TransportBenchReport) -> [TransportGoal] {
        let tick = 1000 / Double(max(report.tickRate, 1))
        let oneWay = cell.rtt / 2
        let udp = report.result(transport: "udp", loss: cell.loss, rtt: cell.rtt)
        let ws = report.result(transport: "ws", loss: cell.loss, rtt: cell.rtt)
        let udpClean = report.result(transport: "udp", loss: 0, rtt: cell.rtt)
        let wsClean = report.result(transport: "ws", loss: 0, rtt: cell.rtt)
        func goal(_ name: String, limit: Double, unit: String, _ value: (TransportBenchResult) -> Double?) -> TransportGoal {
            let measured = udp.flatMap(value)
            return TransportGoal(
                name: name, transport: "udp", value: measured, limit: limit, unit: unit,
                verdict: measured.map { $0 <= limit ? .pass : .fail } ?? .pending, webSocketValue: ws.flatMap(value),
                pendingReason: measured == nil ? pending(udp, of: "udp", needs: "the 2% / 100 ms cell") : nil)
        }
        var goals = [
            goal("p99 snapshot age ≤ one-way delay + 2 ticks", limit: oneWay + 2 * tick, unit: "ms") { $0.figures?.snapshotAgeP99 },
            goal("starved render frames ≤ 0.1%", limit: 0.1, unit: "%") { $0.figures.map { $0.starvedShare * 100 } },
            goal("longest freeze ≤ 3 ticks", limit: 3 * tick, unit: "ms") { $0.figures?.longestFreeze },
        ]
        func growth(_ lossy: TransportBenchResult?, _ clean: TransportBenchResult?) -> Double? {
            guard let lossy = lossy?.wireBytesDownPerSecond, let clean = clean?.wireBytesDownPerSecond, clean > 0 else { return nil }
            return abs(lossy / clean - 1) * 100
        }
        let measured = growth(udp, udpClean)
        goals.append(
            TransportGoal(
                name: "bytes/s down at 2% loss within 10% of 0% loss", transport: "udp", value: measured, limit: 10, unit: "%",
                verdict: measured.map { $0 <= 10 ? .pass : .fail } ?? .pending, webSocketValue: growth(ws, wsClean),
                pendingReason: measured == nil ? pending(udp ?? udpClean, of: "udp", needs: "the 2% / 100 ms and 0% / 100 ms cells") : nil))
        for transport in ["ws", "udp"] { goals.append(modelAgreement(transport: transport, in: report)) }
        return goals
    }

    /// Whether the client's impairment model tells the truth about `transport`: the factor
    /// between the starved shares of the goal cell through the lab and through the model, the
    /// larger over the smaller, each counted as at least ``starvedShareFloor``; it passes at
    /// ``modelAgreementFactor`` or less.
    static func modelAgreement(transport: String, in report: TransportBenchReport) -> TransportGoal {
        let model = TransportBenchResult.modelName(of: transport)
        let labShare = report.result(transport: transport, loss: cell.loss, rtt: cell.rtt)?.figures?.starvedShare
        let modelShare = report.result(transport: model, loss: cell.loss, rtt: cell.rtt)?.figures?.starvedShare
        var goal = TransportGoal(
            name: "starved frames through the model (\(model)) within \(decimalText(modelAgreementFactor, places: 1))× of the lab's",
            transport: transport, value: nil, limit: modelAgreementFactor, unit: "×", verdict: .pending)
        guard let labShare, let modelShare else {
            let missing = labShare == nil ? transport : model
            goal.pendingReason = pending(
                report.result(transport: missing, loss: cell.loss, rtt: cell.rtt), of: missing, needs: "the 2% / 100 ms cell")
            return goal
        }
        let larger = max(labShare, modelShare, starvedShareFloor), smaller = max(min(labShare, modelShare), starvedShareFloor)
        goal.value = larger / smaller
        goal.verdict = larger / smaller <= modelAgreementFactor ? .pass : .fail
        goal.note =
            "lab \(decimalText(labShare * 100, places: 2))%, model \(decimalText(modelShare * 100, places: 2))%"
            + "; shares under \(decimalText(starvedShareFloor * 100, places: 1))% count as \(decimalText(starvedShareFloor * 100, places: 1))%"
        return goal
    }

    /// Why a goal has no value: the reason `transport` was not measured, or the cells the run left out.
    private static func pending(_ result: TransportBenchResult?, of transport: String, needs cells: String) -> String {
        if let reason = result?.unavailable { return reason }
        if let failure = result?.failure { return "the play failed: \(failure)" }
        return "this run did not play \(transport) in \(cells)"
    }

    /// `PASS  udp p99 snapshot age ≤ … : 93 ms (limit 117 ms; ws 180 ms)`.
    package var line: String {
        let verdictText = verdict.rawValue.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0)
        let comparison = webSocketValue.map { ", ws \(Self.text($0, unit)) for comparison" } ?? ""
        let measured = value.map { Self.text($0, unit) } ?? "pending"
        let why = pendingReason.map { " — \($0)" } ?? ""
        let detail = note.map { "; \($0)" } ?? ""
        return "\(verdictText)\(transport) \(name): \(measured) (limit \(Self.text(limit, unit))\(comparison)\(detail))\(why)"
    }

    private static func text(_ value: Double, _ unit: String) -> String {
        switch unit {
        case "%": "\(decimalText(value, places: 2))%"
        case "×": "\(decimalText(value, places: 2))×"
        default: "\(decimalText(value, places: 0)) \(unit)"
        }
    }
}

import ArenaGame
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tickwire bench transport [--json] [--duration S] [--loss LIST] [--rtt LIST] [--seed N] …`:
/// real arena clients over WebSocket and over UDP through the loss lab (issue #31 point 5).
///
/// For every cell (loss × RTT) and transport, a fresh lab (`Tools/losslab/lab up … --owner-pid`)
/// with the same seed, `arena serve` in namespace b on its address, one scripted headless
/// `arena join … --dump` in namespace a for `--duration` seconds; the dump's figures
/// (``TransportDump``, ``TransportFigures``) and the relay's byte counters make the cell's row.
/// In the goal cell (2% / 100 ms) each transport also plays through the client's own impairment
/// model (`arena join --lag 50 --loss 2` over a lab that adds nothing), and a goal line says
/// whether the model starves frames within 1.5× of the lab (``TransportGoal/modelAgreement``);
/// `--no-model` leaves those plays out.
/// The lab is taken down after every play, on errors and on SIGINT/SIGTERM. A transport this
/// build of `arena` lacks (`udp` before the netcode.io transport lands) is reported as not
/// available, with the reason; the goal lines (``TransportGoal``) then say pending.
enum BenchTransportCommand {
    /// The transports, in the order they are played.
    static let transports = ["ws", "udp"]

    /// What `tickwire bench transport` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench transport",
        synopsis: [
            "[--json] [--duration S] [--loss LIST] [--rtt LIST] [--seed N] [--transports ws,udp] [--no-model] [--tick HZ] [--warm-up S]"
        ],
        summary: """
            real arena clients over WebSocket and UDP through the loss lab (needs root, /dev/net/tun, ip netns):
            snapshot age at render time, starved frames, longest freeze, bytes a second, input latency, and the goals at 2% / 100 ms
            """,
        options: [
            .flag("json", "machine-readable output"),
            .value("duration", "S", default: "60", "seconds each transport plays in each cell, 10...3600"),
            .value("loss", "LIST", default: "0,1,2,5", "random loss each way, percent"),
            .value("rtt", "LIST", default: "50,100,150", "round trips the lab adds, ms"),
            .value("seed", "N", default: "1", "the lab's seed (the same for every cell and transport)"),
            .value("transports", "LIST", default: "ws,udp", "which transports to play"),
            .flag("no-model", "do not also play the 2% / 100 ms cell through the client's impairment model (arena join --lag --loss)"),
            .value("tick", "HZ", default: "30", "the server's tick rate, 1...240"),
            .value("warm-up", "S", default: "3", "seconds after the first snapshot left out of the figures"),
            .value("port", "P", default: "7777", "the server's port in namespace b"),
            .value("arena", "PATH", default: "arena beside tickwire", "the arena executable"),
            .value("lab", "PATH", default: "Tools/losslab/lab", "the loss lab's command"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        let duration = try parsed.double("duration", default: 60)
        let losses = try numbers(parsed.string("loss"), default: [0, 1, 2, 5], option: "loss", range: 0...100)
        let rtts = try numbers(parsed.string("rtt"), default: [50, 100, 150], option: "rtt", range: 0...10_000)
        let seed = try parsed.integer("seed", default: 1)
        let chosen = parsed.string("transports").map { $0.split(separator: ",").map(String.init) } ?? transports
        let playsModel = !parsed.flag("no-model")
        let tickRate = try parsed.integer("tick", default: 30)
        let warmUp = try parsed.double("warm-up", default: 3)
        let port = try parsed.integer("port", default: 7777)
        let arenaPath = parsed.string("arena")
        let labPath = parsed.string("lab")
        try parsed.rejectUnknown()
        guard (10...3600).contains(duration) else { throw CommandArguments.UsageError(description: "--duration wants 10...3600 seconds") }
        guard warmUp >= 0, warmUp < duration - 5 else {
            throw CommandArguments.UsageError(description: "--warm-up wants 0 or more seconds, at least 5 s under --duration")
        }
        guard seed >= 0 else { throw CommandArguments.UsageError(description: "--seed wants 0 or more") }
        guard (1...240).contains(tickRate) else { throw CommandArguments.UsageError(description: "--tick wants 1...240") }
        guard (1...65535).contains(port) else { throw CommandArguments.UsageError(description: "--port wants 1...65535") }
        if let unknown = chosen.first(where: { !transports.contains($0) }) {
            throw CommandArguments.UsageError(description: "--transports: '\(unknown)' is none of \(transports.joined(separator: ", "))")
        }
        let arena = try arenaPath ?? ownDirectory().appendingPathComponent("arena").path
        let lab = labPath ?? BenchRepository.find().appendingPathComponent("Tools/losslab/lab").path
        guard FileManager.default.isExecutableFile(atPath: arena) else {
            throw BenchFailure(description: "no arena executable at \(arena): `swift build --product arena`, or give --arena PATH")
        }
        guard FileManager.default.isExecutableFile(atPath: lab) else {
            throw BenchFailure(description: "no loss lab command at \(lab): run from the repository, or give --lab PATH")
        }
        let signals = BenchTransportLab.takeDownOnSignals()
        defer { for source in signals { source.cancel() } }
        let play = BenchTransportPlay(
            arena: arena, lab: lab, udpUnavailable: try udpUnavailable(arena: arena), tickRate: tickRate, duration: duration,
            warmUp: warmUp,
            port: port, seed: UInt64(seed))
        var failures = 0
        var report = TransportBenchReport(tickRate: tickRate, seconds: duration, warmUp: warmUp, seed: UInt64(seed))
        for loss in losses {
            for rtt in rtts {
                var cell = TransportBenchCell(lossPercent: loss, rttMilliseconds: rtt)
                let isGoalCell = loss == TransportGoal.cell.loss && rtt == TransportGoal.cell.rtt
                let plays = chosen.map { ($0, false) } + (playsModel && isGoalCell ? chosen.map { ($0, true) } : [])
                for (transport, modelled) in plays {
                    let name = modelled ? TransportBenchResult.modelName(of: transport) : transport
                    StandardError.write(
                        "tickwire: bench transport: \(name) at \(decimalText(loss, places: 0))% loss, \(decimalText(rtt, places: 0)) ms RTT, \(decimalText(duration, places: 0)) s\n"
                    )
                    do {
                        let result = try play.measure(transport: transport, loss: loss, rtt: rtt, modelled: modelled)
                        if let reason = result.unavailable { StandardError.write("tickwire: bench transport: \(name): \(reason)\n") }
                        cell.results.append(result)
                    } catch {
                        // One failed play is reported in its row, and the others still run; the status says it.
                        StandardError.write("tickwire: bench transport: \(name) failed: \(error)\n")
                        cell.results.append(TransportBenchResult(transport: name, failure: error.description))
                        failures += 1
                    }
                }
                report.cells.append(cell)
            }
        }
        try report.print(asJSON: asJSON)
        if failures > 0 { throw BenchFailure(description: "\(failures) plays failed; their rows say why") }
    }

    /// Why `udp` cannot be played with this `arena`, or `nil` when it can: its `join --help` must
    /// name the `udp://` scheme and its `serve --help` the `--udp-port` option.
    static func udpUnavailable(arena: String) throws(BenchFailure) -> String? {
        func help(_ command: String) throws(BenchFailure) -> String {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-help-\(getpid())-\(command)")
            let process = try BenchTransportProcess(
                "arena \(command) --help", executable: arena, arguments: [command, "--help"], output: scratch)
            defer {
                do { try FileManager.default.removeItem(at: scratch) } catch {
                    StandardError.write("tickwire: could not remove \(scratch.path): \(error)\n")
                }
            }
            guard process.wait(seconds: 10) else {
                process.stop()
                throw BenchFailure(description: "`arena \(command) --help` did not finish within 10 s")
            }
            return try process.text()
        }
        if try !help("join").contains("udp://") { return "not available: arena join has no udp:// scheme" }
        if try !help("serve").contains("--udp-port") { return "not available: arena serve has no --udp-port" }
        return nil
    }

    /// The numbers of a comma-separated option, or `defaults` without it.
    static func numbers(_ text: String?, default defaults: [Double], option: String, range: ClosedRange<Double>) throws -> [Double] {
        guard let text else { return defaults }
        let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0.map(range.contains) ?? false }) else {
            throw CommandArguments.UsageError(
                description:
                    "--\(option) wants numbers in \(decimalText(range.lowerBound, places: 0))...\(decimalText(range.upperBound, places: 0)) separated by commas, not '\(text)'"
            )
        }
        return values.compactMap { $0 }
    }

    /// The directory of this executable, where `swift build` also puts `arena`.
    private static func ownDirectory() throws(BenchFailure) -> URL {
        do {
            return URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                .deletingLastPathComponent()
        } catch {
            throw BenchFailure(description: "cannot find this executable's directory (/proc/self/exe): \(error); give --arena PATH")
        }
    }
}

import ArenaGame
import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire bench client [--entities 1000] [--frames 600] [--batch 32] [--path both|whole|narrow] [--json]`:
/// a client's CPU per render frame in a big arena room, reading its predicted player through the
/// game's one-entity path (`Game.captureEntity(of:in:into:)`, which `Arena` implements) and
/// through the default whole-world path, in the same run.
///
/// One ``Host`` of the real `Arena` game with enough bots that the world holds `--entities`
/// players, on a perfect ``SimulatedNetwork`` and a ``VirtualClock``; two ``ClientSession``s
/// play in it with the same seeded inputs, one of `Arena` (the narrow path) and one of
/// ``WholeWorldArena`` (the default). Frames run at 60 Hz, host and client ticks at 30 Hz.
/// Untimed each frame: the host's tick and the sessions' ticks when due, and `receive()`, so
/// that snapshots arrive and predictions reconcile as in play. Timed, in CPU time of the calling
/// thread, alternating which session goes first: `predictedLocalEntity` (`--batch` calls back to
/// back, averaged: a call is too short for the clock alone) and one `render()`. The report gives
/// the median over the frames of each, in nanoseconds, and the ratio whole ÷ narrow.
///
/// `--path whole` or `--path narrow` runs one session alone (for counting instructions with
/// callgrind's `--toggle-collect`).
enum BenchClientCommand {
    /// What `tickwire bench client` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench client",
        synopsis: ["[--entities 1000] [--frames 600] [--batch 32] [--path both|whole|narrow] [--json]"],
        summary: """
            a client's CPU per render frame with N players in its predicted world: predictedLocalEntity and
            render(), reading the local player through Arena's one-entity capture (narrow) and through the
            default that captures the whole world (whole), in the same run; medians over the frames, in ns
            """,
        options: [
            .flag("json", "machine-readable output"),
            .value("entities", "N", default: "1000", "players in the world, 2...4000"),
            .value("frames", "N", default: "600", "render frames timed, 60...100000"),
            .value("batch", "N", default: "32", "predictedLocalEntity calls per timed frame, 1...10000"),
            .value("path", "both|whole|narrow", default: "both", "which sessions run (one alone, for callgrind)"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        let entities = try parsed.integer("entities", default: 1000)
        let frames = try parsed.integer("frames", default: 600)
        let batch = try parsed.integer("batch", default: 32)
        let path = parsed.string("path") ?? "both"
        try parsed.rejectUnknown()
        guard (2...4000).contains(entities) else {
            throw CommandArguments.UsageError(description: "--entities wants 2...4000 (the arena's players), got \(entities)")
        }
        guard (60...100_000).contains(frames) else {
            throw CommandArguments.UsageError(description: "--frames wants 60...100000, got \(frames)")
        }
        guard (1...10_000).contains(batch) else {
            throw CommandArguments.UsageError(description: "--batch wants 1...10000, got \(batch)")
        }
        guard ["both", "whole", "narrow"].contains(path) else {
            throw CommandArguments.UsageError(description: "--path wants both, whole or narrow, got \(path)")
        }
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench client`\n")
        #endif
        let report = try measure(entities: entities, frames: frames, batch: batch, narrow: path != "whole", whole: path != "narrow")
        try report.print(asJSON: asJSON)
    }

    /// What one session measured, frame by frame.
    final class Probe {
        let name: String
        let predictedLocalEntity: () -> EntityView?
        let render: () -> WorldView?
        let predictedPlayers: () -> Int
        var entityNanoseconds: [Double] = []
        var renderNanoseconds: [Double] = []

        init<G: Game>(_ name: String, _ session: ClientSession<G>, players: @escaping (G.State) -> Int) {
            self.name = name
            predictedLocalEntity = { session.predictedLocalEntity }
            render = { session.render() }
            predictedPlayers = { session.predictedState.map(players) ?? 0 }
        }

        /// Times `batch` back-to-back reads of the predicted player, then one render.
        func measureFrame(batch: Int) throws {
            var sink = 0
            let started = threadCPUTime()
            for _ in 0..<batch { sink &+= predictedLocalEntity()?.values.count ?? 0 }
            let read = threadCPUTime()
            let view = render()
            let rendered = threadCPUTime()
            guard sink > 0, let view, !view.entities.isEmpty else {
                throw BenchClientFailure(description: "the \(name) session has no predicted player or view to time")
            }
            entityNanoseconds.append((read - started).secondsValue * 1e9 / Double(batch))
            renderNanoseconds.append((rendered - read).secondsValue * 1e9)
        }
    }

    static func measure(entities: Int, frames: Int, batch: Int, narrow: Bool, whole: Bool) throws -> BenchClientReport {
        let tickRate = 30
        let sessionCount = (narrow ? 1 : 0) + (whole ? 1 : 0)
        let game = Arena(botCount: entities - sessionCount)
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        var configuration = HostConfiguration()
        configuration.tickRate = tickRate
        configuration.tokenSeed = 1
        configuration.outboundBudgetBytes = 1 << 30
        configuration.compressionPreference = [.none]
        let host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        let clientConfiguration = ClientConfiguration()

        var probes: [Probe] = []
        var ticks: [(ArenaInput) -> Void] = []
        if narrow {
            let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
            session.connect(over: network.connect())
            probes.append(Probe("narrow (Arena.captureEntity)", session) { $0.players.count })
            ticks.append { session.tick(input: $0) }
        }
        if whole {
            let session = ClientSession(game: WholeWorldArena(base: game), clock: clock, configuration: clientConfiguration)
            session.connect(over: network.connect())
            probes.append(Probe("whole world (the default)", session) { $0.players.count })
            ticks.append { session.tick(input: $0) }
        }

        // Both sessions' players walk the same seeded course (a new direction about twice a second).
        var rng = SplitMix64(seed: 0xBE7C_11E7)
        var input = ArenaInput.idle
        let framePeriod = Duration.nanoseconds(1_000_000_000 / 60)
        let warmUpFrames = 120
        for frame in 0..<(warmUpFrames + frames) {
            if frame % 2 == 0 {
                host.advance()
                if rng.next() % 15 == 0 { input = ArenaInput(moveX: Int(rng.next() % 3) - 1, moveY: Int(rng.next() % 3) - 1, fires: false) }
                for tick in ticks { tick(input) }
            }
            clock.advance(by: framePeriod)
            if frame < warmUpFrames {
                for probe in probes { _ = probe.render() }
                continue
            }
            // Alternate the order, so that neither session always runs on the other's warm cache.
            for probe in frame % 2 == 0 ? probes : probes.reversed() { try probe.measureFrame(batch: batch) }
        }
        let rows = probes.map { probe in
            BenchClientReport.Row(
                path: probe.name, predictedPlayers: probe.predictedPlayers(),
                nanosecondsPerPredictedLocalEntity: BenchCodecCommand.median(probe.entityNanoseconds),
                nanosecondsPerRender: BenchCodecCommand.median(probe.renderNanoseconds))
        }
        var report = BenchClientReport(
            entities: entities, frames: frames, batch: batch, worldEntities: host.room(named: "").map { $0.state.players.count } ?? 0,
            rows: rows)
        if rows.count == 2 {
            report.predictedLocalEntityRatio = rows[1].nanosecondsPerPredictedLocalEntity / rows[0].nanosecondsPerPredictedLocalEntity
            report.renderRatio = rows[1].nanosecondsPerRender / rows[0].nanosecondsPerRender
        }
        return report
    }
}

struct BenchClientFailure: Error, CustomStringConvertible {
    let description: String
}

/// `Arena` without its one-entity capture: every requirement forwards to `base` except
/// `captureEntity(of:in:into:)`, so that a session of it reads its predicted player through the
/// protocol's default, a capture of the whole world. The benchmark's "before".
struct WholeWorldArena: Game {
    let base: Arena

    var schema: Schema { base.schema }
    var compensatesLag: Bool { base.compensatesLag }
    func makeWorld(room: String) -> ArenaWorld { base.makeWorld(room: room) }
    func step(_ state: ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double) -> ArenaWorld { base.step(state, inputs: inputs, dt: dt) }
    func step(_ state: ArenaWorld, inputs: [UInt32: ArenaInput], dt: Double, lag: LagCompensation) -> ArenaWorld {
        base.step(state, inputs: inputs, dt: dt, lag: lag)
    }
    func teleportedEntities(in state: ArenaWorld) -> [UInt32] { base.teleportedEntities(in: state) }
    func addPlayer(_ player: UInt32, to state: ArenaWorld) -> ArenaWorld { base.addPlayer(player, to: state) }
    func addPlayer(_ player: UInt32, payload: [UInt8], to state: ArenaWorld) -> ArenaWorld {
        base.addPlayer(player, payload: payload, to: state)
    }
    func removePlayer(_ player: UInt32, from state: ArenaWorld) -> ArenaWorld { base.removePlayer(player, from: state) }
    func capture(_ state: ArenaWorld, into snapshot: inout Snapshot) throws(SnapshotError) { try base.capture(state, into: &snapshot) }
    func restore(from snapshot: Snapshot) -> ArenaWorld { base.restore(from: snapshot) }
    func entityID(of player: UInt32, in state: ArenaWorld) -> UInt32? { base.entityID(of: player, in: state) }
    func encode(_ input: ArenaInput) -> [UInt8] { base.encode(input) }
    func decodeInput(_ bytes: [UInt8]) -> ArenaInput? { base.decodeInput(bytes) }
}

/// The report of `bench client`.
struct BenchClientReport: Codable {
    var entities: Int
    var frames: Int
    var batch: Int
    /// Players in the host's world at the end.
    var worldEntities: Int
    var rows: [Row]
    /// Whole-world ÷ narrow time of `predictedLocalEntity`, when both ran.
    var predictedLocalEntityRatio: Double?
    /// Whole-world ÷ narrow time of `render()`, when both ran.
    var renderRatio: Double?

    struct Row: Codable {
        var path: String
        /// Players in the session's predicted world at the end.
        var predictedPlayers: Int
        /// Median over the frames of the mean of a batch of calls, thread CPU time.
        var nanosecondsPerPredictedLocalEntity: Double
        /// Median over the frames, thread CPU time.
        var nanosecondsPerRender: Double
    }

    func table() -> String {
        var lines = [
            "bench client: CPU per render frame (thread CPU time, median of \(frames) frames at 60 Hz), Arena with \(worldEntities) players",
            "predictedLocalEntity: mean of \(batch) back-to-back calls per frame; render(): one call per frame (snapshots taken in untimed)",
            "",
            "path                          players  predictedLocalEntity ns  render() ns",
        ]
        for row in rows {
            lines.append(
                row.path.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%7d  %23.0f  %11.0f", row.predictedPlayers, row.nanosecondsPerPredictedLocalEntity,
                        row.nanosecondsPerRender))
        }
        if let predictedLocalEntityRatio, let renderRatio {
            lines.append("")
            lines.append(
                String(
                    format: "whole ÷ narrow: predictedLocalEntity %.1fx, render() %.2fx", predictedLocalEntityRatio, renderRatio))
        }
        return lines.joined(separator: "\n")
    }
}

extension BenchClientReport: BenchReport {}

import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire bench sim [--json] [--ticks N] [--radius R] [--level L] [--compression MODE] [--clients N]`: the host's cost per tick
/// (receive acknowledgements, filter, delta-encode, compress, hand to the transport) for
/// 10, 100 and 1000 clients in the arena-1000 scene of `bench codec`, with and without an
/// interest radius, in microseconds per client per tick.
///
/// The world replays the scene's precomputed snapshots (so the game's own step costs
/// nothing); clients are real ``ClientSession``s on a perfect ``SimulatedNetwork`` that
/// acknowledge every snapshot; only `Host.advance()` is timed, in CPU time of the calling
/// thread (`CLOCK_THREAD_CPUTIME_ID`, so other processes on a busy machine do not inflate it). The
/// per-client figure is `(tick time with N clients − tick time with none) / N`.
enum BenchSimCommand {
    /// What `tickwire bench sim` accepts, with `--threads` (``BenchSimThreadsCommand``) or
    /// without; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench sim",
        synopsis: [
            "[--json] [--ticks N] [--radius R] [--level L] [--compression MODE] [--clients N]",
            "--threads 1,2 [--rooms 40] [--clients 25] [--passes 150] [--warmup 30] [--bots 6] [--json]",
        ],
        summary: """
            the host's cost per client per tick for 10, 100 and 1000 clients, with and without interest;
            with --threads, room ticks per second on 1, 2, … tick threads (arena rooms flat out)
            """,
        options: [
            .flag("json", "machine-readable output"),
            .value("ticks", "N", default: "400, 200 or 90 by client count", "ticks per configuration, 20...590"),
            .value("radius", "R", default: "128", "the interest radius of the rows with interest"),
            .value("level", "L", default: "\(CompressionSettings().level)", "the zlib level, 0...9"),
            .value("compression", "MODE", default: "perFrame", "none, perFrame or streaming"),
            .value("clients", "N", default: "10, 100 and 1000; with --threads 25", "only N clients; with --threads, clients per room"),
            .value("threads", "LIST", "measure room ticks per second on each of these tick-thread counts (e.g. 1,2)"),
            .value("rooms", "N", default: "40", "with --threads: rooms, 1...1024"),
            .value("passes", "N", default: "150", "with --threads: timed passes (every room ticks once a pass)"),
            .value("warmup", "N", default: "30", "with --threads: untimed passes first"),
            .value("bots", "N", default: "6", "with --threads: bots per room, 0...64"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let asJSON = parsed.flag("json")
        if let threadList = parsed.string("threads") {
            // The other benchmark: rooms on tick threads (BenchSimThreadsCommand.swift).
            return try BenchSimThreadsCommand.run(&parsed, threadList: threadList, asJSON: asJSON)
        }
        // More ticks for fewer clients, so every configuration times thousands of sends.
        let fixedTicks = try parsed.integer("ticks", default: 0)
        let radius = try parsed.double("radius", default: 128)
        let level = try parsed.integer("level", default: CompressionSettings().level)
        let compressionName = parsed.string("compression") ?? "perFrame"
        let onlyClients = try parsed.integer("clients", default: 0)
        try parsed.rejectUnknown()
        guard fixedTicks == 0 || (20...590).contains(fixedTicks) else {
            throw CommandArguments.UsageError(description: "--ticks wants 20...590")
        }
        func ticks(for clients: Int) -> Int { fixedTicks > 0 ? fixedTicks : (clients <= 10 ? 400 : clients <= 100 ? 200 : 90) }
        guard (0...9).contains(level) else { throw CommandArguments.UsageError(description: "--level wants 0...9") }
        let modes: [String: CompressionMode] = ["none": .none, "perFrame": .perFrame, "streaming": .streaming]
        guard let compression = modes[compressionName] else {
            throw CommandArguments.UsageError(description: "--compression wants none, perFrame or streaming")
        }
        let settings = Settings(level: level, compression: compression)

        let scene = try BenchScenes.arena()
        let game = ArenaReplayGame(snapshots: scene.snapshots, schema: scene.schema)
        let empty = measure(game: game, clients: 0, radius: nil, ticks: ticks(for: 0), settings: settings)
        var rows: [BenchSimRow] = []
        for useRadius in [false, true] {
            for clients in onlyClients > 0 ? [onlyClients] : [10, 100, 1000] {
                let result = measure(
                    game: game, clients: clients, radius: useRadius ? radius : nil, ticks: ticks(for: clients), settings: settings)
                let perClient = max(0, result.microsecondsPerTick - empty.microsecondsPerTick) / Double(clients)
                rows.append(
                    BenchSimRow(
                        clients: clients, measuredTicks: ticks(for: clients) - ticks(for: clients) / 2,
                        interestRadius: useRadius ? radius : nil,
                        microsecondsPerTick: result.microsecondsPerTick, microsecondsPerClientPerTick: perClient,
                        bytesPerClientPerTick: result.bytesPerClientPerTick, fullSnapshots: result.fullSnapshots,
                        skippedSnapshots: result.skipped))
            }
        }
        let report = BenchSimReport(
            scene: scene.name, tickRate: scene.hz,
            compression: compression.description, compressionLevel: level,
            emptyTickMicroseconds: empty.microsecondsPerTick, goalMicrosecondsPerClient: 30, rows: rows)
        try report.print(asJSON: asJSON)
    }

    struct Settings {
        var level: Int
        var compression: CompressionMode
    }

    struct Measurement {
        var microsecondsPerTick: Double
        var bytesPerClientPerTick: Double
        var fullSnapshots: Int
        var skipped: Int
    }

    /// Runs `ticks` ticks and times `Host.advance()` over the second half (after warm-up).
    static func measure(game: ArenaReplayGame, clients: Int, radius: Double?, ticks: Int, settings: Settings) -> Measurement {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.roomCapacity = max(1, clients)
        configuration.tokenSeed = 1
        configuration.outboundBudgetBytes = 1 << 30
        configuration.interestFilter = radius.map { .radius($0, schema: game.schema) }
        configuration.compressionLevel = settings.level
        configuration.compressionPreference = [settings.compression]
        let host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        var sessions: [ClientSession<ArenaReplayGame>] = []
        var clientConfiguration = ClientConfiguration()
        clientConfiguration.predictsLocalPlayer = false
        for _ in 0..<clients {
            let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
            session.connect(over: network.connect())
            sessions.append(session)
        }
        var timed: Duration = .zero
        let period = Duration.nanoseconds(1_000_000_000 / 30)
        var bytesBefore = 0
        for tick in 0..<ticks {
            if tick == ticks / 2 { bytesBefore = network.deliveredBytes }
            let started = threadCPUTime()
            host.advance()
            if tick >= ticks / 2 { timed += threadCPUTime() - started }
            for session in sessions { session.tick(input: nil) }
            clock.advance(by: period)
        }
        let measured = Double(ticks - ticks / 2)
        let room = host.room(named: "")
        let metrics = room?.metrics
        return Measurement(
            microsecondsPerTick: timed.secondsValue * 1e6 / measured,
            bytesPerClientPerTick: clients == 0 ? 0 : Double(network.deliveredBytes - bytesBefore) / measured / Double(clients),
            fullSnapshots: metrics?.fullSnapshotsSent ?? 0, skipped: metrics?.snapshotsSkipped ?? 0)
    }
}

/// CPU time consumed by the calling thread (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
func threadCPUTime() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Timestamp(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
}

/// The arena-1000 scene as a ``Game``: the world is the index of the scene's snapshot to
/// show, and player *p* views from entity *p* (or, once that is replaced, from the entity
/// with the next larger id). Inputs
/// are ignored. Used only by the benchmark.
struct ArenaReplayGame: Game {
    let snapshots: [Snapshot]
    let schema: Schema

    func makeWorld(room: String) -> Int { 0 }
    func step(_ state: Int, inputs: [UInt32: UInt8], dt: Double) -> Int { (state + 1) % snapshots.count }
    func addPlayer(_ player: UInt32, to state: Int) -> Int { state }
    func removePlayer(_ player: UInt32, from state: Int) -> Int { state }

    func capture(_ state: Int, into snapshot: inout Snapshot) throws(SnapshotError) {
        let tick = snapshot.tick
        snapshot = snapshots[state]
        snapshot.tick = tick
    }

    func restore(from snapshot: Snapshot) -> Int { 0 }

    func entityID(of player: UInt32, in state: Int) -> UInt32? {
        let world = snapshots[state]
        guard !world.isEmpty else { return nil }
        // The entity with the smallest id ≥ p: entity p while it lives, then (ids only grow)
        // a stand-in that stays the same until it too is replaced, so views do not jump.
        let ids = world.entityIDs
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < player { low = middle + 1 } else { high = middle }
        }
        return ids[min(low, ids.count - 1)]
    }

    func encode(_ input: UInt8) -> [UInt8] { [input] }
    func decodeInput(_ bytes: [UInt8]) -> UInt8? { bytes.count == 1 ? bytes[0] : nil }
}

/// One configuration's figures.
struct BenchSimRow: Codable {
    var clients: Int
    var measuredTicks: Int
    var interestRadius: Double?
    var microsecondsPerTick: Double
    var microsecondsPerClientPerTick: Double
    var bytesPerClientPerTick: Double
    var fullSnapshots: Int
    var skippedSnapshots: Int
}

/// The whole report of `bench sim`.
struct BenchSimReport: Codable {
    var scene: String
    var tickRate: Int
    var compression: String
    var compressionLevel: Int
    var emptyTickMicroseconds: Double
    var goalMicrosecondsPerClient: Double
    var rows: [BenchSimRow]

    func table() -> String {
        var lines = [
            "bench sim: host cost per tick (thread CPU time), scene \(scene) at \(tickRate) Hz, second half of each run measured",
            "compression: \(compression), zlib level \(compressionLevel)",
            "tick with no clients: \(String(format: "%.1f", emptyTickMicroseconds)) µs (capture and history)",
            "",
            "clients  radius  ticks   µs/tick    µs/client/tick  bytes/client/tick  full  skipped",
        ]
        for row in rows {
            let radius = row.interestRadius.map { String(format: "%.0f", $0) } ?? "none"
            lines.append(
                String(
                    format: "%7d  %6@  %5d  %9.1f  %14.2f  %17.1f  %4d  %7d", row.clients, radius as NSString, row.measuredTicks,
                    row.microsecondsPerTick,
                    row.microsecondsPerClientPerTick, row.bytesPerClientPerTick, row.fullSnapshots, row.skippedSnapshots))
        }
        let withRadius = rows.filter { $0.interestRadius != nil }.map(\.microsecondsPerClientPerTick).max() ?? 0
        lines.append("")
        lines.append(
            String(
                format: "goal: ≤ %.0f µs per client per tick with an interest radius; worst measured %.2f µs: %@",
                goalMicrosecondsPerClient, withRadius, (withRadius <= goalMicrosecondsPerClient ? "met" : "NOT met") as NSString))
        return lines.joined(separator: "\n")
    }
}

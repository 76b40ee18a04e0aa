import ArenaGame
import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire bench sim --threads 1,2 [--rooms 40] [--clients 25] [--passes 150] [--bots 6] [--json]`:
/// the host's capacity on its tick threads, in room ticks per second, for each thread count in
/// the same run.
///
/// Each thread count gets a fresh ``Host`` of the arena game with `--rooms` rooms (placed on the
/// threads as always, the least-loaded first) and `--clients` real ``ClientSession``s in each,
/// on one ``SimulatedNetwork`` (perfect links). The host runs on a ``VirtualClock`` with
/// ``HostConfiguration/usesTickThreadsOnVirtualClock``: every ``Host/advance()`` is one pass of
/// the production tick-thread code in which every room ticks exactly once, and the clock moves
/// on one tick period between passes, so the rooms run flat out, never waiting for a deadline.
/// Only `Host.advance()` is timed, in wall time (the clients decode and acknowledge their
/// snapshots between passes, untimed), after `--warmup` passes of joining and full snapshots.
/// The thread counts take turns, ten blocks of passes each, so that a shared machine's slow
/// drifts fall on all of them alike.
/// Room ticks per second = rooms × timed passes ÷ timed seconds. The process's CPU time over the
/// same passes (`getrusage`) tells contention (more CPU per pass with more threads) from a
/// machine busy with other work (as much CPU, but the threads wait for a core).
enum BenchSimThreadsCommand {
    /// The speed-up two threads should reach over one on a two-core machine (issue #21).
    static let goalSpeedup = 1.7

    static func run(_ parsed: inout CommandArguments, threadList: String, asJSON: Bool) throws {
        let rooms = try parsed.integer("rooms", default: 40)
        let clients = try parsed.integer("clients", default: 25)
        let passes = try parsed.integer("passes", default: 150)
        let warmup = try parsed.integer("warmup", default: 30)
        let bots = try parsed.integer("bots", default: 6)
        try parsed.rejectUnknown()
        let counts = threadList.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= HostConfiguration.maximumTickThreads }) else {
            throw CommandArguments.UsageError(
                description: "--threads wants a list such as 1,2 of counts in 1...\(HostConfiguration.maximumTickThreads)")
        }
        guard (1...1024).contains(rooms), (0...256).contains(clients), (10...100_000).contains(passes), (0...10_000).contains(warmup),
            (0...64).contains(bots)
        else {
            throw CommandArguments.UsageError(
                description: "--rooms wants 1...1024, --clients 0...256, --passes 10...100000, --warmup 0...10000, --bots 0...64")
        }
        // As `arena serve` does: without it glibc hands each tick thread's freed heap back to the
        // kernel every pass, and two threads run slower than one (AllocatorTuning.swift).
        let isAllocatorTuned = AllocatorTuning.keepFreedHeapMemory()
        // Every thread count's host is set up and warmed first, then they take turns, a block of
        // passes each, so that the machine's slow drifts (other work on a shared host) fall on
        // every thread count alike rather than on whichever ran last.
        let setups = counts.compactMap { $0 }.map { threads in
            BenchSimThreadsSetup(threads: threads, rooms: rooms, clients: clients, bots: bots)
        }
        for setup in setups { setup.run(passes: warmup, timed: false) }
        let blocks = min(passes, blockCount)
        for block in 0..<blocks {
            let share = passes / blocks + (block < passes % blocks ? 1 : 0)
            for setup in setups { setup.run(passes: share, timed: true) }
        }
        var rows: [BenchSimThreadsRow] = []
        for setup in setups {
            var row = setup.row(passes: passes)
            row.speedup = rows.first.map { row.roomTicksPerSecond / $0.roomTicksPerSecond } ?? 1
            row.cpuEfficiency = rows.first.map { $0.cpuMillisecondsPerPass / max(row.cpuMillisecondsPerPass, 1e-9) } ?? 1
            rows.append(row)
        }
        let report = BenchSimThreadsReport(
            rooms: rooms, clientsPerRoom: clients, botsPerRoom: bots, passes: passes, processors: HostConfiguration.processorCount,
            isAllocatorTuned: isAllocatorTuned, goalSpeedup: goalSpeedup, rows: rows)
        try report.print(asJSON: asJSON)
    }

    /// How many turns the thread counts take (each runs passes ÷ blocks passes per turn).
    static let blockCount = 10
}

/// One thread count's host, its rooms and clients, on a virtual clock of its own, run pass by
/// pass: only `Host.advance()` is timed (the clients decode and acknowledge between passes).
final class BenchSimThreadsSetup {
    let threads: Int
    let rooms: Int
    let clock = VirtualClock()
    let host: TickwireSim.Host<Arena>
    var sessions: [ClientSession<Arena>] = []
    var timed: Duration = .zero
    var cpu: Duration = .zero
    /// The tick period rounded up: the loop's deadlines are rounded up to the nanosecond, and
    /// a pass that came a nanosecond early would tick no room.
    let period = Duration.nanoseconds((1_000_000_000 + 29) / 30)
    let wall = MonotonicClock()

    init(threads: Int, rooms: Int, clients: Int, bots: Int) {
        self.threads = threads
        self.rooms = rooms
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let game = Arena(botCount: bots)
        var configuration = HostConfiguration()
        configuration.tickRate = 30
        configuration.rooms = (1...rooms).map { "room\($0)" }
        configuration.maximumRooms = rooms
        configuration.roomCapacity = max(1, clients)
        configuration.tokenSeed = 1
        configuration.outboundBudgetBytes = 1 << 30
        configuration.tickThreads = threads
        configuration.usesTickThreadsOnVirtualClock = true
        host = Host(game: game, listener: network, clock: clock, configuration: configuration)
        for room in configuration.rooms {
            for _ in 0..<clients {
                var clientConfiguration = ClientConfiguration()
                clientConfiguration.room = room
                clientConfiguration.predictsLocalPlayer = false
                let session = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
                session.connect(over: network.connect())
                sessions.append(session)
            }
        }
    }

    /// Runs `passes` passes, adding their wall and process CPU time to the totals when `timed`.
    func run(passes: Int, timed isTimed: Bool) {
        for _ in 0..<passes {
            let started = wall.now
            let cpuStarted = processCPUTime()
            host.advance()
            if isTimed {
                timed += wall.now - started
                cpu += processCPUTime() - cpuStarted
            }
            for session in sessions { session.tick(input: nil) }
            clock.advance(by: period)
        }
    }

    /// The figures over the timed passes.
    func row(passes: Int) -> BenchSimThreadsRow {
        let seconds = max(timed.secondsValue, 1e-9)
        var ticks: UInt64 = 0
        var connected = 0
        for name in host.roomNames {
            guard let metrics = host.room(named: name)?.metrics else { continue }
            ticks += metrics.ticks.ticksRun
            connected += metrics.connectedClients
        }
        return BenchSimThreadsRow(
            threads: threads, roomTicksPerSecond: Double(rooms * passes) / seconds,
            millisecondsPerPass: seconds * 1000 / Double(passes), cpuMillisecondsPerPass: cpu.secondsValue * 1000 / Double(passes),
            speedup: 1,
            cpuEfficiency: 1, roomTicks: Int(ticks), connectedClients: connected)
    }
}

/// One thread count's figures.
struct BenchSimThreadsRow: Codable {
    var threads: Int
    var roomTicksPerSecond: Double
    var millisecondsPerPass: Double
    /// CPU time of the whole process (every thread) per pass: near ``millisecondsPerPass`` ×
    /// threads when the threads ran side by side, higher than one thread's when they contend.
    var cpuMillisecondsPerPass: Double
    /// Room ticks per second over the first row's.
    var speedup: Double
    /// The first row's CPU time per pass over this row's: 1 when the threads cost nothing
    /// extra (no contention), so that on an idle machine the speed-up could reach the thread count.
    var cpuEfficiency: Double
    /// Ticks every room ran, warm-up included (rooms × passes when every pass ticked every room).
    var roomTicks: Int
    /// Clients connected at the end (rooms × clients when every one joined).
    var connectedClients: Int
}

/// The whole report of `bench sim --threads`.
struct BenchSimThreadsReport: Codable, BenchReport {
    var rooms: Int
    var clientsPerRoom: Int
    var botsPerRoom: Int
    var passes: Int
    var processors: Int
    /// Whether glibc took ``AllocatorTuning/keepFreedHeapMemory(upTo:largeBlockBytes:)``.
    var isAllocatorTuned: Bool
    var goalSpeedup: Double
    var rows: [BenchSimThreadsRow]

    func table() -> String {
        var lines = [
            "bench sim --threads: \(rooms) arena rooms × \(clientsPerRoom) clients (+\(botsPerRoom) bots), \(passes) passes flat out,"
                + " wall time of Host.advance(), \(processors) processors online",
            "allocator keeps freed memory (AllocatorTuning): \(isAllocatorTuned ? "yes" : "no")",
            "",
            "threads  room ticks/s  ms/pass  CPU ms/pass  speed-up  CPU efficiency  room ticks  clients",
        ]
        for row in rows {
            lines.append(
                String(
                    format: "%7d  %12.0f  %7.2f  %11.2f  %7.2f×  %14.2f  %10d  %7d", row.threads, row.roomTicksPerSecond,
                    row.millisecondsPerPass,
                    row.cpuMillisecondsPerPass, row.speedup, row.cpuEfficiency,
                    row.roomTicks, row.connectedClients))
        }
        if let two = rows.first(where: { $0.threads == 2 }), rows.first?.threads == 1 {
            lines.append("")
            lines.append(
                String(
                    format: "goal: ≥ %.1f× with 2 threads; measured %.2f×: %@", goalSpeedup, two.speedup,
                    (two.speedup >= goalSpeedup ? "met" : "NOT met") as NSString))
            lines.append("(a speed-up far below 2 × the CPU efficiency means the threads waited for a core: other work on the machine)")
        }
        return lines.joined(separator: "\n")
    }
}

/// CPU time consumed by the whole process, every thread (`getrusage(RUSAGE_SELF)`, user and system).
func processCPUTime() -> Timestamp {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let micros =
        (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000 + Int64(usage.ru_utime.tv_usec)
        + Int64(usage.ru_stime.tv_usec)
    return Timestamp(nanoseconds: micros * 1000)
}

import ArenaGame
import Synchronization
import Tickwire

// The client-receive rows of `tickwire bench codec`: what one game client pays to take in
// the snapshots of a busy arena room, the load generator's (and a phone's) per-snapshot cost.
//
// Scene "arena-client-56": the real `Arena` game (6 bots) with 50 players added, each holding
// a seeded random input that changes about once a second (move -1...1 on each axis, firing a
// quarter of the time), as `tickwire load` drives its players; 90 ticks of warm-up so that
// bullets fly, then `receiveTicks` consecutive ticks captured at 30 Hz. Each tick is sent as
// a delta against the previous one (a client acknowledging every snapshot), framed as a
// snapshot message without compression.

/// A transport connection whose inbox the benchmark fills by hand; what is sent to it is dropped.
final class BenchInboxConnection: TransportConnection {
    // Sendable: the inbox is behind `inbox`'s Mutex; `connectionID` is a constant.
    private let inbox = Mutex<[TransportEvent]>([])
    let connectionID: UInt64 = 1

    func push(_ frame: [UInt8]) { inbox.withLock { $0.append(.frame(frame)) } }
    func send(_ frame: [UInt8]) -> TransportSendResult { .taken }
    var bufferedBytes: Int { 0 }
    func drain() -> [TransportEvent] {
        inbox.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
    func close(code: CloseCode, reason: String) {}
    var isClosed: Bool { false }
}

/// The frames and snapshots of the client-receive scene.
struct BenchClientScene {
    static let name = "arena-client-56"
    static let players = 50
    static let hz = 30
    static let warmUpTicks = 90
    /// Deltas per pass: ten seconds' worth at 30 Hz.
    static let receiveTicks = 300

    let schema: Schema
    /// `receiveTicks + 1` consecutive snapshots; `[0]` is the baseline of the first delta.
    let snapshots: [Snapshot]
    /// `deltas[i]` encodes `snapshots[i + 1]` against `snapshots[i]`.
    let deltas: [[UInt8]]
    /// The frame a client receives first (`snapshots[0]` whole), then one frame per delta.
    let frames: [[UInt8]]

    static func make() throws -> BenchClientScene {
        let game = Arena()
        var world = game.makeWorld(room: "bench")
        for player in 1...UInt32(players) { world = game.addPlayer(player, to: world) }
        var rng = SplitMix64(seed: 0xC11E_0056)
        var inputs: [UInt32: ArenaInput] = [:]
        func nextInputs() {
            for player in 1...UInt32(players) where inputs[player] == nil || rng.next() % 30 == 0 {
                inputs[player] = ArenaInput(moveX: Int(rng.next() % 3) - 1, moveY: Int(rng.next() % 3) - 1, fires: rng.next() % 4 == 0)
            }
        }
        let dt = 1 / Double(hz)
        for _ in 0..<warmUpTicks {
            nextInputs()
            world = game.step(world, inputs: inputs, dt: dt)
        }
        let codec = SnapshotCodec(schema: game.schema)
        let compressor = FrameCompressor.uncompressed()
        var snapshots: [Snapshot] = [], deltas: [[UInt8]] = [], frames: [[UInt8]] = []
        for index in 0...receiveTicks {
            nextInputs()
            world = game.step(world, inputs: inputs, dt: dt)
            var snapshot = Snapshot(schema: game.schema, tick: UInt32(warmUpTicks + index))
            try game.capture(world, into: &snapshot)
            let baseline = snapshots.last
            let delta = try codec.encode(snapshot, against: baseline)
            if baseline != nil { deltas.append(delta) }
            frames.append(
                try compressor.encode(
                    .snapshot(
                        Message.Snapshot(
                            tick: snapshot.tick, baselineTick: baseline?.tick, lastProcessedInput: 0,
                            serverTime: UInt64(snapshot.tick) * 1_000_000 / UInt64(hz), delta: delta))))
            snapshots.append(snapshot)
        }
        return BenchClientScene(schema: game.schema, snapshots: snapshots, deltas: deltas, frames: frames)
    }
}

/// What the client-receive rows measured.
struct BenchClientReceiveReport: Codable {
    var name: String
    var summary: String
    var entitiesPerSnapshot: Double
    var bytesPerDelta: Double
    var snapshotsPerRun: Int
    var rows: [Row]

    struct Row: Codable {
        var name: String
        /// Median thread CPU time per snapshot, in microseconds.
        var microsecondsPerSnapshot: Double
        /// Median wall-clock time per snapshot, in microseconds.
        var wallMicrosecondsPerSnapshot: Double
    }

    func table() -> String {
        var lines = [
            "\(name): \(summary)",
            String(
                format: "  %d deltas per run, %.1f entities each, %.1f B per delta; thread CPU time, median of the runs",
                snapshotsPerRun, entitiesPerSnapshot, bytesPerDelta),
        ]
        for row in rows {
            lines.append(
                "  " + row.name.padding(toLength: 48, withPad: " ", startingAt: 0)
                    + String(format: "%9.2f µs/snap", row.microsecondsPerSnapshot))
        }
        return lines.joined(separator: "\n")
    }
}

enum BenchClientReceive {
    /// Measures decoding alone and a whole `ClientSession` receive, `runs` times each.
    static func measure(runs: Int) throws -> BenchClientReceiveReport {
        let scene = try BenchClientScene.make()
        let codec = SnapshotCodec(schema: scene.schema)
        let snapshots = scene.snapshots, deltas = scene.deltas
        // Untimed check: every delta decodes to its snapshot.
        for (index, delta) in deltas.enumerated() where try codec.decode(delta, baseline: snapshots[index]) != snapshots[index + 1] {
            throw BenchCodecCommand.RoundTripFailure(description: "\(BenchClientScene.name) delta \(index + 1) did not round-trip")
        }
        var rows: [BenchClientReceiveReport.Row] = []
        rows.append(
            try time("decode(_:baseline:) → new Snapshot", runs: runs, count: deltas.count) {
                var total = 0
                for (index, delta) in deltas.enumerated() {
                    total &+= try codec.decode(delta, baseline: snapshots[index]).count
                }
                return total
            })
        var reused = Snapshot(schema: scene.schema, tick: 0)
        rows.append(
            try time("decode(_:baseline:into:) reusing one Snapshot", runs: runs, count: deltas.count) {
                var total = 0
                for (index, delta) in deltas.enumerated() {
                    try codec.decode(delta, baseline: snapshots[index], into: &reused)
                    total &+= reused.count
                }
                return total
            })
        rows.append(try receiveRow(scene, runs: runs))
        let entities = Double(snapshots.dropFirst().reduce(0) { $0 + $1.count }) / Double(deltas.count)
        return BenchClientReceiveReport(
            name: BenchClientScene.name,
            summary: "the Arena game, 50 players + 6 bots with random inputs, 30 Hz; each tick a delta against the previous one",
            entitiesPerSnapshot: entities,
            bytesPerDelta: Double(deltas.reduce(0) { $0 + $1.count }) / Double(deltas.count),
            snapshotsPerRun: deltas.count, rows: rows)
    }

    /// A `ClientSession<Arena>` (no prediction, as `tickwire load` runs it) taking in the whole
    /// snapshot and then every delta frame, one per `receive()`; a fresh connection per run.
    static func receiveRow(_ scene: BenchClientScene, runs: Int) throws -> BenchClientReceiveReport.Row {
        var configuration = ClientConfiguration()
        configuration.predictsLocalPlayer = false
        let session = ClientSession(game: Arena(), clock: MonotonicClock(), configuration: configuration)
        let expected = scene.frames.count
        var failure: String?
        let row = time("ClientSession.receive() of one frame", runs: runs, count: expected) {
            let connection = BenchInboxConnection()
            session.connect(over: connection)
            let before = session.metrics.snapshotsReceived
            for frame in scene.frames {
                connection.push(frame)
                session.receive()
            }
            let taken = session.metrics.snapshotsReceived - before
            if taken != expected { failure = "the session took \(taken) of \(expected) snapshots" }
            return taken
        }
        if let failure { throw BenchCodecCommand.RoundTripFailure(description: failure) }
        return row
    }

    static func time(_ name: String, runs: Int, count: Int, _ body: () throws -> Int) rethrows -> BenchClientReceiveReport.Row {
        var cpu: [Double] = [], wall: [Double] = []
        var sink = 0
        sink &+= try body()  // warm-up
        for _ in 0..<runs {
            let clock = ContinuousClock()
            let start = clock.now, startCPU = BenchCodecCommand.threadCPUSeconds()
            sink &+= try body()
            let endCPU = BenchCodecCommand.threadCPUSeconds(), end = clock.now
            cpu.append((endCPU - startCPU) / Double(count))
            wall.append(BenchCodecCommand.seconds(end - start) / Double(count))
        }
        if sink == 42 { print("", terminator: "") }  // keeps the work observable
        return BenchClientReceiveReport.Row(
            name: name, microsecondsPerSnapshot: BenchCodecCommand.median(cpu) * 1e6,
            wallMicrosecondsPerSnapshot: BenchCodecCommand.median(wall) * 1e6)
    }
}

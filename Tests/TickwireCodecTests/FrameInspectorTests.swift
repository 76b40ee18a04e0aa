import Foundation
import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("FrameInspector")
struct FrameInspectorTests {
    /// Two snapshots of the arena schema: ship 1 moves and turns, ship 2 is destroyed, ship 3 created.
    static func snapshots() throws -> (Snapshot, Snapshot) {
        var first = Snapshot(schema: TestSchemas.arena, tick: 10)
        for id: UInt32 in [1, 2] {
            let index = try first.insert(id: id, type: 0)
            first.set(1.5, at: index, field: 0)
            first.set(-2.0, at: index, field: 1)
            first.set(Double.pi / 2, at: index, field: 2)
            first.set(integer: 100, at: index, field: 3)
        }
        var second = first
        second.tick = 11
        second.set(2.0, at: 0, field: 0)
        second.set(Double.pi, at: 0, field: 2)
        second.remove(id: 2)
        let index = try second.insert(id: 3, type: 0)
        second.set(integer: 5, at: index, field: 4)
        return (first, second)
    }

    @Test("a full snapshot then a delta: entities created, changed field by field old → new, destroyed")
    func snapshotsAndDelta() throws {
        let (first, second) = try Self.snapshots()
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let compressor = try FrameCompressor(mode: .none)
        let full = try compressor.encode(
            .snapshot(
                .init(
                    tick: 10, baselineTick: nil, lastProcessedInput: 0, serverTime: 500_000,
                    delta: codec.encode(first, against: nil))))
        let delta = try compressor.encode(
            .snapshot(
                .init(
                    tick: 11, baselineTick: 10, lastProcessedInput: 3, serverTime: 550_000,
                    delta: codec.encode(second, against: first))))
        let inspector = FrameInspector(schema: TestSchemas.arena)
        let fullLines = inspector.inspect(RecordedFrame(direction: .toClient, time: 7_000_000, bytes: full))
        #expect(fullLines[0] == "[+0.000 s] to client: snapshot, \(full.count) B on the wire, body \(full.count - 1) B uncompressed")
        #expect(fullLines.contains("  created ship 1: x 1.500000, y -2.000000, heading 90.00°, health 100, state 0"))
        #expect(fullLines.last == "  = 2 entities: 2 created, 0 changed, 0 destroyed, 0 unchanged")
        let lines = inspector.inspect(RecordedFrame(direction: .toClient, time: 7_050_000, bytes: delta))
        #expect(lines[0].hasPrefix("[+0.050 s] to client: snapshot"))
        #expect(
            lines[1] == "  snapshot tick 11 baseline 10 input 3 time 550000 µs delta \(try codec.encode(second, against: first).count) B")
        #expect(
            Array(lines.dropFirst(2)) == [
                "  changed ship 1: x 1.500000 → 2.000000, heading 90.00° → 180.00°",
                "  destroyed ship 2",
                "  created ship 3: x -512.000000, y -512.000000, heading 0.00°, health 0, state 5",
                "  = 2 entities: 1 created, 1 changed, 1 destroyed, 0 unchanged",
            ], "got:\n\(lines.joined(separator: "\n"))")
    }

    @Test("a text field shows quoted, and a renamed entity shows its old and new name")
    func texts() throws {
        let schema = ProtocolVectorTests.named
        var first = Snapshot(schema: schema, tick: 10)
        let index = try first.insert(id: 1, type: 0)
        first.setText("Ann", at: index, field: 1)
        var second = first
        second.tick = 11
        second.setText("Zoë", at: index, field: 1)
        let codec = SnapshotCodec(schema: schema)
        let compressor = try FrameCompressor(mode: .none)
        let inspector = FrameInspector(schema: schema)
        let full = try compressor.encode(
            .snapshot(.init(tick: 10, baselineTick: nil, lastProcessedInput: 0, serverTime: 0, delta: codec.encode(first, against: nil))))
        let delta = try compressor.encode(
            .snapshot(.init(tick: 11, baselineTick: 10, lastProcessedInput: 0, serverTime: 0, delta: codec.encode(second, against: first))))
        let fullLines = inspector.inspect(RecordedFrame(direction: .toClient, time: 0, bytes: full))
        #expect(
            fullLines.contains("  created player 1: x 0, name \"Ann\", alive false, motto \"\""),
            "got:\n\(fullLines.joined(separator: "\n"))")
        let lines = inspector.inspect(RecordedFrame(direction: .toClient, time: 0, bytes: delta))
        #expect(lines.contains("  changed player 1: name \"Ann\" → \"Zoë\""), "got:\n\(lines.joined(separator: "\n"))")
    }

    @Test("after a welcome naming predicted entropy deltas, each delta decodes with the motion kept with its baseline")
    func predictedDeltas() throws {
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        var first = Snapshot(schema: TestSchemas.arena, tick: 10)
        let index = try first.insert(id: 1, type: 0)
        first.set(1.5, at: index, field: 0)
        var second = first
        second.tick = 11
        second.set(2.0, at: index, field: 0)
        var third = second
        third.tick = 13
        third.set(3.0, at: index, field: 0)
        var motion = SnapshotMotion.zero
        let full = try codec.encode(first, against: nil, coding: .predictedEntropy, baselineMotion: .zero, motion: &motion)
        let delta = try codec.encode(second, against: first, coding: .predictedEntropy, baselineMotion: motion, motion: &motion)
        // Two ticks on from a motion over one: the prediction is scaled, and exact here.
        let predicted = try codec.encode(third, against: second, coding: .predictedEntropy, baselineMotion: motion, motion: &motion)
        let compressor = try FrameCompressor(mode: .none)
        let welcome = Message.Welcome(clientID: 1, tickRate: 20, currentTick: 10, serverTime: 0, deltaCoding: .predictedEntropy)
        let frames = try [
            compressor.encode(.welcome(welcome)),
            compressor.encode(.snapshot(.init(tick: 10, baselineTick: nil, lastProcessedInput: 0, serverTime: 0, delta: full))),
            compressor.encode(.snapshot(.init(tick: 11, baselineTick: 10, lastProcessedInput: 0, serverTime: 0, delta: delta))),
            compressor.encode(.snapshot(.init(tick: 13, baselineTick: 11, lastProcessedInput: 0, serverTime: 0, delta: predicted))),
        ]
        let inspector = FrameInspector(schema: TestSchemas.arena)
        var lines: [String] = []
        for frame in frames { lines = inspector.inspect(RecordedFrame(direction: .toClient, time: 0, bytes: frame)) }
        #expect(
            Array(lines.dropFirst(2)) == [
                "  changed ship 1: x 2.000000 → 3.000000", "  = 1 entities: 0 created, 1 changed, 0 destroyed, 0 unchanged",
            ], "got:\n\(lines.joined(separator: "\n"))")
    }

    @Test("a delta whose baseline was never seen, and a frame that does not decode, give error lines and no trap")
    func errors() throws {
        let (first, second) = try Self.snapshots()
        let codec = SnapshotCodec(schema: TestSchemas.arena)
        let delta = try FrameCompressor(mode: .none).encode(
            .snapshot(
                .init(
                    tick: 11, baselineTick: 10, lastProcessedInput: 0, serverTime: 0, delta: codec.encode(second, against: first))))
        let inspector = FrameInspector(schema: TestSchemas.arena)
        let lines = inspector.inspect(RecordedFrame(direction: .toClient, time: 0, bytes: delta))
        #expect(lines.last == "  error: baseline tick 10 is not among the snapshots seen, so the delta cannot be decoded")
        #expect(inspector.inspect(RecordedFrame(direction: .toServer, time: 0, bytes: [])).last?.hasPrefix("  error: empty frame") == true)
        var rng = SplitMix64(seed: 99)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let direction: RecordingDirection = Bool.random(using: &rng) ? .toClient : .toServer
            #expect(!inspector.inspect(RecordedFrame(direction: direction, time: 0, bytes: bytes)).isEmpty)
        }
    }

    /// The fixture: one client of a 1-second DotsGame session on the simulated network (latency
    /// 20/30 ms, streaming compression), recorded by TickwireSimTests' RecordingWriterTests.
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/dots-session.twrec").path

    @Test("the recorded session fixture reads as a story a person can follow, with no undecodable frame")
    func recordedSession() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.fixturePath), "missing fixture \(Self.fixturePath)")
        var reader = try RecordingReader(bytes: [UInt8](data))
        #expect(reader.schema.entityTypes.map(\.name) == ["player", "orb"], "the fixture carries the DotsGame schema")
        let inspector = FrameInspector(schema: reader.schema)
        let lines = try reader.readAll().flatMap(inspector.inspect)
        let text = lines.joined(separator: "\n")
        #expect(!text.contains("error:"), "every frame of the fixture should decode:\n\(text)")
        #expect(lines[0].hasPrefix("[+0.000 s] to server: hello"), "the session starts with the client's hello")
        #expect(text.contains("welcome client 1 rate 20 Hz"), "the welcome names the client and the tick rate")
        #expect(text.contains("compression streaming"), "the host chose streaming compression")
        #expect(text.contains("B compressed → "), "after the welcome, frames travel compressed")
        #expect(text.contains("  created player 1: x 3.00, y 0.00, heading 0.00°"), "the recorded player appears at its spawn point")
        #expect(text.contains("  changed player 1: x 3.00 → 4.00"), "the player moves right, read against baseline tick 2")
        #expect(text.contains("  created player 2: x 6.00, y 0.00, heading 0.00°"), "a second player joins")
        #expect(text.contains("  destroyed player 2"), "and leaves")
        #expect(
            lines.filter { $0.hasPrefix("  snapshot tick") && !$0.contains("baseline none") }.count >= 10,
            "once acknowledged, snapshots arrive as deltas")
        #expect(
            lines.last(where: { $0.hasPrefix("  = ") }) == "  = 4 entities: 0 created, 0 changed, 0 destroyed, 4 unchanged",
            "at the end the world is the player and three frozen orbs")
    }
}

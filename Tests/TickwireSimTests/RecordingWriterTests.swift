import Foundation
import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records one client of a short session on the simulated network: the recorded client joins
/// and moves right for half a second, a second player joins and leaves, three orbs circle.
/// Returns the recording's bytes and the frames the recorded client's connection carried.
func recordDotsSession(path: String) throws -> (bytes: [UInt8], sent: Int, received: Int) {
    // Streaming compression, the mode whose frames only decode in order and in context.
    let simulation = Simulation(game: DotsGame(orbCount: 3, freezeAt: 0.6), seed: 7) { $0.compressionPreference = [.streaming] }
    let recorder = try RecordingWriter(path: path, schema: simulation.game.schema)
    // The recorded client lives outside the harness (whose clients own plain connections) and
    // is ticked from its step hook, at the host's 20 Hz.
    let client = ClientSession(game: simulation.game, clock: simulation.clock, configuration: ClientConfiguration())
    let connection = simulation.network.connect(
        upstream: LinkConditions(latency: .milliseconds(20)), downstream: LinkConditions(latency: .milliseconds(30)))
    let recorded = CountingConnection(wrapping: RecordingConnection(wrapping: connection, recorder: recorder, clock: simulation.clock))
    client.connect(over: recorded)
    var nextTick = Timestamp.zero
    var tick: UInt64 = 0
    simulation.onStep = {
        guard simulation.clock.now >= nextTick else { return }
        client.tick(input: tick < 10 ? DotsGame.Input(dx: 1, dy: 0) : nil)
        tick += 1
        nextTick = nextTick + .milliseconds(50)
    }
    simulation.run(for: .milliseconds(400))
    let other = simulation.addClient()
    simulation.run(for: .milliseconds(300))
    simulation.clients[other].leave()
    simulation.run(for: .milliseconds(300))
    recorder.close()
    if let failure = recorder.failure { throw failure }
    let data = try #require(FileManager.default.contents(atPath: path), "the recording \(path) was not written")
    return ([UInt8](data), recorded.sent, recorded.received)
}

/// A connection wrapper that counts the frames passing through (test instrumentation only).
final class CountingConnection: TransportConnection, @unchecked Sendable {  // @unchecked: used from the test's one thread only.
    let inner: any TransportConnection
    var sent = 0
    var received = 0
    init(wrapping inner: any TransportConnection) { self.inner = inner }
    var connectionID: UInt64 { inner.connectionID }
    func send(_ frame: [UInt8]) -> TransportSendResult {
        let result = inner.send(frame)
        if result == .taken { sent += 1 }
        return result
    }
    var bufferedBytes: Int { inner.bufferedBytes }
    func drain() -> [TransportEvent] {
        let events = inner.drain()
        received += events.filter { if case .frame = $0 { true } else { false } }.count
        return events
    }
    func close(code: CloseCode, reason: String) { inner.close(code: code, reason: reason) }
    var isClosed: Bool { inner.isClosed }
}

@Suite("RecordingWriter and RecordingConnection")
struct RecordingWriterTests {
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../TickwireCodecTests/Fixtures/dots-session.twrec").standardized.path

    @Test("a recorded session reads back with the game's schema and every frame the client sent and received, in order")
    func recordsSession() throws {
        let path = "/tmp/tickwire-recording-test-\(getpid()).twrec"
        defer { unlink(path) }
        let (bytes, sent, received) = try recordDotsSession(path: path)
        var reader = try RecordingReader(bytes: bytes)
        #expect(reader.schema == DotsGame.makeSchema(), "the recording should carry the game's schema")
        let frames = try reader.readAll()
        #expect(frames.filter { $0.direction == .toServer }.count == sent, "every frame the client sent should be recorded")
        #expect(frames.filter { $0.direction == .toClient }.count == received, "every frame the client received should be recorded")
        #expect(received > 15, "about 20 snapshots in a second at 20 Hz, the client received \(received) frames")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.time <= $1.time }, "times should never go back")
        #expect(frames.first?.bytes.first == MessageType.hello.rawValue, "the first frame recorded is the client's hello")
        // Regenerates the inspector's fixture: TICKWIRE_UPDATE_FIXTURES=1 swift test --filter RecordingWriterTests
        if ProcessInfo.processInfo.environment["TICKWIRE_UPDATE_FIXTURES"] == "1" {
            #expect(FileManager.default.createFile(atPath: Self.fixturePath, contents: Data(bytes)), "could not write \(Self.fixturePath)")
        }
    }

    @Test("recording after close is ignored, and a file that cannot be opened is a typed error naming fopen")
    func closeAndFailure() throws {
        #expect(throws: RecordingWriterError.self) { try RecordingWriter(path: "/nonexistent-dir/x.twrec", schema: DotsGame.makeSchema()) }
        let path = "/tmp/tickwire-recording-close-\(getpid()).twrec"
        defer { unlink(path) }
        let writer = try RecordingWriter(path: path, schema: DotsGame.makeSchema())
        writer.record(direction: .toClient, time: Timestamp(nanoseconds: 5_000), bytes: [0x06, 0x01])
        writer.close()
        writer.record(direction: .toClient, time: Timestamp(nanoseconds: 9_000), bytes: [0x06, 0x02])
        let data = try #require(FileManager.default.contents(atPath: path))
        var reader = try RecordingReader(bytes: [UInt8](data))
        #expect(
            try reader.readAll() == [RecordedFrame(direction: .toClient, time: 5, bytes: [0x06, 0x01])],
            "only the frame recorded before close should be in the file, with its time in microseconds")
    }
}

import Foundation
import Synchronization
import Testing
import TickwireCodec
import TickwireSim
import TickwireSimTestSupport

/// A connection that claims it will take every frame (its readiness is the wrapped one's) but
/// refuses them while `refuses` is set: a send buffer that filled between the question and the
/// send, the case the send pipeline must never let break a streaming history silently.
final class RefusingConnection: TransportConnection, Sendable {
    let inner: any TransportConnection
    let refuses = Atomic<Bool>(false)
    let refused = Atomic<Int>(0)

    init(wrapping inner: any TransportConnection) { self.inner = inner }

    var connectionID: UInt64 { inner.connectionID }
    func send(_ frame: [UInt8]) -> TransportSendResult {
        guard !refuses.load(ordering: .relaxed) else {
            refused.add(1, ordering: .relaxed)
            return .backedUp
        }
        return inner.send(frame)
    }
    var bufferedBytes: Int { inner.bufferedBytes }
    func drain() -> [TransportEvent] { inner.drain() }
    func close(code: CloseCode, reason: String) { inner.close(code: code, reason: reason) }
    var isClosed: Bool { inner.isClosed }
}

/// A listener on a simulated network whose accepted connections are ``RefusingConnection``s.
final class RefusingListener: TransportListener, Sendable {
    let network: SimulatedNetwork
    let accepted = Mutex<[RefusingConnection]>([])

    init(network: SimulatedNetwork) { self.network = network }

    func acceptPending() -> [any TransportConnection] {
        let new = network.acceptPending().map { RefusingConnection(wrapping: $0) }
        accepted.withLock { $0 += new }
        return new
    }

    var newest: RefusingConnection? { accepted.withLock { $0.last } }
}

@Suite("Send pipeline")
struct SendPipelineTests {
    @Test("a simulated connection takes frames until it is closed, then refuses them")
    func simulatedClosed() {
        let network = SimulatedNetwork(clock: VirtualClock(), seed: 1)
        let client = network.connect()
        #expect(client.send([6, 1]) == .taken)
        #expect(client.readiness(budgetBytes: 0) == .taken)
        client.close()
        #expect(client.send([6, 2]) == .closed)
        #expect(client.readiness(budgetBytes: .max) == .closed)
        let other = network.connect()
        other.disconnect()
        _ = other.drain()
        #expect(other.send([6, 3]) == .closed, "a cut connection refuses once its end has seen the close")
    }

    @Test("a simulated connection behind its bandwidth cap is backed up for a budget its queue exceeds")
    func simulatedBackedUp() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let client = network.connect(upstream: LinkConditions(bandwidth: 1_000))
        for _ in 0..<4 { #expect(client.send([UInt8](repeating: 6, count: 500)) == .taken) }
        #expect(client.bufferedBytes == 2_000)
        #expect(client.readiness(budgetBytes: 1_999) == .backedUp)
        #expect(client.readiness(budgetBytes: 2_000) == .taken)
        clock.advance(by: .seconds(1))
        #expect(client.readiness(budgetBytes: 1_000) == .taken, "after a second, half has left")
    }

    @Test("a recording connection records only the frames its connection took")
    func recordingOnlyTaken() throws {
        let path = "/tmp/tickwire-send-pipeline-\(UInt64.random(in: 0...UInt64.max)).twrec"
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let recorder = try RecordingWriter(path: path, schema: DotsGame.makeSchema())
        let inner = network.connect()
        let connection = RecordingConnection(wrapping: inner, recorder: recorder, clock: clock)
        #expect(connection.send([6, 1]) == .taken)
        inner.close()
        #expect(connection.send([6, 2]) == .closed)
        #expect(connection.readiness(budgetBytes: .max) == .closed)
        recorder.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try RecordingReader(bytes: [UInt8](try #require(FileManager.default.contents(atPath: path))))
        var frames: [[UInt8]] = []
        while let frame = try reader.next() { frames.append(frame.bytes) }
        #expect(frames == [[6, 1]])
    }

    @Test("a streaming frame refused after it joined the history closes the connection; the client resumes cleanly")
    func streamingRefusalCloses() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let listener = RefusingListener(network: network)
        var configuration = HostConfiguration()
        configuration.compressionPreference = [.streaming]
        configuration.tokenSeed = 5
        let game = DotsGame(orbCount: 20)
        let host = Host(game: game, listener: listener, clock: clock, configuration: configuration)
        let client = ClientSession(game: game, clock: clock)
        client.connect(over: network.connect())
        func run(_ milliseconds: Int) {
            for step in 0..<milliseconds {
                host.advance()
                if step % 50 == 0 { client.tick(input: nil) }
                clock.advance(by: .milliseconds(1))
            }
        }
        run(500)
        let room = try #require(host.room(named: ""))
        let id = try #require(client.clientID)
        #expect(client.status == .connected)
        #expect(room.isConnected(id))
        let server = try #require(listener.newest)
        server.refuses.store(true, ordering: .relaxed)
        run(100)
        #expect(server.refused.load(ordering: .relaxed) == 1, "one frame refused, then the connection is gone")
        #expect(!room.isConnected(id), "the host closed the connection rather than send past a hole in the stream")
        #expect(server.isClosed)
        run(200)
        #expect(client.status != .connected, "the client sees the connection close: \(client.status)")
        #expect(client.metrics.snapshotsUndecodable == 0, "no frame after the hole ever reached the client")
        client.connect(over: network.connect())
        run(500)
        #expect(client.status == .connected)
        #expect(client.wasResumed && client.clientID == id, "the same player comes back on fresh streams")
        #expect(client.metrics.snapshotsUndecodable == 0)
        #expect((client.latestSnapshot?.tick ?? 0) + 2 >= room.tick, "and is up to date again")
    }

    @Test(
        "a per-frame or uncompressed frame refused is a skipped snapshot; the client stays connected and its deltas decode",
        arguments: [CompressionModes.perFrame, []])
    func otherRefusalSkips(modes: CompressionModes) throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let listener = RefusingListener(network: network)
        let game = DotsGame(orbCount: 20)
        let host = Host(game: game, listener: listener, clock: clock, configuration: HostConfiguration())
        var clientConfiguration = ClientConfiguration()
        clientConfiguration.compressionModes = modes
        let client = ClientSession(game: game, clock: clock, configuration: clientConfiguration)
        client.connect(over: network.connect())
        func run(_ milliseconds: Int) {
            for step in 0..<milliseconds {
                host.advance()
                if step % 50 == 0 { client.tick(input: nil) }
                clock.advance(by: .milliseconds(1))
            }
        }
        run(500)
        let room = try #require(host.room(named: ""))
        let id = try #require(client.clientID)
        let server = try #require(listener.newest)
        let skippedBefore = try #require(room.clientMetrics(id)).snapshotsSkipped
        server.refuses.store(true, ordering: .relaxed)
        run(300)
        server.refuses.store(false, ordering: .relaxed)
        let skipped = try #require(room.clientMetrics(id)).snapshotsSkipped - skippedBefore
        #expect(skipped >= 5, "the refused snapshots count as skipped (\(skipped))")
        #expect(room.isConnected(id))
        run(300)
        #expect(client.status == .connected)
        #expect(client.metrics.snapshotsUndecodable == 0, "the next deltas are against snapshots the client acknowledged")
        #expect((client.latestSnapshot?.tick ?? 0) + 2 >= room.tick)
    }

    @Test("a client whose streaming input frame is refused disconnects instead of breaking the host's stream")
    func clientStreamingRefusal() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let client = ClientSession(game: DotsGame(orbCount: 1), clock: clock)
        let connection = RefusingConnection(wrapping: network.connect())
        client.connect(over: connection)
        let server = try #require(network.acceptPending().first)
        let welcome = Message.Welcome(clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .streaming)
        server.send(try FrameCompressor.uncompressed().encode(.welcome(welcome)))
        client.tick(input: nil)
        #expect(client.status == .connected)
        connection.refuses.store(true, ordering: .relaxed)
        client.tick(input: DotsGame.Input(dx: 1, dy: 0))
        #expect(connection.refused.load(ordering: .relaxed) == 1)
        guard case .disconnected = client.status else {
            Issue.record("the client must disconnect, not carry on with a broken stream: \(client.status)")
            return
        }
        #expect(connection.isClosed)
    }
}

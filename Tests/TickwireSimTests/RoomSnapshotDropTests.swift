import Synchronization
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

/// Snapshots a room cannot capture or encode: counted in the metrics and logged, never dropped silently.
@Suite("Room snapshot drops")
struct RoomSnapshotDropTests {
    /// A sink that keeps every record, for the test to read.
    final class RecordingSink: Sendable {
        let records = Mutex<[LogRecord]>([])
        var sink: LogSink { LogSink(minimumLevel: .trace) { [self] record in self.records.withLock { $0.append(record) } } }
        var all: [LogRecord] { records.withLock { $0 } }
    }

    @Test("a game whose capture throws: every tick is counted as a dropped capture, and logged at error with the room")
    func captureFailure() throws {
        let recorder = RecordingSink()
        var game = DotsGame(orbCount: 4)
        game.failsCapture = true
        let simulation = Simulation(game: game) { configuration in
            configuration.rooms = ["main"]
            configuration.logSink = recorder.sink
        }
        simulation.addClient(configure: { $0.room = "main" })
        simulation.run(for: .seconds(1))
        let room = try #require(simulation.host.room(named: "main"))
        let ticks = room.metrics.ticks.ticksRun
        #expect(ticks >= 10, "the room ticked: \(ticks)")
        #expect(room.metrics.snapshotsNotCaptured == Int(ticks), "every tick's capture failed and was counted")
        #expect(room.metrics.snapshotsSent == 0, "nothing can be sent without a snapshot")
        let published = simulation.host.publishedMetrics.latest
        #expect(published.snapshotsNotCaptured == room.metrics.snapshotsNotCaptured, "the host publishes the room's count")

        let records = recorder.all.filter { $0.source == "room" }
        let first = try #require(records.first, "a dropped capture is logged")
        #expect(first.level == .error, "a lost snapshot is an error: \(first)")
        #expect(first.metadata["room"] == "main", "the record names the room: \(first)")
        #expect(first.metadata["error"]?.contains("already holds entity") == true, "and the game's error: \(first)")
        let logged = records.compactMap { $0.metadata["dropped_so_far"].flatMap(Int.init) }
        #expect(
            logged == Array([1, 2, 4, 8, 16, 32].prefix { $0 <= ticks }), "the 1st, 2nd, 4th… drop is logged, not every tick: \(logged)")

        var writer = PrometheusWriter()
        published.writeMetrics(to: &writer)
        #expect(
            PrometheusText.value("tickwire_snapshots_dropped_total{reason=\"capture\"}", in: writer.text)
                == Double(published.snapshotsNotCaptured), "the count is in the Prometheus text:\n\(writer.text)")
        #expect(PrometheusText.value("tickwire_snapshots_dropped_total{reason=\"encode\"}", in: writer.text) == 0)
    }

    @Test("a snapshot over the frame body limit is counted as not encoded for its client and logged at error with room and client")
    func encodeFailure() throws {
        let recorder = RecordingSink()
        // 200 orbs make a full snapshot of over a kilobyte; 512 bytes of body still carry the hello and welcome.
        let simulation = Simulation(game: DotsGame(orbCount: 200)) { configuration in
            configuration.rooms = ["main"]
            configuration.frameLimits.maximumBodyBytes = 512
            configuration.logSink = recorder.sink
        }
        simulation.addClient(configure: { $0.room = "main" })
        simulation.run(for: .seconds(1))
        let client = try #require(simulation.clients[0].clientID, "the client was welcomed: \(simulation.clients[0].status)")
        let room = try #require(simulation.host.room(named: "main"))
        let perClient = try #require(room.clientMetrics(client))
        #expect(perClient.snapshotsNotEncoded > 0, "the client's snapshots were over the limit and counted")
        #expect(perClient.snapshotsSent == 0, "none was sent")
        #expect(room.metrics.snapshotsNotEncoded == perClient.snapshotsNotEncoded)
        #expect(room.metrics.snapshotsNotCaptured == 0, "capturing worked; encoding did not")

        let first = try #require(recorder.all.first { $0.source == "room" }, "a dropped snapshot is logged")
        #expect(first.level == .error)
        #expect(first.metadata["room"] == "main" && first.metadata["client"] == "\(client)", "the record names room and client: \(first)")
        #expect(first.metadata["error"]?.contains("512") == true, "and the limit it broke: \(first)")

        let published = simulation.host.publishedMetrics.latest
        var writer = PrometheusWriter()
        published.writeMetrics(to: &writer)
        #expect(
            PrometheusText.value("tickwire_snapshots_dropped_total{reason=\"encode\"}", in: writer.text)
                == Double(perClient.snapshotsNotEncoded), "the count is in the Prometheus text:\n\(writer.text)")
    }

    @Test("drops of one kind are logged at the 1st, 2nd, 4th, 8th… only")
    func logThrottle() {
        let logged = (1...40).filter { Room<DotsGame>.isLogged($0) }
        #expect(logged == [1, 2, 4, 8, 16, 32])
        #expect(!Room<DotsGame>.isLogged(0))
    }
}

/// A client session that drops what it cannot decode says so through its configuration's sink.
@Suite("Client session logging")
struct ClientSessionLoggingTests {
    @Test("frames over the client's own body limit are counted as undecodable and logged at warning")
    func undecodableFramesAreLogged() throws {
        let recorder = RoomSnapshotDropTests.RecordingSink()
        let simulation = Simulation(game: DotsGame(orbCount: 200)) { $0.rooms = ["main"] }
        simulation.addClient(configure: { configuration in
            configuration.room = "main"
            configuration.frameLimits.maximumBodyBytes = 512
            configuration.logSink = recorder.sink
        })
        simulation.run(for: .milliseconds(500))
        let undecodable = simulation.clients[0].metrics.snapshotsUndecodable
        #expect(undecodable > 0, "the host's full snapshots are over the client's limit")
        let records = recorder.all.filter { $0.source == "client" }
        #expect(records.count == undecodable, "one record per frame dropped: \(records.count) for \(undecodable)")
        let first = try #require(records.first)
        #expect(first.level == .warning, "a dropped frame the session recovers from is a warning: \(first)")
        #expect(first.metadata["error"]?.contains("512") == true, "the record names the limit: \(first)")
    }

    @Test("a reconnecting session logs each retried refusal at warning and a final refusal at error")
    func reconnectingSessionLogs() throws {
        let retried = RoomSnapshotDropTests.RecordingSink()
        let simulation = Simulation(game: DotsGame(orbCount: 1)) { $0.roomCapacity = 1 }
        simulation.addClient()
        simulation.run(for: .milliseconds(500))
        let policy = ReconnectPolicy(baseDelay: .milliseconds(200), maximumDelay: .milliseconds(1600), jitter: 0.5)
        let index = simulation.addReconnectingClient(policy: policy, configure: { $0.logSink = retried.sink })
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(3))
        let warnings = retried.all.filter { $0.source == "client" && $0.level == .warning }
        #expect(warnings.count == client.failedAttempts, "one warning per failed attempt: \(warnings.count) for \(client.failedAttempts)")
        #expect(warnings.first?.metadata["reason"]?.contains("room full") == true, "each names why: \(warnings)")
        #expect(warnings.first?.message.contains("reconnecting in") == true, "and when it tries again: \(warnings)")

        let refused = RoomSnapshotDropTests.RecordingSink()
        let index2 = simulation.addReconnectingClient(
            policy: policy, configure: { $0.logSink = refused.sink }, game: DotsGame(orbCount: 1, extraField: true))
        simulation.run(for: .seconds(1))
        let state = try #require(simulation.reconnectingClients[index2]?.state)
        guard case .refused(.schemaMismatch, _) = state else {
            Issue.record("a client with another schema ends refused for a schema mismatch, not \(state)")
            return
        }
        let last = try #require(refused.all.last { $0.source == "client" }, "the refusal is logged")
        #expect(
            last.level == .error && last.metadata["reason"] == "\(Message.Reject.Reason.schemaMismatch)",
            "at error, with the reason: \(last)")
    }
}

import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Host features: snapshot rate, input stamps, metrics, unreliable links")
struct HostFeatureTests {
    @Test("a client configured for every third tick gets a third of the snapshots")
    func perClientSnapshotInterval() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4))
        simulation.addClient()
        simulation.addClient()
        simulation.run(for: .milliseconds(100))
        let slow = try #require(simulation.clients[1].clientID)
        simulation.room.setSnapshotInterval(3, for: slow)
        let fastBefore = simulation.clients[0].metrics.snapshotsReceived
        let slowBefore = simulation.clients[1].metrics.snapshotsReceived
        simulation.run(for: .seconds(3))
        let fast = simulation.clients[0].metrics.snapshotsReceived - fastBefore
        let slowCount = simulation.clients[1].metrics.snapshotsReceived - slowBefore
        #expect((59...61).contains(fast), "20 Hz for 3 s is 60 snapshots, got \(fast)")
        #expect((19...21).contains(slowCount), "every third tick for 3 s is 20 snapshots, got \(slowCount)")
        #expect(simulation.clients[1].metrics.snapshotsUndecodable == 0)
    }

    @Test("each snapshot carries the last input sequence the host applied for that client")
    func lastProcessedInput() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        simulation.addClient(
            upstream: LinkConditions(latency: .milliseconds(40)), downstream: LinkConditions(latency: .milliseconds(40)),
            input: { _, tick in tick < 25 ? DotsGame.Input(dx: 0, dy: 1) : nil })
        simulation.run(for: .seconds(3))
        let client = simulation.clients[0]
        // Inputs start once the welcome arrives (a round trip after the first client tick).
        let sent = client.sequence
        #expect(sent >= 20 && sent <= 25, "the client sent \(sent) inputs")
        #expect(client.lastProcessedInput == sent, "all \(sent) inputs applied, reported \(client.lastProcessedInput)")
        let id = try #require(client.clientID)
        #expect(simulation.room.clientMetrics(id)?.inputsApplied == Int(sent), "each input applied exactly once despite redundancy")
        #expect(
            abs((simulation.room.state.players[id]?.y ?? 0) - Double(sent) * 0.5) < 1e-9, "each tick at 10 units/s for 1/20 s moves 0.5")
    }

    @Test("metrics report round trip, rates, delay, buffer depth, sizes and tick durations")
    func metrics() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 20))
        let link = LinkConditions(latency: .milliseconds(50), jitter: .milliseconds(10))
        simulation.addClient(upstream: link, downstream: link)
        simulation.run(for: .seconds(4))
        let client = simulation.clients[0].metrics
        // 100–120 ms on the wire, plus up to one server tick before the host drains the ping.
        #expect(client.roundTrip > 0.1 && client.roundTrip < 0.19, "round trip about 100–170 ms, got \(client.roundTrip)")
        #expect(client.bytesInPerSecond > 1000 && client.bytesOutPerSecond > 50)
        // Four seconds of traffic: the totals hold more than the last second's rates.
        #expect(client.bytesInTotal > 3 * client.bytesInPerSecond && client.bytesOutTotal > 3 * client.bytesOutPerSecond)
        #expect(client.interpolationDelay > 0.1 && client.interpolationDelay < 0.3, "delay \(client.interpolationDelay)")
        #expect((1...6).contains(client.bufferDepth), "buffer depth \(client.bufferDepth)")
        #expect(abs(client.playbackRate - 1) <= 0.05)
        #expect(client.snapshotJitter > 0)
        let id = try #require(simulation.clients[0].clientID)
        let host = try #require(simulation.room.clientMetrics(id))
        // Acks ride on the next input message: up to one client tick more.
        #expect(host.roundTrip > 0.1 && host.roundTrip < 0.25, "ack round trip \(host.roundTrip)")
        #expect(host.bytesOutPerSecond > 1000 && host.averageSnapshotBytes > 10 && host.largestSnapshotBytes >= host.lastSnapshotBytes)
        let room = simulation.room.metrics
        #expect(room.connectedClients == 1 && room.snapshotsSent == host.snapshotsSent)
        #expect(room.ticks.ticksRun == 80, "4 s at 20 Hz: ticks at 0, 0.05 … 3.95 s")
        #expect(room.ticks.p99 >= room.ticks.p50)
        // The room's one-second windows start at its first tick, the client's at its first
        // frame, so with frames of varying size (entropy-coded deltas) the two may differ by
        // the frames in between.
        #expect(
            abs(room.bytesOutPerSecond - host.bytesOutPerSecond) <= host.bytesOutPerSecond / 20,
            "room \(room.bytesOutPerSecond) B/s, its only client \(host.bytesOutPerSecond) B/s")
    }

    @Test("over an unreliable link with loss, duplication and reordering, per-frame compression keeps the view converging")
    func unreliableLink() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 10, freezeAt: 4))
        simulation.addClient(configure: { $0.compressionModes = [.perFrame] })
        simulation.run(for: .milliseconds(200))
        let lossy = LinkConditions(
            latency: .milliseconds(40), jitter: .milliseconds(30), delivery: .unreliable,
            lossRate: 0.1, duplicationRate: 0.05, reorderRate: 0.05)
        simulation.connections[0].setConditions(upstream: lossy, downstream: lossy)
        simulation.run(for: .seconds(6))
        let client = simulation.clients[0]
        #expect(client.status == .connected)
        #expect(simulation.connections[0].framesLost > 0, "the link should have lost frames")
        let server = try #require(simulation.room.history.snapshot(at: simulation.room.tick))
        let view = try #require(client.render())
        #expect(mismatch(view, server) == nil, "\(mismatch(view, server) ?? "")")
    }
}

@Suite("Host in real time")
struct HostRealTimeTests {
    @Test("run(until:) paces the rooms on the monotonic clock and stops when told")
    func runsInRealTime() throws {
        let clock = MonotonicClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        var configuration = HostConfiguration()
        configuration.tickRate = 60
        let host = Host(game: DotsGame(orbCount: 2), listener: network, clock: clock, configuration: configuration)
        let client = ClientSession(game: DotsGame(orbCount: 2), clock: clock)
        client.connect(over: network.connect())
        let room = try #require(host.room(named: ""))
        var checks = 0
        host.run(until: {
            checks += 1
            client.tick(input: nil)
            return room.tick >= 12 || checks > 10_000
        })
        let elapsed = clock.now - room.loop.origin
        #expect(room.tick >= 12, "the room should have ticked 12 times")
        #expect(elapsed >= .milliseconds(180), "12 ticks at 60 Hz cannot take less than 11 periods (183 ms), took \(elapsed)")
        #expect(elapsed < .seconds(2), "took \(elapsed): the loop is oversleeping")
        #expect(client.status == .connected && client.latestSnapshot != nil)
    }
}

@Suite("Handshake edge cases")
struct HandshakeEdgeTests {
    static func firstReply(to frame: [UInt8]) throws -> Message {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let connection = simulation.network.connect()
        connection.send(frame)
        simulation.run(for: .milliseconds(10))
        let events = connection.drain()
        guard case .frame(let bytes) = try #require(events.first, "the host should answer") else {
            throw HandshakeTestFailure(reason: "the first event is not a frame: \(events)")
        }
        return try FrameDecompressor().decode(bytes)
    }

    struct HandshakeTestFailure: Error { var reason: String }

    @Test("a hello of another protocol version that this version cannot decode is still refused as a version mismatch")
    func undecodableOtherVersion() throws {
        // Type 0x01 (hello), version 7, then bytes that are not a version-1 hello.
        let reply = try Self.firstReply(to: [0x01, 0x00, 0x07, 0xFF])
        guard case .reject(let reject) = reply else { throw HandshakeTestFailure(reason: "expected a reject, got \(reply)") }
        #expect(reject.reason == .versionMismatch)
        #expect(reject.text.contains("7"), "the reason names the client's version: \(reject.text)")
    }

    @Test("a first frame that is not a hello is refused as an invalid hello")
    func notAHello() throws {
        let reply = try Self.firstReply(to: [0x06, 0x01])  // a ping
        guard case .reject(let reject) = reply else { throw HandshakeTestFailure(reason: "expected a reject, got \(reply)") }
        #expect(reject.reason == .invalidHello)
    }
}

@Suite("Garbage on the wire")
struct GarbageTests {
    static func garbage(_ random: inout SplitMix64) -> [UInt8] {
        let count = Int(random.next() % 40)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test("a client sending seeded garbage after its hello never crashes the host, and other clients carry on")
    func garbageToHost() throws {
        // The bad-frame policy would drop the rogue after 10 frames (HostBadFrameTests); let it
        // send all 500 here, so that every one of them is decoded.
        let simulation = Simulation(game: DotsGame(orbCount: 3)) { $0.badFrameLimit = 1000 }
        simulation.addClient()
        let rogue = simulation.network.connect()
        let hello = Message.Hello(schemaFingerprint: DotsGame.makeSchema().fingerprint, compressionModes: [.perFrame])
        rogue.send(try FrameCompressor().encode(.hello(hello)))
        var random = SplitMix64(seed: 99)
        for _ in 0..<100 {
            for _ in 0..<5 { rogue.send(Self.garbage(&random)) }
            simulation.run(for: .milliseconds(20))
        }
        #expect(simulation.clients[0].status == .connected)
        #expect(simulation.clients[0].metrics.snapshotsReceived > 35, "2 s at 20 Hz is 40 snapshots")
        let rogueID = try #require(simulation.room.clientIDs.first { $0 != simulation.clients[0].clientID })
        #expect((simulation.room.clientMetrics(rogueID)?.badFrames ?? 0) > 100, "the garbage is counted as bad frames")
    }

    @Test("a server sending seeded garbage after its welcome never crashes the client")
    func garbageToClient() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 3)
        let client = ClientSession(game: DotsGame(orbCount: 1), clock: clock)
        client.connect(over: network.connect())
        let server = try #require(network.acceptPending().first)
        let welcome = Message.Welcome(clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .perFrame)
        server.send(try FrameCompressor().encode(.welcome(welcome)))
        var random = SplitMix64(seed: 4)
        for _ in 0..<200 {
            server.send(Self.garbage(&random))
            // A snapshot frame with a random delta exercises the codec's checks too.
            var body: [UInt8] = [0x05, 0x00, 0x00, 0x01]
            body += Self.garbage(&random)
            server.send(Frame(type: .snapshot, body: body).bytes)
            clock.advance(by: .milliseconds(10))
            client.tick(input: DotsGame.Input(dx: 1, dy: 0))
            _ = client.render()
        }
        #expect(client.status == .connected, "garbage is dropped, not fatal: \(client.status)")
        #expect(client.metrics.snapshotsUndecodable > 100)
    }
}

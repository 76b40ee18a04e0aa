import Testing
import TickwireCodec

@testable import TickwireSim

/// The bad-frame policy: a client may send ``HostConfiguration/badFrameLimit`` bad frames within
/// ``HostConfiguration/badFrameWindow``; one more and it is dropped with a protocol error (4004).
@Suite("Host bad-frame policy")
struct HostBadFrameTests {
    /// A frame of message type 10, which no version-1 peer sends: it fails to decode.
    static let garbage: [UInt8] = [0x0A, 1, 2, 3]

    private func joined(_ bench: RawClientBench) throws -> (RawClientBench.Client, UInt32) {
        let client = bench.join()
        bench.run(milliseconds: 50, clients: [client])
        let id = try #require(client.welcome?.clientID, "the client should be welcomed")
        return (client, id)
    }

    @Test("at the limit the client stays; one bad frame past it, it is dropped with a protocol error and close 4004")
    func limit() throws {
        let bench = RawClientBench {
            $0.badFrameLimit = 5; $0.badFrameWindow = .seconds(1)
        }
        let (client, id) = try joined(bench)
        for _ in 0..<5 { client.connection.send(Self.garbage) }
        bench.run(milliseconds: 100, clients: [client])
        let room = try #require(bench.host.room(named: ""))
        #expect(room.isConnected(id) && !client.isClosed, "5 bad frames within 1 s are allowed")
        #expect(room.clientMetrics(id)?.badFrames == 5)

        client.connection.send(Self.garbage)
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.disconnect?.reason == .protocolError, "the sixth bad frame within 1 s drops the client")
        #expect(client.closeReason?.code == .malformedFrame, "got \(String(describing: client.closeReason))")
        #expect(room.clientIDs.isEmpty, "a client dropped for bad frames does not keep a held slot")
        #expect(room.metrics.clientsDroppedForBadFrames == 1 && room.metrics.badFrames == 6)
    }

    @Test("the limit is a rate: bad frames older than the window no longer count")
    func rate() throws {
        let bench = RawClientBench {
            $0.badFrameLimit = 5; $0.badFrameWindow = .seconds(1)
        }
        let (client, id) = try joined(bench)
        for round in 0..<4 {
            for _ in 0..<5 { client.connection.send(Self.garbage) }
            bench.run(milliseconds: 1050, clients: [client]) { _ in client.sendInput(game: bench.game) }
            #expect(!client.isClosed, "round \(round): 5 bad frames per 1.05 s stay within 5 per second")
        }
        #expect(bench.host.room(named: "")?.clientMetrics(id)?.badFrames == 20)
    }

    @Test("undecodable inputs and messages of the wrong type count as bad frames too")
    func kinds() throws {
        let bench = RawClientBench {
            $0.badFrameLimit = 2; $0.badFrameWindow = .seconds(10)
        }
        let (client, _) = try joined(bench)
        client.send(.input(Message.Input(ackTick: nil, newestSequence: 1, inputs: [[9, 9, 9]])))
        client.send(.pong(Message.Pong(clientTime: 1, serverTime: 2)))
        bench.run(milliseconds: 100, clients: [client])
        #expect(!client.isClosed, "two bad frames are within the limit of 2")
        client.send(
            .welcome(Message.Welcome(clientID: 1, tickRate: 20, currentTick: 0, serverTime: 0, compression: .none, resumeToken: [])))
        bench.run(milliseconds: 100, clients: [client])
        #expect(
            client.closeReason?.code == .malformedFrame,
            "the third bad frame drops the client; got \(String(describing: client.closeReason))")
        let text = client.disconnect?.text ?? ""
        #expect(text.contains("welcome"), "the disconnect text names the last bad frame: \(text)")
    }

    @Test("a client sending one valid input per tick plus garbage is dropped within the threshold; a good client beside it is not")
    func garbageBesideGoodClient() throws {
        let bench = RawClientBench()  // the defaults: 10 bad frames within 10 s
        let (attacker, attackerID) = try joined(bench)
        let (good, goodID) = try joined(bench)
        var sentGarbage = 0
        bench.run(milliseconds: 2000, clients: [attacker, good]) { step in
            guard step % 10 == 0 else { return }  // every 50 ms, one client tick
            good.sendInput(game: bench.game)
            guard !attacker.isClosed else { return }
            attacker.sendInput(game: bench.game)
            for _ in 0..<3 {
                attacker.connection.send(Self.garbage)
                sentGarbage += 1
            }
        }
        let room = try #require(bench.host.room(named: ""))
        #expect(attacker.closeReason?.code == .malformedFrame, "got \(String(describing: attacker.closeReason))")
        #expect(room.metrics.badFrames == 11, "dropped at the eleventh bad frame, counted \(room.metrics.badFrames)")
        #expect(sentGarbage <= 12, "dropped within four client ticks of garbage, sent \(sentGarbage)")
        #expect(!room.clientIDs.contains(attackerID))
        #expect(room.isConnected(goodID) && !good.isClosed, "the good client stays")
        #expect(room.clientMetrics(goodID)?.badFrames == 0)
        let snapshots = good.messages.filter { if case .snapshot = $0 { true } else { false } }.count
        #expect(snapshots >= 38, "the good client gets its snapshots (20 per second), got \(snapshots) in 2 s")
    }

    @Test("the limiter counts within a sliding window and keeps at most limit + 1 times")
    func limiter() {
        var limiter = BadFrameLimiter(limit: 3, window: .seconds(1))
        let start = Timestamp(seconds: 10)
        var answers: [Bool] = []
        for offset in [0, 100, 200, 900, 2000] { answers.append(limiter.record(at: start + .milliseconds(Int64(offset)))) }
        #expect(
            answers == [false, false, false, true, false],
            "three within 1 s are allowed, the fourth is past the limit, and a second later only one counts")
        #expect(limiter.count(at: start + .milliseconds(2000)) == 1)
    }
}

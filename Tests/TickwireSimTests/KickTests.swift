import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// Kicks (``Room/kick(_:text:allowRejoin:)``): final by default, retryable when the game allows
/// a rejoin; either way the player is gone and its resume token resumes nothing.
@Suite("Kicks")
struct KickTests {
    @Test("a kick that allows a rejoin sends disconnect reason 9 and close 4002, and the player is gone")
    func rejoinKickOnTheWire() throws {
        let bench = RawClientBench()
        let client = bench.join()
        bench.run(milliseconds: 100, clients: [client])
        let id = try #require(client.welcome?.clientID)
        try #require(bench.host.room(named: "")).kick(id, text: "afk", allowRejoin: true)
        bench.run(milliseconds: 100, clients: [client])
        #expect(client.disconnect == Message.Disconnect(reason: .kickedMayRejoin, text: "afk"))
        #expect(client.closeReason?.code == .kicked && client.closeReason?.text == "afk")
        #expect(bench.host.room(named: "")?.clientIDs == [], "the kicked player is removed")
    }

    @Test("a kicked reconnecting client stops with the kick's words and does not come back")
    func finalKick() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let index = simulation.addReconnectingClient(policy: ReconnectingSessionTests.policy)
        let client = try #require(simulation.reconnectingClients[index])
        var states: [ConnectionState] = []
        client.onStateChange = { states.append($0) }
        simulation.run(for: .milliseconds(500))
        let id = try #require(client.session.clientID)
        simulation.room.kick(id, text: "cheating")
        simulation.run(for: .seconds(10))
        #expect(
            states == [.connecting(attempt: 1), .connected(resumed: false), .kicked(text: "cheating")],
            "connected, then kicked for good; got \(states)")
        #expect(client.state.isFinal)
        #expect(simulation.host.joins == 1 && simulation.host.reconnects == 0, "no hello came back in 10 s")
        #expect(simulation.room.clientIDs.isEmpty)
        #expect(client.session.resumeToken == nil, "the kicked player's token is forgotten: it resumes nothing")
    }

    @Test("a kick that allows a rejoin: the client reconnects with backoff and comes back as a new player")
    func rejoinKick() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let index = simulation.addReconnectingClient(policy: ReconnectingSessionTests.policy)
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .milliseconds(500))
        let id = try #require(client.session.clientID)
        simulation.room.kick(id, text: "afk", allowRejoin: true)
        simulation.run(for: .milliseconds(5))
        guard case .waitingToReconnect = client.state else {
            Issue.record("a kick that allows a rejoin waits to reconnect, not \(client.state)")
            return
        }
        #expect(client.lastFailure == "kicked, may rejoin: afk")
        simulation.run(for: .seconds(3))
        #expect(client.state == .connected(resumed: false))
        let newID = try #require(client.session.clientID)
        #expect(newID != id, "the player comes back as a new one")
        #expect(simulation.room.clientIDs == [newID])
        #expect(simulation.host.joins == 2 && simulation.host.resumes == 0)
    }
}

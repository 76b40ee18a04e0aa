import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// ``ReconnectingSession/rejoiner``: a session whose player is gone past the grace period, on a
/// host that requires connect tokens, asks for a new place and joins as a new player; without a
/// rejoiner the same refusal is final, as before.
@Suite("Reconnecting session rejoin")
struct ReconnectingSessionRejoinTests {
    /// A simulation whose host requires tokens (``HostTokenTests/PlainVerifier``) and holds a
    /// dropped player 2 s, and a reconnecting client joined with user 1's token.
    private func joinedClient() throws -> (Simulation, ReconnectingSession<DotsGame>, Int, UInt32) {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) {
            $0.requiresTokens = true
            $0.tokenVerifier = HostTokenTests.PlainVerifier()
            $0.resumeGracePeriod = .seconds(2)
        }
        let index = simulation.addReconnectingClient(
            policy: ReconnectingSessionTests.policy, configure: { $0.connectToken = HostTokenTests.token(user: 1, tag: 1) })
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(1))
        let id = try #require(client.session.clientID, "joined with its token: \(client.state)")
        return (simulation, client, index, id)
    }

    /// Cuts the client off for 4 s, past the host's 2 s grace period.
    private func loseForGood(_ simulation: Simulation, index: Int) {
        simulation.network.isAcceptingConnections = false
        simulation.connections[index].disconnect()
        simulation.run(for: .seconds(4))
        simulation.network.isAcceptingConnections = true
    }

    @Test("past the grace period the resume is refused (token required); the rejoiner's ticket joins a new player with its token")
    func rejoinsWithANewTicket() throws {
        let (simulation, client, index, id) = try joinedClient()
        var asked = 0
        client.rejoiner = {
            asked += 1
            return RejoinTicket(url: nil, room: nil, connectToken: HostTokenTests.token(user: 2, tag: 2))
        }
        loseForGood(simulation, index: index)
        #expect(simulation.room.state.players[id] == nil, "the host let the player go")
        let end = simulation.clock.now + .seconds(5)
        while simulation.clock.now < end, client.state != .connected(resumed: false) { simulation.run(for: .milliseconds(10)) }
        #expect(client.state == .connected(resumed: false), "joined as a new player: \(client.state), \(client.lastFailure ?? "")")
        #expect(asked == 1 && client.rejoins == 1, "asked once for a new place (\(asked))")
        #expect(simulation.host.rejections[.tokenRequired] == 1, "the resume was refused once: \(simulation.host.rejections)")
        #expect(client.session.clientID != id, "a new player")
        #expect(client.session.connectToken == nil, "the ticket's token was spent by the welcome")
    }

    @Test("a host gone for good (every attempt fails, nothing refuses): the rejoiner is asked once rejoinAfterLoss has passed, not before")
    func rejoinsAfterALongLoss() throws {
        let (simulation, client, index, _) = try joinedClient()
        client.rejoinAfterLoss = .seconds(3)
        var asked = 0
        client.rejoiner = {
            asked += 1
            return RejoinTicket(url: nil, room: nil, connectToken: HostTokenTests.token(user: 4, tag: 4))
        }
        // The host stops accepting connections: every attempt fails, and no hello is refused.
        simulation.network.isAcceptingConnections = false
        simulation.connections[index].disconnect()
        simulation.run(for: .milliseconds(2_500))
        #expect(asked == 0, "within rejoinAfterLoss the session only retries (\(asked) asks)")
        simulation.run(for: .seconds(2))
        #expect(asked == 1, "past rejoinAfterLoss the next attempt asks for a new place once (\(asked) asks)")
        simulation.network.isAcceptingConnections = true
        let end = simulation.clock.now + .seconds(10)
        while simulation.clock.now < end, client.state != .connected(resumed: false) { simulation.run(for: .milliseconds(10)) }
        #expect(client.state == .connected(resumed: false), "joined with the new ticket: \(client.state), \(client.lastFailure ?? "")")
        #expect(client.rejoins >= 1)
    }

    @Test("a rejoiner that throws is retried at the next attempt; without one the refusal is final")
    func failuresAndNoRejoiner() throws {
        let (simulation, client, index, _) = try joinedClient()
        struct Unreachable: Error {}
        var asked = 0
        client.rejoiner = {
            asked += 1
            if asked == 1 { throw Unreachable() }
            return RejoinTicket(url: nil, room: nil, connectToken: HostTokenTests.token(user: 3, tag: 3))
        }
        loseForGood(simulation, index: index)
        let end = simulation.clock.now + .seconds(10)
        while simulation.clock.now < end, client.state != .connected(resumed: false) { simulation.run(for: .milliseconds(10)) }
        #expect(client.state == .connected(resumed: false), "\(client.state), \(client.lastFailure ?? "")")
        #expect(asked == 2 && client.rejoins == 1, "the failed ask counted as a failed attempt, then asked again (\(asked))")

        let (plain, plainClient, plainIndex, _) = try joinedClient()
        loseForGood(plain, index: plainIndex)
        plain.run(for: .seconds(5))
        guard case .refused(.tokenRequired, _) = plainClient.state else {
            Issue.record("without a rejoiner a resume refused as token required is final, not \(plainClient.state)")
            return
        }
    }
}

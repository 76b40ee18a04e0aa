import Testing
import Tickwire
import TickwireCodec
import TickwireSim

@testable import ArenaGame

@Suite("The arena on the simulated network")
struct ArenaNetworkTests {
    /// A host of the arena with bots, and two players on 40 ms links with jitter.
    static func simulation(bots: Int = 4) -> TickSimulation<Arena> {
        TickSimulation(game: Arena(botCount: bots), seed: 5) { configuration in
            configuration.tickRate = 30
            configuration.rooms = ["main"]
        }
    }

    @Test("both players see each other, by the names they sent, and every bot")
    func playersSeeEachOther() throws {
        let simulation = Self.simulation()
        let link = LinkConditions(latency: .milliseconds(40), jitter: .milliseconds(10))
        for name in ["ann", "Zoë"] {
            simulation.addClient(upstream: link, downstream: link) { configuration in
                configuration.room = "main"
                configuration.helloPayload = Array(name.utf8)
            }
        }
        simulation.run(for: .seconds(2))
        for client in simulation.clients {
            let view = try #require(client.render(), "a client has nothing to draw after 2 s")
            let players = view.entities.filter { $0.typeIndex == ArenaSchema.playerType }.map(ArenaSchema.player(from:))
            #expect(Set(players.filter { !$0.isBot }.map(\.name)) == ["ann", "Zoë"], "names of any script, in the text field")
            #expect(players.filter(\.isBot).count == 4)
        }
    }

    @Test("a player named by a verified connect token appears under that name in another client's snapshot, whatever its hello asks")
    func verifiedNameIsShown() throws {
        let key = NetcodeKey.random()
        let clock = TokenClock.fixed(1_800_000_000)
        let simulation = TickSimulation(game: Arena(botCount: 0), seed: 5) { configuration in
            configuration.tickRate = 30
            configuration.rooms = ["main"]
            configuration.tokenVerifier = NetcodeConnectTokenVerifier(key: key, protocolID: ArenaUDP.protocolID, clock: clock)
        }
        let issuer = ConnectTokenIssuer(key: key, protocolID: ArenaUDP.protocolID, clock: clock)
        let address = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40000)
        let token = try issuer.issue(userID: 42, room: "main", displayName: "Alice", serverAddresses: [address], lifetimeSeconds: 30)
        simulation.addClient { configuration in
            configuration.room = "main"
            configuration.helloPayload = Array("bob".utf8)  // what the client asks for; the token says otherwise
            configuration.connectToken = token.helloToken
        }
        simulation.addClient { configuration in
            configuration.room = "main"
            configuration.helloPayload = Array("carol".utf8)
        }
        simulation.run(for: .seconds(2))
        let view = try #require(simulation.clients[1].render(), "the anonymous client has nothing to draw after 2 s")
        let names = view.entities.filter { $0.typeIndex == ArenaSchema.playerType }.map(ArenaSchema.player(from:)).map(\.name)
        #expect(Set(names) == ["Alice", "carol"], "the verified name, not the one the hello asked for: \(names)")
    }

    @Test("a player holding right moves right at its speed, and prediction agrees with the server to a quantum")
    func scriptedMovement() throws {
        let simulation = Self.simulation(bots: 0)
        let link = LinkConditions(latency: .milliseconds(50), jitter: .milliseconds(10))
        simulation.addClient(upstream: link, downstream: link, configure: { $0.room = "main" }) { _, tick in
            // Still for a second (to join), then right for 10 ticks, then still again.
            (30..<40).contains(tick) ? ArenaInput(moveX: 1, moveY: 0, fires: false) : .idle
        }
        simulation.run(for: .seconds(1))
        let id = try #require(simulation.clients[0].clientID)
        let start = try #require(simulation.room.state.player(id))
        simulation.run(for: .seconds(1))
        let end = try #require(simulation.room.state.player(id))
        let expected = ArenaRules.playerSpeed * 10 / 30
        let moved = end.x - start.x
        let hasRoom = !simulation.room.state.map.isBlocked(x: start.x + expected, y: start.y, radius: ArenaRules.playerRadius)
        try #require(hasRoom, "seed 5 should spawn the player with room to walk right")
        #expect(abs(moved - expected) < 1e-6, "10 ticks right should move \(expected) tiles, moved \(moved)")
        #expect(end.y == start.y, "moving right must not change y")
        let predicted = try #require(simulation.clients[0].predictedLocalEntity)
        #expect(abs(predicted.values[0] - end.x) <= 1.0 / 64, "the predicted x \(predicted.values[0]) should match the server's \(end.x)")
    }

    @Test("a player that reconnects within the grace period keeps its player and score")
    func resumption() throws {
        let simulation = Self.simulation(bots: 0)
        simulation.addClient(configure: {
            $0.room = "main"; $0.helloPayload = Array("cat".utf8)
        })
        simulation.run(for: .seconds(1))
        let id = try #require(simulation.clients[0].clientID)
        simulation.connections[0].disconnect()
        simulation.run(for: .seconds(1))
        simulation.reconnect(0)
        simulation.run(for: .seconds(1))
        #expect(simulation.clients[0].clientID == id, "the same player comes back")
        #expect(simulation.clients[0].wasResumed)
        #expect(simulation.room.state.players.filter { !$0.isBot }.map(\.name) == ["cat"], "one player, not two")
    }
}

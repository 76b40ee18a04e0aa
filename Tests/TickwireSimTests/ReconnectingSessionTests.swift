import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("ReconnectingSession")
struct ReconnectingSessionTests {
    /// Backoff short enough for a few seconds of virtual time: 200 ms doubling to 1.6 s, half jittered.
    static let policy = ReconnectPolicy(baseDelay: .milliseconds(200), maximumDelay: .milliseconds(1600), jitter: 0.5)

    /// Runs `simulation` in 1 ms steps until `condition` holds, for `limit` at most.
    ///
    /// - Returns: Whether the condition came true.
    @discardableResult
    func run(_ simulation: Simulation, until condition: () -> Bool, within limit: Duration) -> Bool {
        let end = simulation.clock.now + limit
        while !condition() && simulation.clock.now < end { simulation.run(for: .milliseconds(1)) }
        return condition()
    }

    @Test("the server dies and returns within the grace period: same player id, and a full snapshot first")
    func serverLossWithinGrace() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4)) { $0.resumeGracePeriod = .seconds(10) }
        let index = simulation.addReconnectingClient(
            downstream: LinkConditions(latency: .milliseconds(20)), policy: Self.policy,
            input: { _, tick in tick < 20 ? DotsGame.Input(dx: 1, dy: 0) : nil })
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(2))
        #expect(client.state == .connected(resumed: false))
        let id = try #require(client.session.clientID)
        let position = try #require(simulation.room.state.players[id])

        let saved = simulation.host.exportState()
        simulation.takeHostDown()
        simulation.run(for: .seconds(3))
        guard case .waitingToReconnect = client.state else {
            Issue.record("while the server is down the client waits between attempts, not \(client.state)")
            return
        }
        #expect(client.failedAttempts >= 2, "attempts while the server is down fail (\(client.failedAttempts) failed)")

        try simulation.restartHost(restoring: saved)
        let session = client.session
        #expect(
            run(simulation, until: { session.status == .connected }, within: .seconds(3)),
            "the client did not reconnect within 3 s of the restart (state \(client.state))")
        #expect(client.state == .connected(resumed: true))
        #expect(session.clientID == id, "the resumed session has the same player id")
        #expect(client.reconnects == 1)
        let snapshots = session.metrics.snapshotsReceived, full = session.metrics.fullSnapshotsReceived
        #expect(run(simulation, until: { session.metrics.snapshotsReceived > snapshots }, within: .seconds(1)))
        #expect(session.metrics.snapshotsReceived == snapshots + 1)
        #expect(session.metrics.fullSnapshotsReceived == full + 1, "the first snapshot after resuming is a full one")
        #expect(simulation.room.state.players[id] == position, "the player waited where it stood")
    }

    @Test("the client returns after the grace period: a new player id, not resumed")
    func returnAfterGrace() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 2)) { $0.resumeGracePeriod = .seconds(2) }
        let index = simulation.addReconnectingClient(policy: Self.policy)
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(1))
        let id = try #require(client.session.clientID)

        // The network between client and server fails for 4 s; the server keeps running.
        simulation.network.isAcceptingConnections = false
        simulation.connections[index].disconnect()
        simulation.run(for: .seconds(4))
        #expect(simulation.room.state.players[id] == nil, "after the grace period the player is gone")
        simulation.network.isAcceptingConnections = true
        #expect(run(simulation, until: { client.session.status == .connected }, within: .seconds(3)))
        #expect(client.state == .connected(resumed: false))
        let newID = try #require(client.session.clientID)
        #expect(newID != id, "an expired session comes back as a new player")
        #expect(client.reconnects == 1)
        #expect(client.failedAttempts >= 3, "attempts during the outage failed (\(client.failedAttempts))")
    }

    @Test("a schema mismatch is refused once: exactly one attempt, no retries, state refused")
    func refusal() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let index = simulation.addReconnectingClient(policy: Self.policy, game: DotsGame(orbCount: 1, extraField: true))
        let client = try #require(simulation.reconnectingClients[index])
        var states: [ConnectionState] = []
        client.onStateChange = { states.append($0) }
        simulation.run(for: .seconds(10))
        guard case .refused(.schemaMismatch, let text) = client.state else {
            Issue.record("a client with another schema ends refused for a schema mismatch, not \(client.state)")
            return
        }
        #expect(!text.isEmpty, "the refusal carries the server's words")
        #expect(states == [.connecting(attempt: 1), client.state], "the first attempt, then straight to refused, got \(states)")
        #expect(simulation.host.rejections[.schemaMismatch] == 1, "exactly one hello reached the server in 10 s")
        #expect(client.failedAttempts == 0 && client.reconnects == 0)
        #expect(client.connection?.isClosed ?? true)
    }

    @Test("a full room is retried with backoff and entered once a place frees up")
    func retryableRefusal() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) { $0.roomCapacity = 1 }
        simulation.addClient()
        simulation.run(for: .milliseconds(500))
        let index = simulation.addReconnectingClient(policy: Self.policy)
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(3))
        #expect(client.failedAttempts >= 2, "the full room was tried again (\(client.failedAttempts) failed attempts)")
        #expect(client.lastFailure?.hasPrefix("refused: room full") == true, "last failure: \(client.lastFailure ?? "none")")
        let rejected = simulation.host.rejections[.roomFull] ?? 0
        #expect(
            (0...1).contains(rejected - client.failedAttempts), "each failed attempt was one refused hello (the newest may be on its way)")
        #expect(rejected <= 5, "backoff, not a retry storm: \(rejected) hellos in 3 s")
        simulation.clients[0].leave()
        #expect(
            run(simulation, until: { client.session.status == .connected }, within: .seconds(3)),
            "the client got the freed place (state \(client.state))")
        #expect(client.state == .connected(resumed: false))
    }

    @Test("the backoff grows per attempt within its jitter, stops at the cap, and starts over after a connection")
    func backoffSchedule() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        simulation.takeHostDown()
        let seed: UInt64 = 99
        let index = simulation.addReconnectingClient(policy: Self.policy, seed: seed)
        let client = try #require(simulation.reconnectingClients[index])
        var waits: [(attempt: Int, delay: Duration)] = []
        client.onStateChange = { state in
            if case .waitingToReconnect(let attempt, let at) = state { waits.append((attempt, at - simulation.clock.now)) }
        }
        simulation.run(for: .seconds(8))
        #expect(waits.count >= 6, "8 s of outage hold at least 6 waits, got \(waits.count)")
        // The draws come from the one SplitMix64, seeded: the delays are exactly the policy's.
        var random = SplitMix64(seed: seed)
        for (setback, wait) in waits.enumerated() {
            let k = setback + 1
            #expect(wait.attempt == k + 1, "after failed attempt \(k) comes attempt \(k + 1)")
            #expect(wait.delay == Self.policy.delay(forAttempt: k, unitRandom: Double.random(in: 0..<1, using: &random)))
            let ceiling = Duration.milliseconds(min(1600, 200 << (k - 1)))
            #expect(wait.delay <= ceiling && wait.delay >= ceiling / 2, "wait \(k) is \(wait.delay), ceiling \(ceiling)")
        }
        #expect(waits.suffix(2).allSatisfy { $0.delay >= .milliseconds(800) }, "late waits sit at the cap")

        try simulation.restartHost()
        #expect(run(simulation, until: { client.session.status == .connected }, within: .seconds(3)))
        #expect(client.state == .connected(resumed: false))
        waits.removeAll()
        simulation.connections[index].disconnect()
        simulation.run(for: .milliseconds(100))
        let first = try #require(waits.first, "losing the connection leads to a wait")
        #expect(first.attempt == 1, "counting starts over after a connection")
        #expect(first.delay <= .milliseconds(200) && first.delay >= .milliseconds(100), "the first, shortest delay again: \(first.delay)")
    }

    @Test("a policy with a maximum gives up after that many failed attempts; leave() ends the loop")
    func givingUpAndLeaving() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        simulation.takeHostDown()
        var policy = Self.policy
        policy.maximumAttempts = 3
        let index = simulation.addReconnectingClient(policy: policy)
        let client = try #require(simulation.reconnectingClients[index])
        simulation.run(for: .seconds(10))
        #expect(client.state == .left && client.hasGivenUp)
        #expect(client.failedAttempts == 3)

        try simulation.restartHost()
        let stayerIndex = simulation.addReconnectingClient(policy: Self.policy)
        let stayer = try #require(simulation.reconnectingClients[stayerIndex])
        simulation.run(for: .seconds(1))
        let id = try #require(stayer.session.clientID)
        stayer.leave()
        simulation.run(for: .seconds(2))
        #expect(stayer.state == .left && !stayer.hasGivenUp)
        #expect(simulation.room.state.players[id] == nil, "the host freed the player at once")
        #expect(stayer.failedAttempts == 0)
    }

    @Test("onStateChange reports every state on the virtual clock, the first connecting(attempt: 1) included, even when set late")
    func everyStateReported() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        let index = simulation.addReconnectingClient(policy: Self.policy)
        let client = try #require(simulation.reconnectingClients[index])
        var states: [ConnectionState] = []
        client.onStateChange = { states.append($0) }
        #expect(run(simulation, until: { client.state == .connected(resumed: false) }, within: .seconds(2)))
        #expect(states == [.connecting(attempt: 1), .connected(resumed: false)], "the first attempt, then the welcome: \(states)")
        simulation.connections[index].disconnect()
        #expect(run(simulation, until: { client.state == .connected(resumed: true) }, within: .seconds(3)))
        #expect(states.count == 5, "then lost, the second first attempt and the resumption: \(states)")
        guard states.count == 5 else { return }
        if case .waitingToReconnect(attempt: 1, _) = states[2] {} else { Issue.record("the loss waits for attempt 1, not \(states[2])") }
        #expect(states[3] == .connecting(attempt: 1) && states[4] == .connected(resumed: true))
    }

    @Test("a welcome and a close within one tick report connected, then the wait: no state is collapsed")
    func welcomeAndCloseInOneTick() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 21)
        let client = ReconnectingSession(game: DotsGame(orbCount: 1), clock: clock, policy: Self.policy) { network.connect() }
        var states: [ConnectionState] = []
        client.onStateChange = { states.append($0) }
        client.start()
        #expect(states == [.connecting(attempt: 1)], "the hook hears the first attempt once, not again at start(): \(states)")
        let server = try #require(network.acceptPending().first, "the attempt reached the network")
        // The server welcomes the client and closes at once; both arrive before the client's next tick.
        let welcome = Message.Welcome(clientID: 7, tickRate: 20, currentTick: 1, serverTime: 0, resumeToken: [1, 2, 3])
        server.send(try FrameCompressor.uncompressed().encode(.welcome(welcome)))
        server.close(code: .goingAway, reason: "bye")
        clock.advance(by: .milliseconds(50))
        client.tick(input: nil)
        #expect(states.count == 3, "connecting, connected and the wait, each reported: \(states)")
        guard states.count == 3 else { return }
        #expect(states[1] == .connected(resumed: false), "the welcome was seen: \(states[1])")
        if case .waitingToReconnect(attempt: 1, _) = states[2] {} else { Issue.record("then the loss waits, not \(states[2])") }
        #expect(client.failedAttempts == 0, "a welcomed attempt did not fail; its connection was lost after")
    }

    @Test("an attempt that gets no welcome fails after the handshake timeout")
    func handshakeTimeout() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1))
        // A server that accepts connections but never answers: its process hangs.
        simulation.takeHostDown()
        simulation.network.isAcceptingConnections = true
        let index = simulation.addReconnectingClient(policy: Self.policy)
        let client = try #require(simulation.reconnectingClients[index])
        client.handshakeTimeout = .seconds(1)
        simulation.run(for: .milliseconds(900))
        #expect(client.state == .connecting(attempt: 1) && client.failedAttempts == 0, "still waiting for the welcome")
        simulation.run(for: .milliseconds(200))
        #expect(client.failedAttempts == 1, "the attempt failed at the timeout")
        #expect(client.lastFailure?.hasPrefix("no welcome within") == true, "last failure: \(client.lastFailure ?? "none")")
        #expect(client.connection?.isClosed == true, "the silent connection was closed")
        try simulation.restartHost()
        #expect(run(simulation, until: { client.session.status == .connected }, within: .seconds(3)))
    }
}

import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Host state carried over a server restart")
struct HostStateTests {
    /// Two clients on a host with a 2 s grace period; client 0 walks right for 20 ticks.
    func twoPlayers() throws -> (simulation: Simulation, walker: UInt32, idle: UInt32) {
        let simulation = Simulation(game: DotsGame(orbCount: 2)) { $0.resumeGracePeriod = .seconds(2) }
        simulation.addClient(input: { _, tick in tick < 20 ? DotsGame.Input(dx: 1, dy: 0) : nil })
        simulation.addClient()
        simulation.run(for: .seconds(2))
        let walker = try #require(simulation.clients[0].clientID, "client 0 was never welcomed")
        let idle = try #require(simulation.clients[1].clientID, "client 1 was never welcomed")
        return (simulation, walker, idle)
    }

    @Test("a client resumes its id and player on a new host restored from the old one's state")
    func resumeAfterRestart() throws {
        let (simulation, walker, idle) = try twoPlayers()
        let position = try #require(simulation.room.state.players[walker])
        #expect(position.x > 9, "the walker walked right for 20 ticks before the restart")
        let state = simulation.host.exportState()
        #expect(state.rooms.map(\.name) == [""], "the export holds the one room")
        #expect(state.rooms.first?.clients.map(\.id) == [walker, idle], "the export lists both connected clients")
        let savedTick = try #require(state.rooms.first?.tick)

        try simulation.restartHost(restoring: state)
        #expect(simulation.room.state.players[walker] == position, "the restored world holds the walker where he was")
        #expect(simulation.room.clientIDs == [walker, idle], "the restored room keeps a place for both clients")
        #expect(!simulation.room.isConnected(walker), "restored clients start disconnected")
        #expect(simulation.room.tick == savedTick, "the restored room counts on from the saved tick")

        simulation.reconnect(0)
        simulation.run(for: .seconds(1))
        let client = simulation.clients[0]
        #expect(client.status == .connected)
        #expect(client.clientID == walker && client.wasResumed, "the returning client has its old id back, resumed")
        #expect(simulation.room.isConnected(walker))
        #expect(simulation.room.state.players.count == 2, "no new player was added for the returning client")
        #expect(simulation.room.state.players[walker] == position, "the returning client's player is where he left it")
        let seen = try #require(client.latestSnapshot.flatMap { $0.index(of: walker) }, "the client does not see its own player")
        #expect(
            abs((client.latestSnapshot?.double(at: seen, field: 0) ?? 0) - position.x) < 0.01,
            "the client sees its player at its old position")
        #expect(simulation.room.tick &- savedTick >= 15, "the restored room ticked on from the saved tick (20 ticks in the second since)")
    }

    @Test("on a restored host an unknown token joins as a new player, and a client that never returns expires")
    func unknownTokenAndExpiry() throws {
        let (simulation, walker, idle) = try twoPlayers()
        try simulation.restartHost(restoring: simulation.host.exportState())
        let newcomer = simulation.addClient()
        simulation.reconnect(0)
        simulation.run(for: .milliseconds(500))
        let newID = try #require(simulation.clients[newcomer].clientID, "the newcomer was never welcomed")
        #expect(newID > max(walker, idle), "a new client gets an id above every restored one")
        #expect(!simulation.clients[newcomer].wasResumed)
        #expect(simulation.room.state.players[newID] != nil, "the newcomer has a player")
        #expect(simulation.room.state.players.count == 3)

        // The idle client never reconnects: 2 s after the restart its place is gone.
        #expect(simulation.room.clientIDs.contains(idle), "within the grace period the idle client keeps its place")
        simulation.run(for: .seconds(2))
        #expect(!simulation.room.clientIDs.contains(idle), "after the grace period the idle client is removed")
        #expect(simulation.room.state.players[idle] == nil, "and its player is removed from the world")
        #expect(simulation.room.state.players[walker] != nil, "the walker, who returned, stays")
    }

    @Test("without a state, a restarted host gives a returning client a new player")
    func restartWithoutState() throws {
        let (simulation, walker, idle) = try twoPlayers()
        try simulation.restartHost()
        simulation.reconnect(1)
        simulation.run(for: .milliseconds(500))
        #expect(simulation.clients[1].status == .connected)
        let newID = try #require(simulation.clients[1].clientID)
        #expect(newID != idle, "a fresh host knows no token: the idle client gets a new id")
        #expect(simulation.room.clientIDs == [newID], "the fresh room holds only the newcomer")
        #expect(simulation.room.state.players[walker] == nil || walker == newID, "the walker's player is gone")
        #expect(!simulation.clients[1].wasResumed, "a new player is not a resumed one")
    }

    @Test("a fresh host that happens to give a returning client its old id has not resumed it")
    func sameIDIsNotResumption() throws {
        let (simulation, walker, _) = try twoPlayers()
        try simulation.restartHost()
        simulation.reconnect(0)  // the walker has the lowest id, which a fresh host hands out first
        simulation.run(for: .milliseconds(500))
        #expect(simulation.clients[0].status == .connected)
        #expect(simulation.clients[0].clientID == walker, "the fresh host's first id equals the walker's old one")
        #expect(!simulation.clients[0].wasResumed, "same id, but the host did not know the token: not resumed")
    }

    @Test("a restored state opens rooms the configuration lacks, besides the configured ones")
    func roomsRestored() throws {
        let game = DotsGame(orbCount: 1)
        var world = game.makeWorld(room: "extra")
        world = game.addPlayer(7, to: world)
        let state = HostState(
            rooms: [RoomState(name: "extra", tick: 99, world: world, clients: [ResumableClient(id: 7, token: [1, 2, 3])])],
            nextClientID: 3)
        let clock = VirtualClock()
        let host = try Host(game: game, listener: SimulatedNetwork(clock: clock, seed: 1), clock: clock, restoring: state)
        #expect(host.roomNames == ["", "extra"], "the configured room and the restored one")
        #expect(host.room(named: "extra")?.clientIDs == [7])
        #expect(host.room(named: "extra")?.tick == 99)
        #expect(host.nextClientID == 8, "the next id passes the restored client's, though the state said 3")
        let exported = host.exportState()
        #expect(exported.rooms.map(\.name) == ["", "extra"])
        #expect(exported.rooms.last?.clients == [ResumableClient(id: 7, token: [1, 2, 3])], "exporting again gives the same clients")
    }

    struct BadState: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let rooms: [(name: String, clients: [ResumableClient])]
        let expected: String
    }

    static let badStates = [
        BadState(testDescription: "client id 0", rooms: [("", [ResumableClient(id: 0, token: [1])])], expected: "id 0"),
        BadState(
            testDescription: "an id in two rooms",
            rooms: [("a", [ResumableClient(id: 5, token: [1])]), ("b", [ResumableClient(id: 5, token: [2])])], expected: "appears twice"),
        BadState(testDescription: "an empty token", rooms: [("", [ResumableClient(id: 1, token: [])])], expected: "0 bytes"),
        BadState(
            testDescription: "a token one byte over the limit",
            rooms: [("", [ResumableClient(id: 1, token: [UInt8](repeating: 9, count: 65))])], expected: "65 bytes"),
        BadState(
            testDescription: "a shared token",
            rooms: [("", [ResumableClient(id: 1, token: [4]), ResumableClient(id: 2, token: [4])])], expected: "also another"),
        BadState(testDescription: "a room listed twice", rooms: [("a", []), ("a", [])], expected: "twice"),
        BadState(
            testDescription: "more clients than the capacity",
            rooms: [("", [ResumableClient(id: 1, token: [1]), ResumableClient(id: 2, token: [2]), ResumableClient(id: 3, token: [3])])],
            expected: "capacity of 2"),
    ]

    @Test("an inconsistent state is refused with a typed error", arguments: badStates)
    func refused(_ bad: BadState) throws {
        let game = DotsGame(orbCount: 0)
        let state = HostState(
            rooms: bad.rooms.map { RoomState(name: $0.name, tick: 1, world: game.makeWorld(room: $0.name), clients: $0.clients) },
            nextClientID: 1)
        var configuration = HostConfiguration()
        configuration.roomCapacity = 2
        let clock = VirtualClock()
        let error = #expect(throws: HostStateError.self, "\(bad.testDescription) must be refused") {
            _ = try Host(
                game: game, listener: SimulatedNetwork(clock: clock, seed: 1), clock: clock,
                configuration: configuration, restoring: state)
        }
        #expect(error?.description.contains(bad.expected) == true, "the message names the problem: \(error?.description ?? "none")")
    }

    @Test("a token of exactly the limit is accepted")
    func tokenAtLimit() throws {
        let game = DotsGame(orbCount: 0)
        let token = [UInt8](repeating: 9, count: FrameLimits.standard.maximumResumeTokenBytes)
        let state = HostState(
            rooms: [
                RoomState(
                    name: "", tick: 1, world: game.addPlayer(1, to: game.makeWorld(room: "")),
                    clients: [ResumableClient(id: 1, token: token)])
            ],
            nextClientID: 2)
        let clock = VirtualClock()
        let host = try Host(game: game, listener: SimulatedNetwork(clock: clock, seed: 1), clock: clock, restoring: state)
        #expect(host.room(named: "")?.clientIDs == [1])
    }

    @Test("a token-bearing player saved in a state file resumes on the restored host with its identity; the resume event names it")
    func identityAfterRestart() throws {
        let tokens: (inout HostConfiguration) -> Void = {
            $0.requiresTokens = true
            $0.tokenVerifier = HostTokenTests.PlainVerifier()
        }
        let old = RawClientBench(configure: tokens)
        let player = old.join(connectToken: HostTokenTests.token(user: 5, tag: 1))
        old.run(milliseconds: 100, clients: [player])
        let welcome = try #require(player.welcome, "the token-bearing player joins: \(String(describing: player.reject))")
        let exported = old.host.exportState()
        #expect(exported.rooms.first?.clients.first?.identity?.userID == 5, "the export keeps the player's identity")

        // Through the bytes of a state file, as `arena serve --state` stores them.
        let game = old.game
        let bytes = HostStateFile.encode(
            SavedHostState(state: exported, savedAt: 1), schemaFingerprint: game.schema.fingerprint, encodeWorld: game.encodeWorld)
        let read = try HostStateFile.decode(bytes, schemaFingerprint: game.schema.fingerprint, decodeWorld: game.decodeWorld)
        #expect(
            read.state.rooms.map(\.clients) == exported.rooms.map(\.clients), "the state file gives back the clients, identities included")

        let new = try RawClientBench(restoring: read.state, configure: tokens)
        var events: [HostEvent] = []
        new.host.onEvent = { events.append($0) }
        #expect(new.host.room(named: "")?.clients[welcome.clientID]?.identity?.userID == 5, "the restored client has its identity")
        let back = new.join(token: welcome.resumeToken)
        new.run(milliseconds: 100, clients: [back])
        #expect(back.welcome?.clientID == welcome.clientID, "the player resumes its place: \(String(describing: back.reject))")
        let resumed = events.first { $0.kind == .resumed }
        #expect(
            resumed?.clientID == welcome.clientID && resumed?.identity?.userID == 5, "the resume event names user 5: \(events)")
        #expect(new.host.room(named: "")?.clients[welcome.clientID]?.identity?.userID == 5, "the resumed client keeps its identity")
    }
}

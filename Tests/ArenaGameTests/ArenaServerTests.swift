import Testing
import TickwireCodec
import TickwireSim

@testable import ArenaGame

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ArenaServer with a state file")
struct ArenaServerTests {
    /// Starts a server on 127.0.0.1, port 0, with `--state path`; checks it; then stops it at
    /// once (``ArenaServer/run(statusInterval:status:)`` returns after its shutdown save).
    func withServer(statePath: String, _ check: (ArenaServer) throws -> Void) throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.bots = 2
        options.statePath = statePath
        let stop = ServerStopRequest()
        let server = try ArenaServer(options: options, stopRequest: stop)
        defer {
            stop.requestStop()
            server.run()
        }
        try check(server)
    }

    /// A state with room `main`: its bots and a human, client 3, who may resume.
    static func savedState(map: ArenaMap = .standard, savedAt: UInt64 = ArenaStateFile.wallClockMilliseconds()) -> ArenaStateFile {
        var world = Arena(botCount: 2, map: map).makeWorld(room: "main")
        ArenaRules.addHuman(id: 3, named: "carol", to: &world)
        world.players[0].score = 7
        return ArenaStateFile(
            state: HostState(
                rooms: [RoomState(name: "main", tick: 500, world: world, clients: [ResumableClient(id: 3, token: [9, 9, 9, 9])])],
                nextClientID: 4),
            savedAt: savedAt)
    }

    @Test("a recent state file is restored, and the shutdown save writes it back with the same player and token")
    func restores() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/arena.state"
        defer { unlink(path) }
        let saved = Self.savedState()
        try saved.write(to: path)
        try withServer(statePath: path) { server in
            guard case .restored(let rooms, let clients, let age) = server.stateRestore else {
                Issue.record("the state was not restored: \(server.stateRestore)")
                return
            }
            #expect(
                rooms == 1 && clients == 1 && age >= 0 && age < 10, "1 room, 1 client, saved just now; got \(rooms), \(clients), \(age) s")
        }
        let written = try #require(try ArenaStateFile.read(from: path), "the shutdown save wrote no file")
        let room = try #require(written.state.rooms.first { $0.name == "main" })
        #expect(room.clients == [ResumableClient(id: 3, token: [9, 9, 9, 9])], "carol's place and token survive the restart")
        #expect(room.world.player(3) == saved.state.rooms[0].world.player(3), "carol's player was not stepped (no tick ran)")
        #expect(room.world.players.first?.score == 7, "the scores survive")
        #expect(written.savedAt >= saved.savedAt)
    }

    @Test("a stale file, a file for another map and a missing file start the server fresh")
    func refuses() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/arena.state"
        defer { unlink(path) }
        try withServer(statePath: path) { server in
            guard case .none = server.stateRestore else { Issue.record("no file should give .none, not \(server.stateRestore)"); return }
        }
        try Self.savedState(savedAt: ArenaStateFile.wallClockMilliseconds() - 31_000).write(to: path)
        try withServer(statePath: path) { server in
            guard case .refused(let error) = server.stateRestore else { Issue.record("a 31 s old file was not refused"); return }
            #expect(error.isStale, "a file older than the 30 s grace period is stale: \(error)")
        }
        try Self.savedState(map: ArenaMap(layout: ["#####", "#   #", "#####"])).write(to: path)
        try withServer(statePath: path) { server in
            guard case .refused(let error) = server.stateRestore else { Issue.record("a file for another map was not refused"); return }
            #expect(error.description.contains("map"), "\(error)")
        }
    }
}

/// `arena serve --require-tokens`: the host checks connect tokens with the key of `--udp-key`.
@Suite("Arena with tokens required")
struct ArenaRequiredTokensTests {
    @Test("--require-tokens without --udp-key is refused at start, naming the flag")
    func needsTheKey() {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = nil
        options.requiresTokens = true
        do {
            _ = try ArenaServer(options: options)
            Issue.record("a server requiring tokens started with no key to check them")
        } catch {
            #expect(error.code == EINVAL)
            #expect("\(error)".contains("--udp-key"), "the error names the flag: \(error)")
        }
    }

    @Test("with --udp-key the host requires tokens and checks them with that key; without the flag it does not")
    func requiresWithKey() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/udp.key"
        defer { unlink(path) }
        for required in [false, true] {
            var options = ArenaServer.Options()
            options.port = 0
            options.udpPort = nil
            options.bots = 0
            options.udpKeyPath = path
            options.requiresTokens = required
            let stop = ServerStopRequest()
            let server = try ArenaServer(options: options, stopRequest: stop)
            #expect(server.requiresTokens == required)
            stop.requestStop()
            server.run()
        }
    }
}

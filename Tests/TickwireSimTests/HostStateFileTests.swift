import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("HostStateFile")
struct HostStateFileTests {
    /// A fresh directory under /tmp for one test.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/tickwire-state-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let path = mkdtemp(base) else { return nil }
            return String(cString: path)
        }
        return try #require(made, "mkdtemp failed: \(String(cString: strerror(errno)))")
    }

    /// Two welcomed clients on a host with a 5 s grace period; the first walks right.
    func twoPlayers() throws -> (simulation: Simulation, ids: [UInt32]) {
        let simulation = Simulation(game: DotsGame(orbCount: 2)) { $0.resumeGracePeriod = .seconds(5) }
        simulation.addClient(input: { _, tick in tick < 20 ? DotsGame.Input(dx: 1, dy: 0) : nil })
        simulation.addClient()
        simulation.run(for: .seconds(2))
        let ids = simulation.clients.compactMap(\.clientID)
        try #require(ids.count == 2, "both clients should have been welcomed")
        return (simulation, ids)
    }

    @Test("saveState(to:) writes the whole state in one call; readHostState reads back every room, client and world")
    func roundTrip() throws {
        let (simulation, ids) = try twoPlayers()
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/host.state"
        defer { unlink(path) }
        try simulation.host.saveState(to: path)
        #expect(access(path + ".tmp", F_OK) != 0, "the temporary file was renamed away")
        let game = DotsGame(orbCount: 2)
        let saved = try #require(try game.readHostState(from: path), "the file was written")
        let exported = simulation.host.exportState()
        #expect(saved.state.rooms.map(\.name) == exported.rooms.map(\.name) && saved.state.nextClientID == exported.nextClientID)
        #expect(saved.state.rooms.first?.clients == exported.rooms.first?.clients, "the clients and their tokens")
        #expect(saved.state.rooms.first?.clients.map(\.id) == ids)
        #expect(saved.state.rooms.map(\.tick) == exported.rooms.map(\.tick))
        #expect(
            saved.state.rooms.map { game.encodeWorld($0.world) } == exported.rooms.map { game.encodeWorld($0.world) },
            "the worlds, byte for byte")
        #expect(abs(saved.age(now: HostStateFile.wallClockMilliseconds())) < 5, "saved now, on the wall clock")
    }

    @Test("Host(restoringFrom:) keeps every client's place from the file, and starts fresh when there is no file")
    func restoreInOneCall() throws {
        let (simulation, ids) = try twoPlayers()
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/host.state"
        defer { unlink(path) }
        let fresh = try Host(
            game: DotsGame(orbCount: 2), listener: SimulatedNetwork(clock: simulation.clock, seed: 1), clock: simulation.clock,
            restoringFrom: path)
        #expect(fresh.room(named: "")?.clientIDs.isEmpty == true, "no file: a fresh host with an empty default room")
        try simulation.host.saveState(to: path)
        let restored = try Host(
            game: DotsGame(orbCount: 2), listener: SimulatedNetwork(clock: simulation.clock, seed: 2), clock: simulation.clock,
            configuration: simulation.host.configuration, restoringFrom: path)
        let room = try #require(restored.room(named: ""))
        #expect(room.clientIDs == ids, "the restored room keeps a place for both clients")
        #expect(ids.allSatisfy { room.state.players[$0] != nil }, "with their players in the world")
    }

    @Test("a file older than the grace period is refused as stale; a damaged or foreign one says so")
    func refusals() throws {
        let (simulation, _) = try twoPlayers()
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/host.state"
        defer { unlink(path) }
        let game = DotsGame(orbCount: 2)
        let old = SavedHostState(state: simulation.host.exportState(), savedAt: HostStateFile.wallClockMilliseconds() - 6_000)
        try game.writeHostState(old, to: path)
        let stale = #expect(throws: HostStateFileError.self) {
            _ = try Host(
                game: game, listener: simulation.network, clock: simulation.clock, configuration: simulation.host.configuration,
                restoringFrom: path)
        }
        #expect(stale?.isStale == true, "6 s old with a 5 s grace period is stale: \(stale?.description ?? "no error")")

        let bytes = HostStateFile.encode(old, schemaFingerprint: game.schema.fingerprint, encodeWorld: game.encodeWorld)
        var flipped = bytes
        flipped[40] ^= 0x01
        var otherVersion = bytes
        otherVersion[9] = 9
        let other = DotsGame(orbCount: 2, extraField: true)
        let cases: [(String, [UInt8], String)] = [
            ("a flipped bit", flipped, "checksum"),
            ("another version", otherVersion, "version 9 is not supported"),
            ("another file", Array("hello".utf8), "not a Tickwire host state file"),
            ("only the magic", HostStateFile.magic, "malformed"),
            (
                "another schema", HostStateFile.encode(old, schemaFingerprint: other.schema.fingerprint, encodeWorld: game.encodeWorld),
                "schema"
            ),
        ]
        for (what, input, words) in cases {
            let error = #expect(throws: HostStateFileError.self, "\(what) must be refused") {
                _ = try HostStateFile.decode(input, schemaFingerprint: game.schema.fingerprint, decodeWorld: game.decodeWorld)
            }
            #expect(error?.description.contains(words) == true, "\(what): '\(error?.description ?? "no error")' should say '\(words)'")
        }
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(throws: HostStateFileError.self, "a file cut to \(length) bytes") {
                _ = try HostStateFile.decode(
                    Array(bytes[..<length]), schemaFingerprint: game.schema.fingerprint, decodeWorld: game.decodeWorld)
            }
        }
    }

    @Test("the byte and room limits hold at their value and refuse one past it, before reading")
    func limits() throws {
        let (simulation, _) = try twoPlayers()
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/host.state"
        defer { unlink(path) }
        let game = DotsGame(orbCount: 2)
        try simulation.host.saveState(to: path)
        let size = try #require(try HostStateFile.read(from: path)).count
        var limits = HostStateFile.Limits()
        limits.maximumBytes = size
        #expect(throws: Never.self) { _ = try game.readHostState(from: path, limits: limits) }
        limits.maximumBytes = size - 1
        let error = #expect(throws: HostStateFileError.self) { _ = try game.readHostState(from: path, limits: limits) }
        #expect(error?.description.contains("\(size) bytes exceeds the limit of \(size - 1)") == true, "\(error?.description ?? "")")
        limits = HostStateFile.Limits()
        limits.maximumRooms = 0
        let rooms = #expect(throws: HostStateFileError.self) { _ = try game.readHostState(from: path, limits: limits) }
        #expect(rooms?.description.contains("1 rooms exceed the limit of 0") == true, "\(rooms?.description ?? "")")
    }

    @Test("a write that cannot open its temporary file names the call and leaves nothing behind")
    func writeFailure() throws {
        let (simulation, _) = try twoPlayers()
        let error = #expect(throws: HostStateFileError.self) { try simulation.host.saveState(to: "/nonexistent-dir/host.state") }
        #expect(error?.systemErrorNumber == ENOENT, "\(error?.description ?? "no error")")
        #expect(error?.description.hasPrefix("open(/nonexistent-dir/host.state.tmp) failed") == true, "\(error?.description ?? "")")
    }
}

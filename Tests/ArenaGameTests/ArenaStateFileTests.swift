import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSim

@testable import ArenaGame

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ArenaStateFile")
struct ArenaStateFileTests {
    static func sample(rooms: Int = 2, clientsPerRoom: Int = 2) -> ArenaStateFile {
        var roomStates: [RoomState<ArenaWorld>] = []
        var id: UInt32 = 1
        for index in 0..<rooms {
            let name = index == 0 ? "main" : "room\(index + 1)"
            var world = Arena(botCount: 2).makeWorld(room: name)
            var clients: [ResumableClient] = []
            for _ in 0..<clientsPerRoom {
                ArenaRules.addHuman(id: id, named: "p\(id)", to: &world)
                clients.append(ResumableClient(id: id, token: (0..<16).map { UInt8(truncatingIfNeeded: Int(id) * 31 + $0) }))
                id += 1
            }
            roomStates.append(RoomState(name: name, tick: 1000 + UInt32(index), world: world, clients: clients))
        }
        return ArenaStateFile(state: HostState(rooms: roomStates, nextClientID: id + 3), savedAt: 1_700_000_000_123)
    }

    static func expectEqual(_ a: ArenaStateFile, _ b: ArenaStateFile, _ why: String) {
        #expect(a.savedAt == b.savedAt, "\(why): the saved-at time differs")
        #expect(a.state == b.state, "\(why): the host state (rooms, ticks, clients, worlds, next id) differs")
    }

    /// A fresh directory under /tmp for one test (removed by the test).
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/arena-state-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let path = mkdtemp(base) else { return nil }
            return String(cString: path)
        }
        return try #require(made, "mkdtemp failed: \(String(cString: strerror(errno)))")
    }

    /// Rewrites the checksum after an edit, to test what lies behind it.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = Array(bytes.dropLast(8))
        var writer = ByteWriter()
        writer.writeUInt64(ArenaStateFile.checksum(body[...]))
        body += writer.bytes
        return body
    }

    @Test("a state round-trips through its bytes")
    func roundTrip() throws {
        let file = Self.sample()
        let bytes = file.encoded()
        #expect(Array(bytes.prefix(8)) == ArenaStateFile.magic)
        Self.expectEqual(try ArenaStateFile(decoding: bytes), file, "decoded")
    }

    @Test("write then read gives the same state, leaves no temporary file, and a missing file reads as nil")
    func writeAndRead() throws {
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/arena.state"
        defer { unlink(path) }
        #expect(try ArenaStateFile.read(from: path) == nil, "no file yet")
        let file = Self.sample()
        try file.write(to: path)
        var second = Self.sample(rooms: 1)
        second.savedAt += 1000
        try second.write(to: path)  // replaces the first
        #expect(access(path + ".tmp", F_OK) != 0, "the temporary file was renamed away")
        let read = try #require(try ArenaStateFile.read(from: path))
        Self.expectEqual(read, second, "read back")
    }

    @Test("a file over the byte limit is refused before it is read; one at the limit is read")
    func fileSizeLimit() throws {
        let directory = try Self.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/arena.state"
        defer { unlink(path) }
        let file = Self.sample()
        try file.write(to: path)
        let size = file.encoded().count
        var limits = ArenaStateFile.Limits()
        limits.maximumBytes = size
        #expect(throws: Never.self) { _ = try ArenaStateFile.read(from: path, limits: limits) }
        limits.maximumBytes = size - 1
        let error = #expect(throws: ArenaStateError.self) { _ = try ArenaStateFile.read(from: path, limits: limits) }
        #expect(
            error?.description.contains("\(size) bytes exceeds the limit of \(size - 1)") == true, "\(error?.description ?? "no error")")
    }

    @Test("damaged, foreign and other-version files are refused with a typed error that says so")
    func refusals() throws {
        let bytes = Self.sample().encoded()
        var flipped = bytes
        flipped[40] ^= 0x10
        var otherVersion = bytes
        otherVersion[9] = 3
        var otherSchema = bytes
        otherSchema[12] ^= 0xFF
        let cases: [(String, [UInt8], String)] = [
            ("a flipped bit", flipped, "checksum"),
            ("another format version", otherVersion, "version 3 is not supported"),
            ("another schema", Self.resealed(otherSchema), "schema"),
            ("another file", Array("hello, world".utf8), "not a Tickwire host state file"),
            ("an empty file", [], "not a Tickwire host state file"),
            ("only the magic", ArenaStateFile.magic, "malformed"),
            ("trailing bytes", Self.resealed(Array(bytes.dropLast(8)) + [0, 0, 0, 0, 0, 0, 0, 0, 0]), "follow the end"),
        ]
        for (what, input, words) in cases {
            let error = #expect(throws: ArenaStateError.self, "\(what) must be refused") { _ = try ArenaStateFile(decoding: input) }
            #expect(error?.description.contains(words) == true, "\(what): '\(error?.description ?? "no error")' should say '\(words)'")
        }
    }

    @Test("every truncation is refused")
    func truncations() throws {
        let bytes = Self.sample(rooms: 1, clientsPerRoom: 1).encoded()
        for length in 0..<bytes.count {
            #expect(throws: ArenaStateError.self, "a file cut to \(length) bytes") {
                _ = try ArenaStateFile(decoding: Array(bytes[..<length]))
            }
        }
    }

    @Test("room, client, token and room-name limits hold at their value and refuse one past it")
    func countLimits() throws {
        var file = Self.sample(rooms: 3, clientsPerRoom: 4)
        file.state.rooms[0].clients[0].token = [UInt8](repeating: 7, count: 64)
        file.state.rooms[1].name = String(repeating: "r", count: 40)
        let bytes = file.encoded()
        let cases: [(String, WritableKeyPath<ArenaStateFile.Limits, Int>, Int)] = [
            ("rooms", \.maximumRooms, 3), ("clients per room", \.maximumClientsPerRoom, 4),
            ("token bytes", \.maximumTokenBytes, 64), ("room name bytes", \.maximumRoomNameBytes, 40),
        ]
        for (what, limit, actual) in cases {
            var limits = ArenaStateFile.Limits()
            limits[keyPath: limit] = actual
            #expect(throws: Never.self, "\(what) at the limit \(actual)") { _ = try ArenaStateFile(decoding: bytes, limits: limits) }
            limits[keyPath: limit] = actual - 1
            #expect(throws: ArenaStateError.self, "\(what) one past the limit \(actual - 1)") {
                _ = try ArenaStateFile(decoding: bytes, limits: limits)
            }
        }
    }

    @Test("the age check accepts a file up to the grace period old and refuses older or future ones")
    func age() throws {
        let file = Self.sample(rooms: 1)
        #expect(throws: Never.self) { try file.checkAge(now: file.savedAt, maximumAge: 30) }
        #expect(throws: Never.self) { try file.checkAge(now: file.savedAt + 30_000, maximumAge: 30) }
        let stale = #expect(throws: ArenaStateError.self) { try file.checkAge(now: file.savedAt + 30_001, maximumAge: 30) }
        #expect(stale?.isStale == true, "a file 30.001 s old with a 30 s grace period is stale: \(stale?.description ?? "")")
        let future = #expect(throws: ArenaStateError.self) { try file.checkAge(now: file.savedAt - 5_000, maximumAge: 30) }
        #expect(future?.isStale == false && future?.description.contains("in the future") == true, "\(future?.description ?? "")")
    }

    @Test("seeded garbage never crashes the reader")
    func garbage() throws {
        var random = SplitMix64(seed: 0xF11E)
        let valid = Self.sample(rooms: 1).encoded()
        var refused = 0
        for round in 0..<400 {
            var bytes = round % 2 == 0 ? ArenaStateFile.magic + [0, 1] : valid
            let extra = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 0 {
                bytes += extra
            } else {
                bytes[10 + Int(random.next() % UInt64(bytes.count - 18))] = UInt8(truncatingIfNeeded: random.next())
                bytes = Self.resealed(bytes)  // past the checksum, into the parser
            }
            if (try? ArenaStateFile(decoding: bytes)) == nil { refused += 1 }
        }
        #expect(refused > 200, "random tails after a valid header should be refused, not read: \(refused) of 400 were")
    }
}

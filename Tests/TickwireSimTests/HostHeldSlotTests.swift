import Testing
import TickwireCodec

@testable import TickwireSim

/// Resume without squatting: dropped clients keep their player for a grace period, but held
/// slots can never lock new players out of a room.
@Suite("Host held slots")
struct HostHeldSlotTests {
    /// A client that joined and, when `playing`, sent a valid input.
    private func joined(_ bench: RawClientBench, playing: Bool) throws -> (RawClientBench.Client, UInt32) {
        let client = bench.join()
        bench.run(milliseconds: 50, clients: [client])
        if playing {
            client.sendInput(game: bench.game)
            bench.run(milliseconds: 100, clients: [client])
        }
        return (client, try #require(client.welcome?.clientID, "the client should be welcomed"))
    }

    @Test("a client that never sent an input keeps its slot for resumeGracePeriodWithoutInput, not a moment more")
    func shortGraceWithoutInput() throws {
        let bench = RawClientBench {
            $0.resumeGracePeriodWithoutInput = .seconds(2); $0.resumeGracePeriod = .seconds(10)
        }
        let (squatter, squatterID) = try joined(bench, playing: false)
        let (player, playerID) = try joined(bench, playing: true)
        squatter.connection.disconnect()
        player.connection.disconnect()
        bench.run(milliseconds: 1950, clients: [])
        let room = try #require(bench.host.room(named: ""))
        #expect(room.clientIDs == [squatterID, playerID], "both slots are held within 2 s")
        bench.run(milliseconds: 150, clients: [])
        #expect(room.clientIDs == [playerID], "2 s after dropping, the slot of a client that never played is gone")
        bench.run(milliseconds: 7800, clients: [])
        #expect(room.clientIDs == [playerID], "a player who sent input keeps the full 10 s")
        bench.run(milliseconds: 300, clients: [])
        #expect(room.clientIDs.isEmpty)
        #expect(room.metrics.heldSlotsExpired == 2)
    }

    @Test("at most heldSlotLimit slots are held; one more drop lets the oldest go")
    func heldSlotLimit() throws {
        let bench = RawClientBench { $0.heldSlotLimit = 2 }
        var clients: [(RawClientBench.Client, UInt32)] = []
        for _ in 0..<3 { clients.append(try joined(bench, playing: true)) }
        let room = try #require(bench.host.room(named: ""))
        for (client, _) in clients.prefix(2) {
            client.connection.disconnect()
            bench.run(milliseconds: 100, clients: [])
        }
        #expect(room.clientIDs.count == 3 && room.metrics.resumableClients == 2, "two held slots are at the limit")
        clients[2].0.connection.disconnect()
        bench.run(milliseconds: 100, clients: [])
        #expect(room.clientIDs == [clients[1].1, clients[2].1], "the third drop lets the oldest held slot go")
        #expect(room.metrics.heldSlotsReleased == 1)
    }

    @Test("a hello for a room full of held slots takes the oldest; a room full of connected players refuses it")
    func fullRoomReleasesOldest() throws {
        let bench = RawClientBench { $0.roomCapacity = 2 }
        let (first, firstID) = try joined(bench, playing: true)
        let (second, secondID) = try joined(bench, playing: true)
        first.connection.disconnect()
        bench.run(milliseconds: 100, clients: [])
        second.connection.disconnect()
        bench.run(milliseconds: 100, clients: [])
        let room = try #require(bench.host.room(named: ""))
        #expect(room.clientIDs == [firstID, secondID], "two held slots fill the room")

        let (_, thirdID) = try joined(bench, playing: true)
        #expect(room.clientIDs == [secondID, thirdID], "the newcomer takes the oldest held slot")
        let (_, fourthID) = try joined(bench, playing: true)
        #expect(room.clientIDs == [thirdID, fourthID])

        let fifth = bench.join()
        bench.run(milliseconds: 100, clients: [fifth])
        #expect(
            fifth.reject?.reason == .roomFull && fifth.closeReason?.code == .roomFull,
            "a room of connected players is full: \(String(describing: fifth.reject))")
    }

    @Test("a hello that arrives with the ends of a full room's connections, before the room's tick, takes a held slot")
    func helloBesideFreshDrops() throws {
        let bench = RawClientBench { $0.roomCapacity = 2 }
        let (first, firstID) = try joined(bench, playing: true)
        let (second, secondID) = try joined(bench, playing: true)
        let room = try #require(bench.host.room(named: ""))
        // Both drop and a newcomer says hello at the same moment: their ends and the hello reach
        // the host in one pass, whose handshakes run before the room's tick takes the ends in.
        first.connection.disconnect()
        second.connection.disconnect()
        let newcomer = bench.join()
        bench.run(milliseconds: 100, clients: [newcomer])
        #expect(newcomer.reject == nil, "refused although both players had gone: \(String(describing: newcomer.reject))")
        let newcomerID = try #require(newcomer.welcome?.clientID)
        #expect(room.clientIDs == [secondID, newcomerID], "the newcomer takes the older held slot (\(firstID)'s)")
    }

    @Test("a dropped client resumes its player within the grace period")
    func resumeStillWorks() throws {
        let bench = RawClientBench()
        let (client, id) = try joined(bench, playing: true)
        let token = try #require(client.welcome?.resumeToken)
        client.connection.disconnect()
        bench.run(milliseconds: 3000, clients: [])
        let back = bench.join(token: token)
        bench.run(milliseconds: 100, clients: [back])
        #expect(back.welcome?.clientID == id, "the same player comes back after 3 s")
    }
}

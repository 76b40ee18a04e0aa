import Testing
import TickwireCodec

@testable import TickwireSim

/// Rooms opened on demand close once they have stood empty for ``HostConfiguration/idleRoomTimeout``.
@Suite("Host idle rooms")
struct HostIdleRoomTests {
    private static func bench(rooms: [String] = [""]) -> RawClientBench {
        RawClientBench {
            $0.rooms = rooms
            $0.createsRoomsOnDemand = true
            $0.maximumRooms = rooms.count + 1
            $0.idleRoomTimeout = .seconds(1)
        }
    }

    @Test("a room opened on demand closes after the idle time, and a new room name can then open")
    func closesWhenIdle() {
        let bench = Self.bench()
        let client = bench.join(room: "a")
        bench.run(milliseconds: 100, clients: [client])
        #expect(bench.host.roomNames == ["", "a"])
        client.send(.disconnect(Message.Disconnect(reason: .leaving)))
        bench.run(milliseconds: 100, clients: [client])

        let early = bench.join(room: "b")
        bench.run(milliseconds: 100, clients: [early])
        #expect(early.reject?.reason == .unknownRoom, "while 'a' stands empty for less than 1 s the room cap is used up")
        bench.run(milliseconds: 750, clients: [])
        #expect(bench.host.roomNames == ["", "a"], "0.95 s empty: still open")
        bench.run(milliseconds: 100, clients: [])
        #expect(bench.host.roomNames == [""], "over 1 s empty: closed")
        #expect(bench.host.idleRoomsClosed == 1)

        let later = bench.join(room: "b")
        bench.run(milliseconds: 100, clients: [later])
        #expect(later.welcome != nil, "the freed place opens room 'b'")
        #expect(bench.host.roomNames == ["", "b"])
    }

    @Test("a room named in the configuration never closes")
    func configuredRoomsStay() {
        let bench = Self.bench(rooms: ["", "lobby"])
        let client = bench.join(room: "lobby")
        bench.run(milliseconds: 100, clients: [client])
        client.send(.disconnect(Message.Disconnect(reason: .leaving)))
        bench.run(milliseconds: 5000, clients: [client])
        #expect(bench.host.roomNames == ["", "lobby"])
    }

    @Test("a room with a held slot does not close; once the slot expires, it does")
    func heldSlotKeepsRoom() throws {
        let bench = RawClientBench {
            $0.createsRoomsOnDemand = true
            $0.idleRoomTimeout = .seconds(1)
            $0.resumeGracePeriod = .seconds(3)
        }
        let client = bench.join(room: "a")
        bench.run(milliseconds: 100, clients: [client])
        client.sendInput(game: bench.game)
        bench.run(milliseconds: 100, clients: [client])
        client.connection.disconnect()
        bench.run(milliseconds: 2900, clients: [])
        #expect(bench.host.roomNames == ["", "a"], "the held slot keeps the room open past the idle time")
        bench.run(milliseconds: 800, clients: [])
        #expect(bench.host.roomNames == ["", "a"], "the slot expired 3 s after the drop; the room has been empty under 1 s")
        bench.run(milliseconds: 1000, clients: [])
        #expect(bench.host.roomNames == [""], "empty for over 1 s after the slot expired: closed")
    }
}

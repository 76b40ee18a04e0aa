import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``Host/onEvent``: joins, resumes, departures and refusals, with room and client id, on the
/// thread that drives the host.
@Suite("Host events")
struct HostEventTests {
    /// The calling thread, as a number.
    static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    @Test("a join, a resume, a leave and a kick are reported with room and client id, once each, in order")
    func lifecycle() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) {
            $0.rooms = ["red"]
            $0.resumeGracePeriod = .seconds(10)
        }
        var events: [HostEvent] = []
        simulation.host.onEvent = { events.append($0) }
        simulation.addClient(configure: { $0.room = "red" })
        simulation.addClient(configure: { $0.room = "red" })
        simulation.run(for: .milliseconds(200))
        let first = try #require(simulation.clients[0].clientID)
        let second = try #require(simulation.clients[1].clientID)
        #expect(
            events == [HostEvent(kind: .joined, room: "red", clientID: first), HostEvent(kind: .joined, room: "red", clientID: second)])

        events.removeAll()
        simulation.connections[0].disconnect()
        simulation.run(for: .milliseconds(200))
        #expect(events.isEmpty, "a lost connection holds the player: no event yet, got \(events)")
        simulation.reconnect(0)
        simulation.run(for: .milliseconds(200))
        #expect(events == [HostEvent(kind: .resumed, room: "red", clientID: first)])

        events.removeAll()
        simulation.clients[0].leave()
        simulation.run(for: .milliseconds(200))
        try #require(simulation.host.room(named: "red")).kick(second, text: "cheating")
        simulation.run(for: .milliseconds(200))
        #expect(
            events == [
                HostEvent(kind: .left, room: "red", clientID: first, departure: .leaving),
                HostEvent(kind: .left, room: "red", clientID: second, departure: .kicked),
            ], "got \(events)")
    }

    @Test("refusals are reported with the reject's reason and words: the game's, and Tickwire's")
    func refusals() throws {
        var game = DotsGame(orbCount: 1)
        game.admissionPolicy = { request, _ in
            request.payload == Array("mallory".utf8) ? .refused(.refusedByGame, text: "banned") : .admitted
        }
        let simulation = Simulation(game: game) { $0.roomCapacity = 1 }
        var events: [HostEvent] = []
        simulation.host.onEvent = { events.append($0) }
        simulation.addClient(configure: { $0.helloPayload = Array("mallory".utf8) })
        simulation.run(for: .milliseconds(200))
        simulation.addClient()
        simulation.addClient()
        simulation.run(for: .milliseconds(200))
        let admitted = try #require(simulation.clients[1].clientID)
        #expect(
            events == [
                HostEvent(kind: .refused, room: "", clientID: nil, refusal: Message.Reject(reason: .refusedByGame, text: "banned")),
                HostEvent(kind: .joined, room: "", clientID: admitted),
                HostEvent(
                    kind: .refused, room: "", clientID: nil,
                    refusal: Message.Reject(reason: .roomFull, text: "room '' holds its maximum of 1 clients")),
            ], "got \(events)")
    }

    @Test("a player whose grace period ends, and the players of a closed room, are reported as left")
    func expiryAndRoomClosed() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) {
            $0.rooms = ["a", "b"]
            $0.resumeGracePeriod = .seconds(1)
            $0.resumeGracePeriodWithoutInput = .seconds(1)
        }
        var events: [HostEvent] = []
        simulation.host.onEvent = { events.append($0) }
        simulation.addClient(configure: { $0.room = "a" })
        simulation.addClient(configure: { $0.room = "b" })
        simulation.run(for: .milliseconds(200))
        let inA = try #require(simulation.clients[0].clientID)
        let inB = try #require(simulation.clients[1].clientID)
        events.removeAll()
        simulation.connections[0].disconnect()
        simulation.run(for: .seconds(2))
        simulation.host.closeRoom(named: "b")
        #expect(
            events == [
                HostEvent(kind: .left, room: "a", clientID: inA, departure: .gracePeriodEnded),
                HostEvent(kind: .left, room: "b", clientID: inB, departure: .roomClosed),
            ], "got \(events)")
    }

    @Test("departures from rooms ticking on other tick threads are reported on the driving thread")
    func drivingThread() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 1)) {
            $0.rooms = ["a", "b", "c"]
            $0.tickThreads = 3
            $0.usesTickThreadsOnVirtualClock = true
        }
        var threads: Set<UInt> = []
        var events: [HostEvent] = []
        simulation.host.onEvent = { event in
            events.append(event)
            threads.insert(Self.currentThread)
        }
        for room in ["a", "b", "c"] { simulation.addClient(configure: { $0.room = room }) }
        simulation.run(for: .milliseconds(200))
        for client in simulation.clients { client.leave() }
        simulation.run(for: .milliseconds(200))
        #expect(events.filter { $0.kind == .left }.count == 3, "got \(events)")
        #expect(threads == [Self.currentThread], "every event on the thread that drives the host")
    }
}

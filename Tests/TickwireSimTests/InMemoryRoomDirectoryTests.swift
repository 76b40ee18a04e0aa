import Testing

@testable import TickwireSim

@Suite("In-memory room directory")
struct InMemoryRoomDirectoryTests {
    @Test("the first process to ask claims a room; others are sent to its URL")
    func claims() {
        let clock = VirtualClock()
        let store = InMemoryDirectoryStore(clock: clock)
        let a = store.directory(forProcess: "a", publicURL: "ws://a")
        let b = store.directory(forProcess: "b", publicURL: "ws://b")
        #expect(a.placement(ofRoom: "r") == .here(savedState: nil))
        #expect(b.placement(ofRoom: "r") == .elsewhere(url: "ws://a"))
        a.save(room: "r", state: [1, 2])
        b.save(room: "r", state: [9])
        #expect(store.savedState(ofRoom: "r") == [1, 2], "only the holder's save is stored")
        a.release(room: "r")
        #expect(b.placement(ofRoom: "r") == .here(savedState: [1, 2]), "a released room goes to the next asker with its state")
    }

    @Test("a killed process's claims expire after the TTL; a live one's are renewed by its heartbeat")
    func expiry() {
        let clock = VirtualClock()
        let store = InMemoryDirectoryStore(clock: clock, claimTTL: .seconds(3))
        let a = store.directory(forProcess: "a", publicURL: "ws://a")
        let b = store.directory(forProcess: "b", publicURL: "ws://b")
        _ = a.placement(ofRoom: "r")
        for _ in 0..<5 {
            clock.advance(by: .seconds(1))
            a.report(rooms: [RoomLoad(name: "r", clients: 1, capacity: 8)])
        }
        #expect(store.holder(ofRoom: "r") == "a", "heartbeats keep the claim alive past its TTL")
        #expect(b.anotherProcessURL() == "ws://a")
        store.kill(process: "a")
        clock.advance(by: .milliseconds(2999))
        #expect(b.placement(ofRoom: "r") == .elsewhere(url: "ws://a"), "the claim lives until its TTL")
        clock.advance(by: .milliseconds(1))
        #expect(b.placement(ofRoom: "r") == .here(savedState: nil), "then it expires and b claims the room")
        #expect(b.anotherProcessURL() == nil, "a dead process is no one's other process")
    }

    @Test("a partitioned process gets unavailable; healed, it learns the rooms it lost, once")
    func partition() {
        let clock = VirtualClock()
        let store = InMemoryDirectoryStore(clock: clock, claimTTL: .seconds(3))
        let a = store.directory(forProcess: "a", publicURL: "ws://a")
        let b = store.directory(forProcess: "b", publicURL: "ws://b")
        _ = a.placement(ofRoom: "r")
        _ = a.placement(ofRoom: "s")
        store.partition(process: "a")
        #expect(a.placement(ofRoom: "t") == .unavailable)
        clock.advance(by: .seconds(4))
        #expect(b.placement(ofRoom: "r") == .here(savedState: nil))
        store.heal(process: "a")
        #expect(a.takeLostRooms() == ["r"], "r went to b; s, expired but untaken, is taken back")
        #expect(a.takeLostRooms().isEmpty, "each lost room is reported once")
        #expect(store.holder(ofRoom: "s") == "a")
    }

    @Test("with an answer delay, placement stays pending until the question is that old")
    func answerDelay() {
        let clock = VirtualClock()
        let store = InMemoryDirectoryStore(clock: clock, answerDelay: .milliseconds(100))
        let a = store.directory(forProcess: "a", publicURL: "ws://a")
        #expect(a.placement(ofRoom: "r") == .pending)
        clock.advance(by: .milliseconds(99))
        #expect(a.placement(ofRoom: "r") == .pending)
        clock.advance(by: .milliseconds(1))
        #expect(a.placement(ofRoom: "r") == .here(savedState: nil))
    }
}

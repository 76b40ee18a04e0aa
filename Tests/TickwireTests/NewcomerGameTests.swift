import Foundation
import Testing
import Tickwire

/// The newcomer's two-player game from issue #30, rewritten from the new Getting Started with
/// the public API alone: it joins its room by the URL's path, reads fields by name with their
/// own types, leaves on stop (the other player sees it gone at once, not after the timeout),
/// and survives a server restart through `saveState(to:)` and `Host(restoringFrom:)`. Real
/// WebSockets on 127.0.0.1, every wait bounded by a deadline.
@Suite("The newcomer's game")
struct NewcomerGameTests {
    /// Two fighters on a line: x, hit points and whether alive. Touching costs 10 hp a second.
    struct Duel: PersistableGame {
        struct Fighter: Sendable, Equatable {
            var x: Double
            var hp: Int
            var isAlive: Bool { hp > 0 }
        }
        typealias State = [UInt32: Fighter]
        typealias Input = Int8  // -1, 0 or +1
        let schema: Schema
        init() throws {
            schema = try Schema([
                EntityType(
                    "fighter",
                    fields: [
                        Field("x", .float(min: 0, max: 100, resolution: 0.01)), Field("hp", .integer(min: 0, max: 100)),
                        Field("alive", .bool),
                    ])
            ])
        }

        func makeWorld(room: String) -> State { [:] }
        func step(_ world: State, inputs: [UInt32: Int8], dt: Double) -> State {
            var next = world
            for (id, fighter) in world where fighter.isAlive {
                next[id]?.x = min(100, max(0, fighter.x + Double(inputs[id] ?? 0) * 10 * dt))
            }
            for (id, fighter) in next where next.contains(where: { $0.key != id && abs($0.value.x - fighter.x) < 1 }) {
                next[id]?.hp = max(0, fighter.hp - Int((10 * dt).rounded(.up)))
            }
            return next
        }
        func addPlayer(_ player: UInt32, to world: State) -> State {
            world.merging([player: Fighter(x: world.isEmpty ? 20 : 80, hp: 100)]) { old, _ in old }
        }
        func removePlayer(_ player: UInt32, from world: State) -> State { world.filter { $0.key != player } }
        func capture(_ world: State, into snapshot: inout Snapshot) throws(SnapshotError) {
            for (id, fighter) in world.sorted(by: { $0.key < $1.key }) {
                let index = try snapshot.insert(id: id, type: 0)
                snapshot.set(fighter.x, at: index, field: 0)
                snapshot.set(integer: Int64(fighter.hp), at: index, field: 1)
                snapshot.set(integer: fighter.isAlive ? 1 : 0, at: index, field: 2)
            }
        }
        func restore(from snapshot: Snapshot) -> State {
            State(
                uniqueKeysWithValues: snapshot.indices.map {
                    (snapshot.id(at: $0), Fighter(x: snapshot.double(at: $0, field: 0), hp: Int(snapshot.integer(at: $0, field: 1))))
                })
        }
        func entityID(of player: UInt32, in world: State) -> UInt32? { world[player] == nil ? nil : player }
        func encode(_ input: Int8) -> [UInt8] { [UInt8(bitPattern: input)] }
        func decodeInput(_ bytes: [UInt8]) -> Int8? { bytes.count == 1 ? Int8(bitPattern: bytes[0]) : nil }

        func encodeWorld(_ world: State) -> [UInt8] {
            var writer = ByteWriter()
            for (id, fighter) in world.sorted(by: { $0.key < $1.key }) {
                writer.writeUInt32(id)
                writer.writeUInt64(fighter.x.bitPattern)
                writer.writeUInt8(UInt8(clamping: fighter.hp))
            }
            return writer.bytes
        }
        func decodeWorld(_ bytes: [UInt8]) throws(RoomStateError) -> State {
            guard bytes.count % 13 == 0 else { throw RoomStateError.invalidWorld("\(bytes.count) bytes is not a whole number of fighters") }
            var reader = ByteReader(bytes)
            var world: State = [:]
            do throws(FrameError) {
                while !reader.isAtEnd {
                    let id = try reader.readUInt32()
                    world[id] = Fighter(x: Double(bitPattern: try reader.readUInt64()), hp: Int(try reader.readUInt8()))
                }
            } catch {
                throw RoomStateError.invalidWorld(error.description)
            }
            return world
        }
    }

    /// One player: a reconnecting session joining by URL, its fields read by keys made once.
    final class Player {
        let client: ReconnectingSession<Duel>
        var view: WorldView?
        var input: Int8 = 0
        let x: FieldKey<Double>
        let hp: FieldKey<Int>
        let alive: FieldKey<Bool>

        init(url: WebSocketURL, clock: any TickClock) throws {
            let game = try Duel()
            client = ReconnectingSession(
                game: game, clock: clock, policy: ReconnectPolicy(baseDelay: .milliseconds(100), maximumDelay: .milliseconds(400))
            ) {
                try WebSocketClientTransportConnection(url: url)
            }
            x = try game.schema.key("x", as: Double.self)
            hp = try game.schema.key("hp", as: Int.self)
            alive = try game.schema.key("alive", as: Bool.self)
        }

        var id: UInt32? { client.session.clientID }

        /// The fighter `id` as this player sees it: x, hit points, alive; `nil` when not in view.
        func fighter(_ id: UInt32?) -> (x: Double, hp: Int, alive: Bool)? {
            guard let id, let entity = view?.entity(id: id), let x = entity[x], let hp = entity[hp], let alive = entity[alive] else {
                return nil
            }
            return (x, hp, alive)
        }
    }

    /// A server on 127.0.0.1 with the room `duel`, restored from `statePath` when the file exists.
    static func startServer(port: Int, statePath: String, clock: any TickClock) throws -> (WebSocketTransportServer, Tickwire.Host<Duel>) {
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: port))
        var configuration = HostConfiguration()
        configuration.rooms = ["duel"]
        configuration.resumeGracePeriod = .seconds(10)
        return (
            listener, try Host(game: try Duel(), listener: listener, clock: clock, configuration: configuration, restoringFrom: statePath)
        )
    }

    /// Advances `host` and ticks and renders every player about every 10 ms until `condition`
    /// holds or `limit` passes (the sleep paces the loop; the condition is what is waited for).
    @discardableResult
    static func pump(
        _ host: Tickwire.Host<Duel>?, _ players: [Player], clock: any TickClock, within limit: Duration, until condition: () -> Bool
    ) -> Bool {
        let deadline = clock.now + limit
        while !condition() && clock.now < deadline {
            host?.advance()
            for player in players {
                player.client.tick(input: player.input)
                player.view = player.client.render()
            }
            clock.sleep(until: clock.now + .milliseconds(10))
        }
        return condition()
    }

    @Test("two players join room duel by URL, read each other by field name, one leaves and is gone at once, the other survives a restart")
    func duel() throws {
        let clock = MonotonicClock()
        let statePath = FileManager.default.temporaryDirectory.appendingPathComponent("newcomer-\(UUID().uuidString).state").path
        defer { try? FileManager.default.removeItem(atPath: statePath) }
        var (listener, host) = try Self.startServer(port: 0, statePath: statePath, clock: clock)
        defer { listener.shutdown(timeout: .seconds(1)) }
        let port = try #require(listener.address?.port, "the server should report its bound port")
        let url = try WebSocketURL("ws://127.0.0.1:\(port)/duel")
        let alice = try Player(url: url, clock: clock)
        let bob = try Player(url: url, clock: clock)
        defer { alice.client.leave() }

        // Both join by the URL's path and see both fighters, fields read by name.
        let bothSeen = Self.pump(host, [alice, bob], clock: clock, within: .seconds(10)) {
            alice.fighter(bob.id) != nil && bob.fighter(alice.id) != nil && alice.fighter(alice.id) != nil
        }
        try #require(bothSeen, "both players should see both fighters within 10 s (alice \(alice.client.state), bob \(bob.client.state))")
        #expect(alice.client.session.room == "duel" && bob.client.session.room == "duel", "the URL's path picked the room")
        #expect(host.room(named: "duel")?.clientIDs.count == 2, "the host has both in room duel")
        let seenBob = try #require(bob.id.flatMap { alice.fighter($0) })
        #expect(seenBob.hp == 100 && seenBob.alive, "Bob starts with 100 hp, alive, read as Int and Bool: \(seenBob)")
        #expect(abs(seenBob.x - 80) < 0.01 || abs(seenBob.x - 20) < 0.01, "a fighter starts at 20 or 80, at \(seenBob.x)")

        // Alice walks a little; Bob quits and leaves: Alice sees him gone well before the 5 s client timeout.
        alice.input = 1
        let bobID = try #require(bob.id)
        Self.pump(host, [alice, bob], clock: clock, within: .milliseconds(300)) { false }
        alice.input = 0
        bob.client.leave()
        let leftAt = clock.now
        let bobGone = Self.pump(host, [alice], clock: clock, within: .seconds(3)) { alice.view != nil && alice.fighter(bobID) == nil }
        #expect(bobGone, "Alice should see Bob gone within 3 s of his leave()")
        #expect(clock.now - leftAt < .seconds(2), "gone promptly, in \(clock.now - leftAt), not after the timeout and grace period")
        #expect(host.room(named: "duel")?.clientIDs == [try #require(alice.id)], "the host freed Bob's place at once")

        // The server stops, saves in one call, and a new one restores from the file: Alice resumes.
        Self.pump(host, [alice], clock: clock, within: .milliseconds(200)) { false }
        let aliceID = try #require(alice.id)
        let before = try #require(host.room(named: "duel")?.state[aliceID], "Alice is in the world before the restart")
        try host.saveState(to: statePath)
        host.shutdown()
        listener.shutdown(timeout: .seconds(1))
        let lost = Self.pump(nil, [alice], clock: clock, within: .seconds(3)) { alice.client.state != .connected(resumed: false) }
        #expect(lost, "Alice noticed the server going away (state \(alice.client.state))")
        (listener, host) = try Self.startServer(port: port, statePath: statePath, clock: clock)
        #expect(host.room(named: "duel")?.clientIDs == [aliceID], "the new server keeps Alice's place from the file")
        let resumed = Self.pump(host, [alice], clock: clock, within: .seconds(10)) {
            alice.client.state == .connected(resumed: true) && alice.fighter(aliceID) != nil
        }
        #expect(
            resumed,
            "Alice resumed on the new server within 10 s (state \(alice.client.state), last failure \(alice.client.lastFailure ?? "none"))")
        #expect(alice.id == aliceID, "with her own id")
        let after = try #require(alice.fighter(aliceID), "Alice sees herself after the restart")
        #expect(abs(after.x - before.x) < 0.02 && after.hp == before.hp, "where she stood, with her hit points: \(after) vs \(before)")
    }
}

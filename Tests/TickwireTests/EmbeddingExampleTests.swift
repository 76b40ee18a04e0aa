import Foundation
import Testing
import Tickwire

/// The examples of the DocC articles `EmbeddingTickwire.md` and `TestingTickByTick.md`: a whole
/// (tiny) game networked by Tickwire, tested tick by tick on the simulated network and over real
/// WebSockets. Kept here so the articles stay true.
@Suite("Embedding example")
struct EmbeddingExampleTests {
    /// A world of dots: each player is a dot that walks left or right.
    struct Dots: Game {
        struct World: Sendable { var x: [UInt32: Double] = [:] }
        typealias Input = Int8  // -1, 0 or +1

        let schema: Schema = {
            do { return try Schema([EntityType("dot", fields: [Field("x", .float(min: 0, max: 100, resolution: 0.01))])]) } catch {
                fatalError("\(error)")
            }
        }()

        func makeWorld(room: String) -> World { World() }
        func step(_ world: World, inputs: [UInt32: Int8], dt: Double) -> World {
            var world = world
            for (player, direction) in inputs { world.x[player, default: 50] += Double(direction) * 10 * dt }
            return world
        }
        func addPlayer(_ player: UInt32, to world: World) -> World { var world = world; world.x[player] = 50; return world }
        func removePlayer(_ player: UInt32, from world: World) -> World { var world = world; world.x[player] = nil; return world }
        func capture(_ world: World, into snapshot: inout Snapshot) throws(SnapshotError) {
            for (player, x) in world.x.sorted(by: { $0.key < $1.key }) {
                snapshot.set(x, at: try snapshot.insert(id: player, type: 0), field: 0)
            }
        }
        func restore(from snapshot: Snapshot) -> World {
            World(x: Dictionary(uniqueKeysWithValues: snapshot.indices.map { (snapshot.id(at: $0), snapshot.double(at: $0, field: 0)) }))
        }
        func entityID(of player: UInt32, in world: World) -> UInt32? { world.x[player] == nil ? nil : player }
        func encode(_ input: Int8) -> [UInt8] { [UInt8(bitPattern: input)] }
        func decodeInput(_ bytes: [UInt8]) -> Int8? { bytes.count == 1 ? Int8(bitPattern: bytes[0]) : nil }
    }

    // MARK: The article's server, client and HTTP handler, compiled but not run

    /// `EmbeddingTickwire.md`'s server and client (they serve port 7777 and connect to a host
    /// named `server` until stopped). `MyGame` is `Dots`; the helpers stand in for a game's own.
    static func articleServerAndClient(shouldStop: Bool) throws {
        typealias MyGame = Dots
        func showStatus(_ state: ConnectionState) {}
        func readInput() -> Int8 { 1 }
        func draw(_ view: WorldView?) {}

        // Server: rooms, handshakes, per-client delta baselines, compression, backpressure,
        // resumption and interest management are the host's work.
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "0.0.0.0", port: 7777))
        var configuration = HostConfiguration()
        configuration.rooms = ["main"]  // a client's URL path picks its room
        let host = Host(game: MyGame(), listener: listener, clock: MonotonicClock(), configuration: configuration)
        host.run(until: { shouldStop })

        // Client: a session that reconnects with backoff and jitter, resumes its player after a
        // loss, and stops for good when the server refuses it (a schema mismatch, say).
        let url = try WebSocketURL("ws://server:7777/main")
        let client = ReconnectingSession(game: MyGame(), clock: MonotonicClock()) {
            try WebSocketClientTransportConnection(url: url)
        }
        client.onStateChange = { state in showStatus(state) }  // .connecting(attempt:), .connected(resumed:), …

        // Driven in real time at the server's tick rate: input every tick, render every frame, with
        // the remote entities interpolated and the local player predicted. driver.stop() (from any
        // thread) ends the run; `await driver.run(...)` is the form for Swift concurrency, ended
        // also by cancelling its task.
        let driver = ClientDriver(frameRate: 60)
        driver.run(client, input: { _ in readInput() }, render: { view in draw(view) })
    }

    /// `EmbeddingTickwire.md`'s plain-HTTP handler beside the game.
    static func articleHTTPHandler() throws -> WebSocketTransportServer {
        var configuration = WebSocketServerConfiguration(host: "0.0.0.0", port: 7777)
        configuration.httpHandler = { request in
            request.target == "/health" ? .text(status: 200, "ok") : .text(status: 404, "not found")
        }
        let listener = try WebSocketTransportServer(configuration: configuration)
        return listener
    }

    /// `EmbeddingTickwire.md`'s WebSocket and UDP clients in the same rooms (compiled, not run: it binds fixed ports).
    static func articleUDPBesideWebSocket(token: ConnectToken) throws {
        typealias MyGame = Dots
        let key = NetcodeKey.random()  // shared with whatever mints the connect tokens
        let udp = try UDPTransportServer(
            configuration: UDPTransportServerConfiguration(
                address: SocketAddress(numericHost: "127.0.0.1", port: 7778)!, protocolID: 0x5449_434B, privateKey: key))
        let webSocket = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 7777))
        let host = Host(game: MyGame(), listener: CombinedTransportListener([webSocket, udp]), clock: MonotonicClock())

        // A UDP client connects with a connect token sealed with the same key.
        let connection = try UDPClientTransportConnection(token: token, requestPath: "/main")
        print(connection.statistics.roundTripTime, connection.statistics.packetLoss)
        _ = host
    }

    @Test(
        "every line of the code blocks of EmbeddingTickwire.md and TestingTickByTick.md is compiled here or in CodecExampleTests.swift",
        arguments: ["Sources/Tickwire/Tickwire.docc/EmbeddingTickwire.md", "Sources/Tickwire/Tickwire.docc/TestingTickByTick.md"])
    func articleMatchesTheseFiles(article: String) throws {
        let codecTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("CodecExampleTests.swift")
        let source = try trimmedLines(ofSourceAt: #filePath).union(try trimmedLines(ofSourceAt: codecTests.path))
        // A block that elides code (a line that is only "…") shows a shape, not a program: it is not compiled.
        let blocks = try swiftBlocks(inMarkdownAt: article).filter { !$0.contains("…") }
        #expect(!blocks.isEmpty, "\(article) should hold Swift blocks to check")
        let missing = blocks.flatMap { $0 }.filter { !source.contains($0) }
        #expect(missing.isEmpty, "these lines of \(article) are not compiled by a test: \(missing)")
    }

    // MARK: Tests

    @Test("a player walking right over a 100 ms link sees itself where the server has it")
    func tickSimulation() throws {
        let simulation = TickSimulation(game: Dots(), seed: 1)
        let link = LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(20))
        let walker = simulation.addClient(upstream: link, downstream: link, input: { _, tick in tick < 40 ? 1 : 0 })
        simulation.run(for: .seconds(4))
        let seen = simulation.clients[walker].render()  // compare with simulation.room.state

        let client = simulation.clients[walker]
        let id = try #require(client.clientID)
        let serverX = try #require(simulation.room.state.x[id])
        let seenX = try #require(seen?.entity(id: id)?.values[0])
        #expect(serverX > 60, "40 ticks of walking at 10 units/s from 50 end near 70, at \(serverX)")
        #expect(abs(seenX - serverX) <= 0.01, "the client shows \(seenX), the server has \(serverX)")
    }

    @Test("over a 100 ms path losing 2% of its TCP segments, a player sees a few percent of frames extrapolated")
    func lossyPath() {
        let simulation = TickSimulation(game: Dots(), seed: 1) { $0.tickRate = 30 }
        let path = LinkConditions(latency: .milliseconds(50), delivery: .reliable, lossRate: 0.02)
        let player = simulation.addClient(upstream: path, downstream: path)
        simulation.run(for: .seconds(60))
        let share = simulation.clients[player].metrics.extrapolatedShare  // a few percent over TCP

        #expect(simulation.connections[player].segmentsRetransmitted > 0, "the client's own segments were lost and resent too")
        #expect((0.005...0.15).contains(share), "TCP's retransmissions should starve the view now and then, not \(share)")
    }

    @Test("the same game over real WebSockets on 127.0.0.1, as the article's server and client snippet")
    func overWebSockets() throws {
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { listener.shutdown(timeout: .seconds(1)) }
        let port = try #require(listener.address?.port)
        let clock = MonotonicClock()
        let host = Host(game: Dots(), listener: listener, clock: clock)
        let session = ClientSession(game: Dots(), clock: clock)
        session.connect(over: try WebSocketClientTransportConnection(url: WebSocketURL("ws://127.0.0.1:\(port)/")))
        defer { session.leave() }
        // Drive both from this thread until the client sees its own dot, for 10 s at most.
        let deadline = clock.now + .seconds(10)
        var seen: EntityView?
        while clock.now < deadline && seen == nil {
            host.advance()
            session.tick(input: 1)
            if let id = session.clientID { seen = session.render()?.entity(id: id) }
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        let dot = try #require(seen, "the client did not see its dot within 10 s")
        #expect(dot.values[0] >= 50, "the dot starts at 50 and walks right")
    }

    @Test("the article's reconnecting client, run by the real-time driver, over real WebSockets on 127.0.0.1")
    func reconnectingClientAndDriver() throws {
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { listener.shutdown(timeout: .seconds(1)) }
        let port = try #require(listener.address?.port)
        let clock = MonotonicClock()
        let host = Host(game: Dots(), listener: listener, clock: clock)

        // As in the article (the article's clock is a MonotonicClock of its own).
        let url = try WebSocketURL("ws://127.0.0.1:\(port)/")
        let client = ReconnectingSession(game: Dots(), clock: clock) {
            try WebSocketClientTransportConnection(url: url)
        }
        var states: [ConnectionState] = []
        client.onStateChange = { state in states.append(state) }
        defer { client.leave() }
        let driver = ClientDriver(frameRate: 60)
        var seen: EntityView?
        var frames = 0
        // Until the client sees its own dot, for 10 s at most; the host advances on this thread, every client tick.
        let deadline = clock.now + .seconds(10)
        driver.run(
            client, until: { seen != nil || clock.now > deadline },
            input: { _ in
                host.advance()
                return 1
            },
            render: { view in
                frames += 1
                if let id = client.session.clientID { seen = view?.entity(id: id) }
            })
        let dot = try #require(seen, "the client did not see its dot within 10 s (state \(client.state))")
        #expect(dot.values[0] >= 50, "the dot starts at 50 and walks right")
        #expect(states.contains(.connected(resumed: false)), "the state went to connected: \(states)")
        #expect(frames > 0)
    }
}

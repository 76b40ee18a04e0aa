import Foundation
import Testing
import Tickwire

/// The DocC article `Sources/Tickwire/Tickwire.docc/GettingStarted.md`, compiled: `Dots` and the
/// server and client lines are the article's, character for character (keep them so), and the
/// tests run them over the simulated network and over real WebSockets on 127.0.0.1.
@Suite("Getting Started article")
struct GettingStartedArticleTests {
    // MARK: The article's code

    struct Dots: Game {
        typealias State = [UInt32: Double]  // each player's x
        typealias Input = Int8  // -1, 0 or +1
        let schema: Schema
        init() throws { schema = try Schema([EntityType("dot", fields: [Field("x", .float(min: 0, max: 100, resolution: 0.01))])]) }

        func makeWorld(room: String) -> State { [:] }
        func step(_ dots: State, inputs: [UInt32: Int8], dt: Double) -> State {
            dots.reduce(into: [:]) { next, dot in next[dot.key] = min(100, max(0, dot.value + Double(inputs[dot.key] ?? 0) * 10 * dt)) }
        }
        func addPlayer(_ player: UInt32, to dots: State) -> State { dots.merging([player: 50]) { old, _ in old } }
        func removePlayer(_ player: UInt32, from dots: State) -> State { dots.filter { $0.key != player } }
        func capture(_ dots: State, into snapshot: inout Snapshot) throws(SnapshotError) {
            for (id, x) in dots.sorted(by: { $0.key < $1.key }) { snapshot.set(x, at: try snapshot.insert(id: id, type: 0), field: 0) }
        }
        func restore(from snapshot: Snapshot) -> State {
            State(uniqueKeysWithValues: snapshot.indices.map { (snapshot.id(at: $0), snapshot.double(at: $0, field: 0)) })
        }
        func entityID(of player: UInt32, in dots: State) -> UInt32? { dots[player] == nil ? nil : player }
        func encode(_ input: Int8) -> [UInt8] { [UInt8(bitPattern: input)] }
        func decodeInput(_ bytes: [UInt8]) -> Int8? { bytes.count == 1 ? Int8(bitPattern: bytes[0]) : nil }
    }

    /// The article's server, compiled but not run (it serves port 7777 until `shouldStop`).
    static func articleServer(shouldStop: Bool) throws {
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "0.0.0.0", port: 7777))
        var configuration = HostConfiguration()
        configuration.rooms = ["main"]
        let host = Host(game: try Dots(), listener: listener, clock: MonotonicClock(), configuration: configuration)
        host.run(until: { shouldStop })
    }

    /// The article's client, compiled but not run (it connects to port 7777 and plays until `quitting`).
    static func articleClient(quitting: Bool) throws -> Double? {
        var seenX: Double?
        func draw(_ view: WorldView?, _ x: FieldKey<Double>) { seenX = view?.entities.first?[x] }
        let url = try WebSocketURL("ws://127.0.0.1:7777/main")
        let client = ReconnectingSession(game: try Dots(), clock: MonotonicClock()) { try WebSocketClientTransportConnection(url: url) }
        let x = try Dots().schema.key("x", as: Double.self)  // a field by name, resolved once
        ClientDriver(frameRate: 60).run(client, until: { quitting }, input: { _ in 1 }, render: { view in draw(view, x) })
        client.leave()  // the host frees your dot at once
        return seenX
    }

    // MARK: Tests

    @Test("every line of the article's code blocks is in this file, so the article compiles")
    func articleMatchesThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Tickwire/Tickwire.docc/GettingStarted.md"), encoding: .utf8)
        let source = Set(
            try String(contentsOf: here, encoding: .utf8).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        var inCode = false
        var codeLines: [String] = []
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inCode && !trimmed.isEmpty { codeLines.append(trimmed) }
        }
        #expect(codeLines.count >= 25, "the article should hold its code blocks, found \(codeLines.count) lines")
        #expect(codeLines.count <= 32, "the article promises a game in 32 lines, it has \(codeLines.count)")
        for line in codeLines {
            #expect(source.contains(line), "the article's line `\(line)` is not in GettingStartedArticleTests.swift")
        }
    }

    @Test("Dots played on a simulated 60 ms link: a walker ends where the server has it, within the line")
    func simulated() throws {
        let simulation = TickSimulation(game: try Dots(), seed: 7)
        let link = LinkConditions(latency: .milliseconds(60), jitter: .milliseconds(10))
        let walker = simulation.addClient(upstream: link, downstream: link, input: { _, tick in tick < 30 ? 1 : 0 })
        simulation.run(for: .seconds(3))
        let client = simulation.clients[walker]
        let id = try #require(client.clientID, "the walker should have been welcomed")
        let serverX = try #require(simulation.room.state[id])
        let x = try Dots().schema.key("x", as: Double.self)
        let seenX = try #require(client.render()?.entity(id: id)?[x])
        #expect(serverX > 55 && serverX <= 100, "30 ticks at 10 units/s from 50 end near 60, at \(serverX)")
        #expect(abs(seenX - serverX) <= 0.01, "the client shows \(seenX), the server has \(serverX)")
    }

    @Test(
        "the article's server, reconnecting client and driver over real WebSockets on 127.0.0.1: the client joins room main by its URL and sees its dot"
    )
    func overWebSockets() throws {
        // The article's lines with port 0 for port 7777, driven from this thread with advance().
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "127.0.0.1", port: 0))
        defer { listener.shutdown(timeout: .seconds(1)) }
        let port = try #require(listener.address?.port, "the server should report its bound port")
        let clock = MonotonicClock()
        var configuration = HostConfiguration()
        configuration.rooms = ["main"]
        let host = Host(game: try Dots(), listener: listener, clock: clock, configuration: configuration)
        let url = try WebSocketURL("ws://127.0.0.1:\(port)/main")
        let client = ReconnectingSession(game: try Dots(), clock: clock) { try WebSocketClientTransportConnection(url: url) }
        defer { client.leave() }
        // The article's driver, stopped once the client sees its dot (or after 10 s); the host
        // is advanced from the same thread between ticks.
        let driver = ClientDriver(frameRate: 60)
        let deadline = clock.now + .seconds(10)
        var me: EntityView?
        driver.run(
            client, until: { me != nil || clock.now >= deadline },
            input: { _ in
                host.advance()
                return 1
            },
            render: { view in me = client.session.clientID.flatMap { view?.entity(id: $0) } })
        let dot = try #require(me, "the client did not see its dot within 10 s")
        let x = try #require(dot[try Dots().schema.key("x", as: Double.self)], "a dot has an x")
        #expect(x >= 50 && x <= 100, "the dot starts at 50 and walks right, at \(x)")
        #expect(client.session.room == "main", "the URL's path /main picks the room, not the default room")
        #expect(host.room(named: "main")?.state[dot.id] != nil, "the host has the dot in room main")
    }
}

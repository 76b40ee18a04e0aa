import Foundation
import Testing
import Tickwire

/// README.md's Swift example, compiled: `Dots` and the server, client and test lines are the
/// README's, character for character (keep them so: `readmeMatchesThisFile` checks every line),
/// and the tests run them on the simulated network and over real WebSockets on 127.0.0.1.
@Suite("README example")
struct ReadmeExampleTests {
    // MARK: The README's code

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

    /// The README's server, compiled but not run (it serves port 7777 until `shouldStop`).
    static func readmeServer(shouldStop: Bool) throws {
        // Server: rooms at a fixed tick, each client sent a delta against its last acknowledged snapshot.
        let listener = try WebSocketTransportServer(configuration: WebSocketServerConfiguration(host: "0.0.0.0", port: 7777))
        var configuration = HostConfiguration()
        configuration.rooms = ["main"]
        let host = Host(game: try Dots(), listener: listener, clock: MonotonicClock(), configuration: configuration)
        host.run(until: { shouldStop })
    }

    /// The README's client, compiled but not run (it connects to port 7777 and plays until stopped).
    static func readmeClient() throws -> EntityView? {
        var me: EntityView?
        func draw(_ view: WorldView?) { me = view?.entities.first }
        // Client: the URL's path picks the room; reconnects with backoff, interpolates, predicts its own dot.
        let url = try WebSocketURL("ws://127.0.0.1:7777/main")
        let client = ReconnectingSession(game: try Dots(), clock: MonotonicClock()) { try WebSocketClientTransportConnection(url: url) }
        ClientDriver(frameRate: 60).run(client, input: { _ in 1 }, render: { view in draw(view) })
        return me
    }

    // MARK: Tests

    @Test("the README's test: a walker on a simulated 100 ms link sees itself where the server has it")
    func simulated() throws {
        // Test: the same game on a virtual clock over a seeded 100 ms link, deterministic.
        let simulation = TickSimulation(game: try Dots(), seed: 1)
        let link = LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(20))
        let walker = simulation.addClient(upstream: link, downstream: link, input: { _, tick in tick < 40 ? 1 : 0 })
        simulation.run(for: .seconds(4))
        let seen = simulation.clients[walker].render()  // where walker sees itself: where the server has it

        let id = try #require(simulation.clients[walker].clientID, "the walker should have been welcomed")
        let serverX = try #require(simulation.room.state[id], "the server should hold the walker's dot")
        let seenX = try #require(seen?.entity(id: id)?.values[0], "the walker should see its own dot")
        #expect(serverX > 60 && serverX <= 100, "40 ticks at 10 units/s from 50 end near 63, at \(serverX)")
        #expect(abs(seenX - serverX) <= 0.01, "the client shows \(seenX), the server has \(serverX)")
    }

    @Test("the README's server and client over real WebSockets on 127.0.0.1: the client sees its dot")
    func overWebSockets() throws {
        // The README's lines with port 0 for port 7777, driven from this thread with advance().
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
        let deadline = clock.now + .seconds(10)
        var me: EntityView?
        ClientDriver(frameRate: 60).run(
            client, until: { me != nil || clock.now >= deadline },
            input: { _ in
                host.advance()
                return 1
            },
            render: { view in me = client.session.clientID.flatMap { view?.entity(id: $0) } })
        let dot = try #require(me, "the client did not see its dot within 10 s")
        #expect(dot.values[0] >= 50 && dot.values[0] <= 100, "the dot starts at 50 and walks right, at \(dot.values[0])")
    }

    @Test("README.md stays short enough to read in five minutes: at most 300 lines")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 300, "README.md has \(lines) lines; move the detail into a DocC article")
    }

    @Test("every line of README.md's Swift example is in this file, and its manifest names the newest release")
    func readmeMatchesThisFile() throws {
        let changelog = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let source = try trimmedLines(ofSourceAt: #filePath)
        let blocks = try swiftBlocks(inMarkdownAt: "README.md")

        // The manifest snippet cannot be compiled here; its version must be the newest release.
        let manifests = blocks.filter { $0.first == "// Package.swift" }
        let examples = blocks.filter { $0.first != "// Package.swift" }
        let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let version = try #require(
            released.flatMap { $0.split(separator: "[").dropFirst().first?.split(separator: "]").first },
            "CHANGELOG.md should have a released version under a `## [X.Y.Z] - date` heading")
        #expect(manifests.count == 1, "the README should show one Package.swift snippet, found \(manifests.count)")
        for manifest in manifests {
            #expect(
                manifest.contains { $0.contains("from: \"\(version)\"") },
                "the README's Package.swift snippet should depend on \(version), the newest release in CHANGELOG.md")
        }

        let codeLines = examples.flatMap { $0 }
        #expect(examples.count == 1, "the README should hold one Swift example block, found \(examples.count)")
        #expect(codeLines.count >= 25 && codeLines.count <= 40, "the README promises about 30 lines, it has \(codeLines.count)")
        let missing = codeLines.filter { !source.contains($0) }
        #expect(missing.isEmpty, "these lines of the README's example are not in ReadmeExampleTests.swift: \(missing)")
    }
}

import Foundation
import Testing
import Tickwire

/// The DocC article `Sources/Tickwire/Tickwire.docc/PlayersAndIdentity.md`, compiled: its code
/// blocks' lines are in this file, character for character (keep them so), and the tests run
/// the two-player `Tag` on the simulated network: the third player refused, a kick final, the
/// host's events heard.
@Suite("Players and Identity article")
struct PlayersAndIdentityArticleTests {
    // MARK: The article's code

    struct Tag: Game {
        typealias State = [UInt32: Double]  // each player's x
        typealias Input = Int8  // -1, 0 or +1
        static let tableFull = Message.Reject.Reason(rawValue: 32768)
        let schema: Schema
        init() throws { schema = try Schema([EntityType("runner", fields: [Field("x", .float(min: 0, max: 100, resolution: 0.01))])]) }

        func admit(_ request: AdmissionRequest, in state: State) -> Admission {
            guard state.count < 2 || request.isResuming else {
                return .refused(Tag.tableFull, text: "tag is a game for two; try another room")
            }
            return .admitted
        }
        // schema, makeWorld, step, addPlayer… as before
        func makeWorld(room: String) -> State { [:] }
        func step(_ runners: State, inputs: [UInt32: Int8], dt: Double) -> State {
            runners.reduce(into: [:]) { next, runner in
                next[runner.key] = min(100, max(0, runner.value + Double(inputs[runner.key] ?? 0) * 10 * dt))
            }
        }
        func addPlayer(_ player: UInt32, to runners: State) -> State { runners.merging([player: 50]) { old, _ in old } }
        func removePlayer(_ player: UInt32, from runners: State) -> State { runners.filter { $0.key != player } }
        func capture(_ runners: State, into snapshot: inout Snapshot) throws(SnapshotError) {
            for (id, x) in runners.sorted(by: { $0.key < $1.key }) { snapshot.set(x, at: try snapshot.insert(id: id, type: 0), field: 0) }
        }
        func restore(from snapshot: Snapshot) -> State {
            State(uniqueKeysWithValues: snapshot.indices.map { (snapshot.id(at: $0), snapshot.double(at: $0, field: 0)) })
        }
        func entityID(of player: UInt32, in runners: State) -> UInt32? { runners[player] == nil ? nil : player }
        func encode(_ input: Int8) -> [UInt8] { [UInt8(bitPattern: input)] }
        func decodeInput(_ bytes: [UInt8]) -> Int8? { bytes.count == 1 ? Int8(bitPattern: bytes[0]) : nil }
    }

    /// The article's upgrade check, compiled (the server is not started).
    static func articleAcceptHook(secret: String) -> WebSocketServerConfiguration {
        var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shouldAccept = { request in
            request.header("Authorization") == "Bearer \(secret)" ? .accept : .reject(status: 401, reason: "sign in again")
        }
        return configuration
    }

    /// The article's matchmaker client, compiled but not run (it asks a matchmaker on port 7777).
    static func articleMatchmaker() async throws -> ReconnectingSession<Tag> {
        let matchmaker = try Matchmaker(url: "http://127.0.0.1:7777")
        let options: [String: JSONValue] = ["name": .string("ada")]
        let client = try await matchmaker.joinOrCreateSession("tag", options: options, game: try Tag(), clock: MonotonicClock())
        client.tick(input: nil)  // joins the seat's room with its token, resumes after a loss
        return client
    }

    /// The article's connect tokens, compiled: an issuer's token in the client's first hello, a host that requires one.
    static func articleTokens(
        fleetKey: NetcodeKey, protocolID: UInt64, udpAddress: NetcodeAddress
    ) throws -> (ClientConfiguration, HostConfiguration) {
        var clientConfiguration = ClientConfiguration()
        var hostConfiguration = HostConfiguration()
        let issuer = ConnectTokenIssuer(key: fleetKey, protocolID: protocolID)
        let token = try issuer.issue(userID: 42, room: "tag", displayName: "Ada", serverAddresses: [udpAddress], lifetimeSeconds: 30)
        clientConfiguration.connectToken = token.helloToken
        hostConfiguration.requiresTokens = true
        hostConfiguration.tokenVerifier = NetcodeConnectTokenVerifier(key: fleetKey, protocolID: protocolID)
        return (clientConfiguration, hostConfiguration)
    }

    /// The article's kicks, compiled (Foundation has a `Host` of its own: the host is the simulation's).
    static func articleKicks(in simulation: TickSimulation<Tag>, player: UInt32, idler: UInt32) {
        let host = simulation.host
        host.room(named: "tag")?.kick(player, text: "no tagging from behind the wall")  // gone for good
        host.room(named: "tag")?.kick(idler, text: "idle for 2 minutes", allowRejoin: true)  // may come back
    }

    // MARK: Tests

    @Test("every line of the article's code blocks is in this file, so the article compiles")
    func articleMatchesThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Tickwire/Tickwire.docc/PlayersAndIdentity.md"), encoding: .utf8)
        // Trimmed, and with runs of spaces as one, so that aligned comments still match.
        func normalized(_ line: some StringProtocol) -> String {
            line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        let source = Set(try String(contentsOf: here, encoding: .utf8).split(separator: "\n").map(normalized))
        var inCode = false
        var codeLines: [String] = []
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            let line = normalized(line)
            if inCode && !line.isEmpty { codeLines.append(line) }
        }
        #expect(codeLines.count >= 20, "the article should hold its code blocks, found \(codeLines.count) lines")
        for line in codeLines {
            #expect(source.contains(line), "the article's line `\(line)` is not in PlayersAndIdentityArticleTests.swift")
        }
    }

    @Test("Tag's admit, called as a game's own test would: two seats, and a resume always admitted")
    func admitAlone() throws {
        let tag = try Tag()
        #expect(tag.admit(AdmissionRequest(player: 2, room: "tag"), in: [1: 50]).isAdmitted)
        #expect(!tag.admit(AdmissionRequest(player: 3, room: "tag"), in: [1: 50, 2: 50]).isAdmitted)
        #expect(tag.admit(AdmissionRequest(player: 2, room: "tag", isResuming: true), in: [1: 50, 2: 50]).isAdmitted)
    }

    @Test("Tag seats two; the third is refused for good with the game's words; a final kick frees a seat; the events keep count")
    func tagForTwo() throws {
        let simulation = TickSimulation(game: try Tag()) { $0.rooms = ["tag"] }
        let host = simulation.host
        var seated: Set<UInt32> = []
        host.onEvent = { event in
            guard let player = event.clientID else { return }  // a refused newcomer has no number
            if event.kind == .joined { seated.insert(player) }
            if event.kind == .left { seated.remove(player) }  // event.departure says why
        }
        for _ in 0..<3 {
            simulation.addReconnectingClient(configure: { $0.room = "tag" })
            simulation.run(for: .milliseconds(200))
        }
        let third = try #require(simulation.reconnectingClients[2])
        #expect(third.state == .refused(reason: Tag.tableFull, text: "tag is a game for two; try another room"))
        #expect(seated.count == 2, "two seated: \(seated)")

        let player = try #require(simulation.clients[0].clientID)
        let idler = try #require(simulation.clients[1].clientID)
        Self.articleKicks(in: simulation, player: player, idler: idler)
        simulation.run(for: .seconds(5))
        #expect(simulation.reconnectingClients[0]?.state == .kicked(text: "no tagging from behind the wall"))
        #expect(simulation.reconnectingClients[1]?.state == .connected(resumed: false), "the idler came back")
        let back = try #require(simulation.clients[1].clientID)
        #expect(back != idler, "as a new player")
        #expect(seated == [back], "the events kept the count: \(seated)")
        #expect(Self.articleAcceptHook(secret: "s3cret").shouldAccept != nil)
    }

    @Test("the article's token: the client's hello carries it, the host requires tokens and can check them")
    func articleTokensCompile() throws {
        let (client, host) = try Self.articleTokens(
            fleetKey: .random(), protocolID: 7, udpAddress: NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40_000))
        #expect(client.connectToken != nil)
        #expect(host.requiresTokens && host.tokenVerifier != nil)
    }
}

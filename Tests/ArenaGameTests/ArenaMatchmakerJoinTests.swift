import Dispatch
import Glibc
import Synchronization
import Testing
import Tickwire

@testable import ArenaGame

/// `arena join --matchmaker`: ``ArenaClient/MatchmakerJoin`` asks a matchmaker for a seat and the
/// client plays through it on a real `arena serve` that requires tokens; the options `arena join`
/// documents are the ones it reads.
@Suite("arena join --matchmaker")
struct ArenaMatchmakerJoinTests {
    /// A FAKE matchmaker for this test only (the real one is the server's `MatchmakerService`):
    /// every `POST /matchmake/…` gets a seat in `room` with a real token sealed with `key`.
    final class FakeMatchmakerEndpoint {
        let server: WebSocketServer
        let port: Int
        let targets = Targets()

        final class Targets: Sendable {
            let seen = Mutex<[String]>([])
        }

        init(key: NetcodeKey, room: String, webSocketURL: String) throws {
            let issuer = ConnectTokenIssuer(key: key, protocolID: ArenaUDP.protocolID)
            var configuration = WebSocketServerConfiguration(host: "127.0.0.1", port: 0)
            let targets = targets
            configuration.httpHandler = { head in
                targets.seen.withLock { $0.append("\(head.method) \(head.target)") }
                do {
                    let token = try issuer.issue(
                        userID: (UInt64(1) << 63) + 9, room: room, displayName: "ada#9",
                        serverAddresses: [NetcodeAddress(ipv4: 127, 0, 0, 1, port: 1)], lifetimeSeconds: 600)
                    let hello =
                        (0..<8).map { UInt8(truncatingIfNeeded: token.expireTimestamp >> (56 - 8 * $0)) } + token.nonce
                        + token.encryptedPrivateData
                    let seat: JSONValue = .object([
                        "room": .string(room), "mode": .string("arena"), "isNewRoom": .bool(false),
                        "urls": .object(["ws": .string(webSocketURL)]), "token": .string(Hex.text(token.serialized())),
                        "helloToken": .string(Hex.text(hello)), "expiresIn": .number(30), "userId": .string("9223372036854775817"),
                        "displayName": .string("ada#9"),
                    ])
                    return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(seat.text.utf8))
                } catch {
                    return .text(status: 500, "the fake could not mint a token: \(error)")
                }
            }
            server = try WebSocketServer(configuration: configuration) { _ in }
            port = try server.start().port
        }

        deinit { server.shutdown(timeout: .seconds(1)) }
    }

    @Test("the client asks for a seat (joinById with a room) and is welcomed there with its token by a server requiring tokens")
    func playsThroughTheSeat() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let keyPath = directory + "/udp.key"
        defer { unlink(keyPath) }
        var serverOptions = ArenaServer.Options()
        serverOptions.port = 0
        serverOptions.udpPort = nil
        serverOptions.bots = 0
        serverOptions.udpKeyPath = keyPath
        serverOptions.requiresTokens = true
        let running = try RunningArenaServer(serverOptions)
        defer { running.stop() }
        let url = "ws://127.0.0.1:\(running.server.port)/main"
        let fake = try FakeMatchmakerEndpoint(key: try ArenaUDP.key(at: keyPath), room: "main", webSocketURL: url)
        let matchmaker = try Matchmaker(url: "http://127.0.0.1:\(fake.port)")
        let join = try ArenaClient.MatchmakerJoin.ask(matchmaker, mode: "arena", room: "main", name: "ada")
        let seen = fake.targets.seen.withLock { $0 }
        #expect(seen == ["POST /matchmake/joinById/main"], "--room asks joinById")
        #expect(join.options == ["name": .string("ada")], "--name is sent as the name option")

        var options = ArenaClient.Options(url: try WebSocketURL(try #require(join.seat.webSocketURL)), name: "ada")
        options.matchmaker = join
        let client = ArenaClient(options: options)
        defer { client.leave() }
        #expect(client.connection.rejoiner != nil, "the session asks the matchmaker again past the grace period")
        let clock = MonotonicClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline, client.connectionState != .connected(resumed: false) {
            client.tick(input: .idle)
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        #expect(
            client.connectionState == .connected(resumed: false), "welcomed with the seat's token: \(client.connection.lastFailure ?? "")")
        #expect(client.session.room == "main")
        #expect(client.session.connectToken == nil, "the seat's token was spent by the welcome")
    }

    @Test("arena join --help documents --matchmaker, --mode, --room and --bearer")
    func help() {
        let usage = ArenaCommands.join.usage
        for option in ["--matchmaker http://HOST:PORT", "--mode M", "--room R", "--bearer TOKEN"] {
            #expect(usage.contains(option), "arena join --help lists \(option)")
        }
    }
}

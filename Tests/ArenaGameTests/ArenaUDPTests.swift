import Dispatch
import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireUDPTransport
import TickwireWebSocket

@testable import ArenaGame

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The arena over UDP")
struct ArenaUDPTests {
    @Test("a guest token from GET /udp-token lets `arena join udp://…` play in room main beside the bots")
    func joinOverUDP() throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = 0
        options.bots = 1
        options.tickThreads = 1
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        let port = running.server.port
        let udpPort = try #require(running.server.udpPort, "the server should bind a UDP port")
        let token = try ConnectTokenFetch.fetch(host: "127.0.0.1", port: port, path: ArenaUDP.tokenPath)
        #expect(token.protocolID == ArenaUDP.protocolID)
        #expect(token.serverAddresses == [NetcodeAddress(ipv4: 127, 0, 0, 1, port: UInt16(udpPort))], "the token names the UDP port")
        #expect(token.expireTimestamp - token.createTimestamp == ArenaUDP.tokenLifetime)

        var url = try ArenaUDPURL("udp://127.0.0.1:\(udpPort)/main")
        url.tokenPort = port
        var clientOptions = ArenaClient.Options(url: try WebSocketURL(url.webSocketURL), name: "udp")
        clientOptions.udp = url
        let client = ArenaClient(options: clientOptions)
        defer { client.leave() }
        let clock = MonotonicClock()
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, (client.session.latestSnapshot?.tick ?? 0) < 10 || client.session.clientID == nil {
            client.tick(input: ArenaInput(moveX: 0, moveY: 0, fires: false))
            clock.sleep(until: clock.now + .milliseconds(20))
        }
        let snapshot = try #require(client.session.latestSnapshot, "the UDP client should receive snapshots within 5 s")
        let me = try #require(client.session.clientID)
        #expect(snapshot.index(of: me) != nil, "the client's own player is in the snapshot")
        #expect(snapshot.count >= 2, "the bot is there too: \(snapshot.count) entities")
        #expect(client.connection.connection is UDPClientTransportConnection, "the session plays over UDP")
    }

    @Test("the UDP key file is made on first start (owner-only), read back the same, and refused when malformed")
    func keyFile() throws {
        let directory = try ArenaStateFileTests.temporaryDirectory()
        defer { rmdir(directory) }
        let path = directory + "/udp.key"
        defer { unlink(path) }
        let made = try ArenaUDP.key(at: path)
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600, "the key file is readable by its owner only")
        #expect(try ArenaUDP.key(at: path) == made, "the second start reads the same key")
        let bad = directory + "/bad.key"
        defer { unlink(bad) }
        try HostStateFile.write(Array("not a key\n".utf8), to: bad)
        #expect(throws: SystemError.self, "a malformed key file is refused") { try ArenaUDP.key(at: bad) }
    }

    @Test("udp:// URLs parse with their room and default token port, and bad ones say why")
    func urls() throws {
        let url = try ArenaUDPURL("udp://example.org:7778/arena")
        #expect(url.host == "example.org" && url.port == 7778 && url.path == "/arena" && url.tokenPort == 7777)
        #expect(url.webSocketURL == "ws://example.org:7777/arena")
        #expect(try ArenaUDPURL("udp://[::1]:9000").description == "udp://[::1]:9000/")
        #expect(throws: ArenaUDPURL.ParseError.self) { try ArenaUDPURL("ws://host:1/main") }
        #expect(throws: ArenaUDPURL.ParseError.self) { try ArenaUDPURL("udp://host/main") }
    }
}

import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO
import TickwireNetcode
import TickwireSimTestSupport

@testable import TickwireSim
@testable import TickwireUDPTransport

/// Two hosts of a fleet on one ``InMemoryDirectoryStore``, each with a UDP server on 127.0.0.1
/// (port 0) sealed with the fleet's one key, and a reconnecting UDP client that enters through
/// the first: the client opens a guest token's connection at its entry and follows every other
/// `udp://` URL with the token its server handed over (PROTOCOL.md 1A.11).
private final class UDPFleet {
    static let entry = 0
    let clock = MonotonicClock()
    let game = DotsGame(orbCount: 2)
    let store: InMemoryDirectoryStore
    let key = NetcodeKey.random()
    var servers: [UDPTransportServer] = []
    var hosts: [Host<DotsGame>] = []
    var directories: [InMemoryRoomDirectory] = []
    /// The client's newest UDP connection.
    var lastConnection: UDPClientTransportConnection?

    init() throws {
        store = InMemoryDirectoryStore(clock: clock)
        for index in 0..<2 {
            let server = try UDPTransportServer(
                configuration: UDPTransportServerConfiguration(
                    address: try requireAddress("127.0.0.1", 0), protocolID: UDPTestServer.protocolID, privateKey: key))
            let udpURL = "udp://\(try #require(server.publicAddresses.first))"
            let directory = store.directory(forProcess: "p\(index)", publicURL: Self.url(index), udpURL: udpURL)
            var configuration = HostConfiguration()
            configuration.createsRoomsOnDemand = true
            configuration.tickRate = 30
            configuration.tokenSeed = UInt64(index + 1) * 0x9E37_79B9
            servers.append(server)
            directories.append(directory)
            hosts.append(Host(game: game, listener: server, clock: clock, configuration: configuration, directory: directory))
        }
    }

    deinit {
        for server in servers { server.shutdown() }
    }

    static func url(_ index: Int) -> String { "ws://127.0.0.1:\(7000 + index)" }

    /// The `udp://` URL of host `index`'s server.
    func udpURL(_ index: Int) -> String { "udp://\(servers[index].publicAddresses[0])" }

    /// A client of `room` entering through host ``entry`` over UDP.
    func client(room: String) -> ReconnectingSession<DotsGame> {
        var configuration = ClientConfiguration()
        configuration.room = room
        let entryURL = udpURL(Self.entry)
        let entryAddresses = servers[Self.entry].publicAddresses
        let key = self.key
        let session = ReconnectingSession(
            game: game, clock: clock, configuration: configuration, entryURLs: [entryURL],
            policy: ReconnectPolicy(baseDelay: .milliseconds(100), maximumDelay: .milliseconds(500))
        ) { [weak self] url in
            let connection: UDPClientTransportConnection
            if url == entryURL {
                connection = try UDPClientTransportConnection(token: Self.guestToken(key: key, addresses: entryAddresses))
            } else {
                let previous = try #require(self?.lastConnection, "a redirect to \(url) before any UDP connection")
                connection = try previous.followingHandover(to: url)
            }
            self?.lastConnection = connection
            return connection
        }
        session.start()
        return session
    }

    static func guestToken(key: NetcodeKey, addresses: [NetcodeAddress]) throws -> ConnectToken {
        let now = UInt64(UDPClock.unixSeconds())
        let privatePart = try ConnectTokenPrivate(
            clientID: 4242, timeoutSeconds: 5, serverAddresses: addresses, clientToServerKey: NetcodeKey.random(),
            serverToClientKey: NetcodeKey.random(), userData: Array(repeating: 3, count: Netcode.userDataBytes))
        return try ConnectToken.generate(
            privatePart, protocolID: UDPTestServer.protocolID, createTimestamp: now, expireTimestamp: now + 30, privateKey: key)
    }

    /// Runs both hosts and the client in real time until `done` holds or 5 s pass.
    func run(_ client: ReconnectingSession<DotsGame>, until done: () -> Bool) -> Bool {
        let deadline = clock.now + .seconds(5)
        var tick: UInt64 = 0
        while clock.now < deadline {
            for host in hosts { host.advance() }
            client.tick(input: tick % 2 == 0 ? DotsGame.Input(dx: 1, dy: 0) : nil)
            tick += 1
            if done() { return true }
            clock.sleep(until: clock.now + .milliseconds(10))
        }
        return done()
    }

    /// Whether `client` is connected and host `index` runs its room with its player.
    func isPlaying(_ client: ReconnectingSession<DotsGame>, room: String, on index: Int) -> Bool {
        guard case .connected = client.state, let id = client.session.clientID, let held = hosts[index].room(named: room) else {
            return false
        }
        return held.clientIDs.contains(id) && client.session.latestSnapshot != nil
    }
}

@Suite("UDP handover in a fleet")
struct UDPHandoverTests {
    @Test("a UDP client connecting to the wrong process is redirected over UDP with a handed-over token and plays on the right one")
    func redirectOverUDP() throws {
        let fleet = try UDPFleet()
        guard case .here = fleet.directories[1].placement(ofRoom: "play") else {
            Issue.record("process p1 should claim the room first")
            return
        }
        let client = fleet.client(room: "play")
        #expect(
            fleet.run(client) { fleet.isPlaying(client, room: "play", on: 1) },
            "the client should end up playing on p1, which holds the room; state \(client.state), last failure \(client.lastFailure ?? "none")"
        )
        #expect(client.redirectsFollowed == 1, "one redirect, from p0 to p1")
        #expect(client.currentURL == fleet.udpURL(1), "the redirect should name p1's UDP address, not its WebSocket URL")
        #expect(fleet.hosts[0].fleetMetrics.handovers == 1 && fleet.hosts[0].fleetMetrics.handoversFailed == 0)
        #expect(fleet.hosts[0].room(named: "play") == nil, "p0 must not open the room p1 holds")
        let connection = try #require(fleet.lastConnection, "the client's connection to p1")
        #expect(connection.netcodeState == .connected)
        client.leave()
    }

    @Test("a drain moves a UDP client to another process over UDP, where it resumes its player")
    func drainMovesOverUDP() throws {
        let fleet = try UDPFleet()
        let client = fleet.client(room: "play")
        #expect(fleet.run(client) { fleet.isPlaying(client, room: "play", on: 0) }, "the client should play on its entry, p0")
        let id = try #require(client.session.clientID)
        // The drain saves and releases the room, and moves the client to p1, the only other process.
        fleet.hosts[0].drain()
        #expect(
            fleet.run(client) { client.movesFollowed == 1 && fleet.isPlaying(client, room: "play", on: 1) },
            "the client should move to p1 and play there; state \(client.state), last failure \(client.lastFailure ?? "none")")
        #expect(client.currentURL == fleet.udpURL(1), "the move should name p1's UDP address")
        #expect(client.session.clientID == id, "the client resumes its player on p1")
        #expect(client.session.wasResumed)
        #expect(fleet.hosts[0].fleetMetrics.handovers == 1)
        client.leave()
    }

    @Test("a handover message round-trips, and a handover to an address that is not udp://HOST:PORT is refused")
    func handoverMessage() throws {
        let token = try UDPFleet.guestToken(key: NetcodeKey.random(), addresses: [NetcodeAddress(ipv4: 127, 0, 0, 1, port: 9)])
        let message = UDPHandoverMessage(token: token)
        #expect(message.encoded.count == 1 + Netcode.connectTokenBytes)
        #expect(message.encoded.first == 0x80)
        #expect(UDPHandoverMessage(decoding: message.encoded) == message)
        #expect(UDPHandoverMessage(decoding: Array(message.encoded.dropLast())) == nil, "a truncated token is refused")
        #expect(UDPHandoverMessage.address(ofURL: "udp://127.0.0.1:7778") == NetcodeAddress(ipv4: 127, 0, 0, 1, port: 7778))
        #expect(UDPHandoverMessage.address(ofURL: "udp://[::1]:7778/main") != nil)
        #expect(UDPHandoverMessage.address(ofURL: "ws://127.0.0.1:7777") == nil)
        #expect(UDPHandoverMessage.address(ofURL: "udp://example.com:7778") == nil, "a token names numeric addresses only")
    }
}

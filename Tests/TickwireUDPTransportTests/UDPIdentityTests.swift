import Synchronization
import Testing
import TickwireCodec
import TickwireIO
import TickwireNetcode
import TickwireSimTestSupport

@testable import TickwireSim
@testable import TickwireUDPTransport

/// A UDP connection's connect token names the player to the game as a WebSocket hello's token
/// does (PROTOCOL.md 5.3.1): netcode.io's handshake verified it, and the host checks its room.
@Suite("UDP identity")
struct UDPIdentityTests {
    final class Added: Sendable {
        private let items = Mutex<[(UInt32, PlayerIdentity?)]>([])
        func append(_ item: (UInt32, PlayerIdentity?)) { items.withLock { $0.append(item) } }
        var all: [(UInt32, PlayerIdentity?)] { items.withLock { $0 } }
    }

    @Test("a UDP client's token identity (user id, display name, room) reaches addPlayer on a host that requires tokens")
    func identityOverUDP() throws {
        let udp = try UDPTestServer()
        defer { udp.server.shutdown() }
        let clock = MonotonicClock()
        var game = DotsGame(orbCount: 1)
        let added = Added()
        game.addedPlayer = { player, identity in added.append((player, identity)) }
        var configuration = HostConfiguration()
        configuration.rooms = ["play", "other"]
        configuration.requiresTokens = true  // no verifier: UDP connections bring theirs
        let host = Host(game: game, listener: udp.server, clock: clock, configuration: configuration)
        let userData = try ConnectTokenUserData(room: "play", displayName: "Ada", claims: [9]).encoded()
        let good = try UDPClientTransportConnection(token: udp.token(clientID: 77, userData: userData), requestPath: "/play")
        defer { good.close() }
        let wrongRoom = try UDPClientTransportConnection(token: udp.token(clientID: 78, userData: userData), requestPath: "/other")
        defer { wrongRoom.close() }
        let clients = [ClientSession(game: game, clock: clock), ClientSession(game: game, clock: clock)]
        clients[0].connect(over: good)
        clients[1].connect(over: wrongRoom)
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, added.all.isEmpty || host.rejections[.tokenWrongRoom] == nil {
            host.advance()
            for client in clients { client.tick(input: nil) }
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        let first = try #require(added.all.first, "the UDP client joined")
        #expect(first.1?.userID == 77)
        #expect(first.1?.displayName == "Ada")
        #expect(first.1?.room == "play")
        #expect(first.1?.claims == [9])
        #expect(host.rejections[.tokenWrongRoom] == 1, "a token reserving 'play' is refused in 'other': \(host.rejections)")
        #expect(added.all.count == 1)
    }

    @Test("a token whose user data is not Tickwire's layout still joins over UDP, with the raw bytes and no name")
    func foreignLayout() throws {
        let udp = try UDPTestServer()
        defer { udp.server.shutdown() }
        let connection = try UDPClientTransportConnection(token: udp.token(clientID: 5), requestPath: "/")
        defer { connection.close() }
        let clock = MonotonicClock()
        var peer: (any TransportConnection)?
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline, peer == nil {
            peer = udp.server.acceptPending().first
            _ = connection.drain()
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        let opened = try #require(peer, "the UDP connection opened")
        let identity = try #require(opened.identity, "a UDP connection carries its token's identity")
        #expect(identity.userID == 5)
        #expect(identity.userData == Array(repeating: 7, count: 256))
        #expect(identity.displayName == nil && identity.room == nil)
    }
}

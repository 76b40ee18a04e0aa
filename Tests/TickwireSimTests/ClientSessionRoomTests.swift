import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A simulated connection that reports a request path, as a WebSocket client connection reports its URL's.
final class PathConnection: TransportConnection, Sendable {
    let inner: SimulatedConnection
    let requestPath: String?

    init(_ inner: SimulatedConnection, path: String?) {
        self.inner = inner
        self.requestPath = path
    }

    var connectionID: UInt64 { inner.connectionID }
    var bufferedBytes: Int { inner.bufferedBytes }
    var isClosed: Bool { inner.isClosed }
    func send(_ frame: [UInt8]) -> TransportSendResult { inner.send(frame) }
    func drain() -> [TransportEvent] { inner.drain() }
    func close(code: CloseCode, reason: String) { inner.close(code: code, reason: reason) }
}

@Suite("ClientSession room")
struct ClientSessionRoomTests {
    @Test(
        "a request path names the room: leading slashes dropped, percent-decoded; no path or / names none",
        arguments: [
            ("/main", "main"), ("main", "main"), ("//main", "main"), ("/red%20team", "red team"), ("/caf%C3%A9", "café"),
            ("/a/b", "a/b"), ("/50%", "50%"), ("/%zz", "%zz"),
        ] as [(String, String)])
    func pathToRoom(path: String, room: String) {
        #expect(ClientSession<DotsGame>.room(fromPath: path) == room, "'\(path)' names '\(room)'")
    }

    @Test("no path, the root and a path that is not UTF-8 name no room")
    func noRoom() {
        #expect(ClientSession<DotsGame>.room(fromPath: nil) == nil)
        #expect(ClientSession<DotsGame>.room(fromPath: "/") == nil)
        #expect(ClientSession<DotsGame>.room(fromPath: "/%FF") == nil)
    }

    @Test("the bad-network wrapper passes the wrapped connection's path on, so an impaired client still joins by URL")
    func wrapperForwardsPath() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 12)
        let impaired = ImpairedTransportConnection(wrapping: PathConnection(network.connect(), path: "/main"), clock: clock)
        #expect(impaired.requestPath == "/main")
        #expect(network.connect().requestPath == nil, "a simulated connection has no path")
    }

    /// A host with rooms "", "main" and "red team", and a client session connected over `path`.
    func join(path: String?, configuredRoom: String?, thenPath second: String? = nil) throws -> (Host<DotsGame>, ClientSession<DotsGame>) {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 11)
        var hostConfiguration = HostConfiguration()
        hostConfiguration.rooms = ["", "main", "red team"]
        let host = Host(game: DotsGame(orbCount: 1), listener: network, clock: clock, configuration: hostConfiguration)
        var configuration = ClientConfiguration()
        configuration.room = configuredRoom
        let session = ClientSession(game: DotsGame(orbCount: 1), clock: clock, configuration: configuration)
        session.connect(over: PathConnection(network.connect(), path: path))
        if let second { session.connect(over: PathConnection(network.connect(), path: second)) }
        for _ in 0..<100 where session.status != .connected {
            clock.advance(by: .milliseconds(10))
            host.advance()
            session.tick(input: nil)
        }
        try #require(session.status == .connected, "the session should be welcomed within 1 s, is \(session.status)")
        return (host, session)
    }

    /// The names of the rooms that hold `session`'s player.
    func rooms(holding session: ClientSession<DotsGame>, in host: Host<DotsGame>) -> [String] {
        host.roomNames.filter { name in session.clientID.map { host.room(named: name)?.state.players[$0] != nil } ?? false }
    }

    @Test("without a configured room the URL path picks it: /red%20team joins 'red team'")
    func pathPicksRoom() throws {
        let (host, session) = try join(path: "/red%20team", configuredRoom: nil)
        #expect(session.room == "red team")
        #expect(rooms(holding: session, in: host) == ["red team"], "the player is in the path's room, not the default room")
    }

    @Test("without a path or a configured room the session joins the default room")
    func defaultRoom() throws {
        let (host, session) = try join(path: "/", configuredRoom: nil)
        #expect(session.room == "")
        #expect(rooms(holding: session, in: host) == [""])
    }

    @Test("a configured room wins over the path")
    func configuredRoomWins() throws {
        let (host, session) = try join(path: "/red%20team", configuredRoom: "main")
        #expect(session.room == "main")
        #expect(rooms(holding: session, in: host) == ["main"])
    }

    @Test("the first path's room is kept when a later URL (a redirect's, a process's) names none")
    func roomKeptAcrossConnections() throws {
        let (host, session) = try join(path: "/main", configuredRoom: nil, thenPath: "/")
        #expect(session.room == "main")
        #expect(rooms(holding: session, in: host) == ["main"])
    }
}

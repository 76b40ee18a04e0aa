import Dispatch
import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's connection budgets: per-address limits on open connections and on handshakes,
/// IPv6 addresses grouped by prefix, and a handshake budget apart from the open-connection cap
/// whose oldest handshake makes way for a new one.
@Suite("WebSocket server connection budgets")
struct WebSocketServerBudgetTests {
    /// A server that answers upgrades and never handshakes on its own; waits until it counts `count` connections.
    static func waitForCount(_ server: WebSocketServer, _ count: Int, seconds: Double = 5) -> Bool {
        let deadline = MonotonicTime.now() + UInt64(seconds * 1e9)
        while MonotonicTime.now() < deadline {
            if server.connectionCount == count { return true }
            // Polls the server's published count (bounded): it changes on the loop thread.
            usleep(1000)
        }
        return server.connectionCount == count
    }

    @Test("IPv4 addresses count one by one; IPv6 addresses count by their /64 (or the configured prefix); IPv4-mapped IPv6 counts as IPv4")
    func addressGroups() throws {
        func group(_ host: String, _ bits: Int = 64) -> PeerAddressGroup? { PeerAddressGroup(host: host, ipv6PrefixLength: bits) }
        #expect(group("127.0.0.1") != nil && group("127.0.0.1") == group("127.0.0.1"))
        #expect(group("127.0.0.1") != group("127.0.0.2"), "two IPv4 addresses are two groups")
        #expect(group("2001:db8:1:2::1") == group("2001:db8:1:2:ffff:ffff:ffff:ffff"), "one /64 is one group")
        #expect(group("2001:db8:1:2::1") != group("2001:db8:1:3::1"), "the next /64 is another group")
        #expect(group("2001:db8:1:2::1", 48) == group("2001:db8:1:3::1", 48), "with /48, both /64s are one group")
        #expect(group("2001:db8:1:2::1", 128) != group("2001:db8:1:2::2", 128), "with /128, every address is its own group")
        #expect(group("2001:db8:1:2::1", 0) == group("fe80::1", 0), "with /0, every IPv6 address is one group")
        #expect(group("2001:db8:1:2::1", 65) != group("2001:db8:1:2:8000::1", 65), "/65 looks at the 65th bit")
        #expect(group("2001:db8:1:2::1", 65) == group("2001:db8:1:2:7fff::1", 65))
        #expect(group("::ffff:127.0.0.9") == group("127.0.0.9"), "an IPv4-mapped address is the IPv4 address")
        #expect(group("::ffff:127.0.0.9") != group("127.0.0.10"))
        #expect(group("::1") != group("127.0.0.1"), "IPv6 loopback is not IPv4 loopback")
        #expect(group("localhost") == nil && group("1.2.3") == nil, "only numeric addresses have a group")
    }

    @Test("the per-address connection limit: at the limit every connection opens, one more is answered 429, another address is unaffected")
    func connectionsPerAddress() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.maximumConnectionsPerAddress = 3
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        var open: [TestSocket] = []
        for _ in 0..<3 {
            let client = try TestSocket(port: port)
            try client.send(TestSocket.upgradeRequest())
            let head = try client.receiveHead()
            #expect(head.hasPrefix("HTTP/1.1 101"), "connections up to the limit open, got '\(head.prefix(40))'")
            open.append(client)
        }
        let extra = try TestSocket(port: port)
        let refused = try extra.receiveHead()
        #expect(refused.hasPrefix("HTTP/1.1 429"), "one past the limit gets 429, got '\(refused.prefix(40))'")
        #expect(
            refused.contains("limit 3")
                || (try? extra.receiveUntilClosed(limit: 4096)).map { String(decoding: $0, as: UTF8.self).contains("limit 3") } == true)
        let other = try TestSocket(port: port, source: "127.0.0.2")
        try other.send(TestSocket.upgradeRequest())
        #expect(try other.receiveHead().hasPrefix("HTTP/1.1 101"), "127.0.0.2 is not limited by 127.0.0.1's connections")
        open[0].close()
        #expect(recorder.wait(seconds: 5) { $0.contains { $0.serverClose != nil } }, "the server should see the first client go")
        let again = try TestSocket(port: port)
        try again.send(TestSocket.upgradeRequest())
        #expect(try again.receiveHead().hasPrefix("HTTP/1.1 101"), "below the limit again, the address may connect")
    }

    @Test(
        "the per-address handshake limit: at the limit half-open connections are kept, one more is answered 429, another address is unaffected"
    )
    func handshakesPerAddress() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.maximumHandshakesPerAddress = 2
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let request = Array(TestSocket.upgradeRequest().utf8)
        var halfOpen: [TestSocket] = []
        for _ in 0..<2 {
            let client = try TestSocket(port: port)
            try client.send(Array(request.prefix(1)))
            halfOpen.append(client)
        }
        #expect(Self.waitForCount(server, 2), "the server should hold both half-open connections")
        let extra = try TestSocket(port: port)
        #expect(try extra.receiveHead().hasPrefix("HTTP/1.1 429"), "a third handshake from the address gets 429")
        let other = try TestSocket(port: port, source: "127.0.0.2")
        try other.send(request)
        #expect(try other.receiveHead().hasPrefix("HTTP/1.1 101"), "127.0.0.2 is not limited by 127.0.0.1's handshakes")
        try halfOpen[0].send(Array(request.dropFirst()))
        #expect(try halfOpen[0].receiveHead().hasPrefix("HTTP/1.1 101"), "a handshake held at the limit still completes")
        let next = try TestSocket(port: port)
        try next.send(request)
        #expect(try next.receiveHead().hasPrefix("HTTP/1.1 101"), "once one completed, the address may start another handshake")
    }

    @Test("a full handshake budget evicts the oldest half-open connection (503) for a new one; open connections do not count against it")
    func handshakeBudgetEvictsOldest() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.maximumHandshakes = 3
        configuration.maximumConnections = 2
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let request = Array(TestSocket.upgradeRequest().utf8)
        let player = try TestSocket(port: port, source: "127.0.0.2")
        try player.send(request)
        #expect(try player.receiveHead().hasPrefix("HTTP/1.1 101"))
        var halfOpen: [TestSocket] = []
        for index in 0..<3 {
            let client = try TestSocket(port: port)
            try client.send(Array(request.prefix(1)))
            halfOpen.append(client)
            #expect(Self.waitForCount(server, index + 2), "the server should hold \(index + 1) half-open connections beside the player")
        }
        let newcomer = try TestSocket(port: port, source: "127.0.0.2")
        try newcomer.send(request)
        #expect(try newcomer.receiveHead().hasPrefix("HTTP/1.1 101"), "a new handshake gets a place though the budget was full")
        let evicted = try halfOpen[0].receiveHead()
        #expect(evicted.hasPrefix("HTTP/1.1 503"), "the oldest half-open connection is evicted with 503, got '\(evicted.prefix(40))'")
        #expect(!halfOpen[1].isReadable(waitingMilliseconds: 50), "the younger half-open connections are kept")
        #expect(server.connectionCount == 4, "two open, two handshaking")
    }

    @Test("1000 half-open connections from 127.0.0.1 (the default limits) do not keep 127.0.0.2 from connecting within 1 s")
    func floodFromOneAddress() throws {
        let count = 1000
        try raiseDescriptorLimit(to: 4 * count)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let defaults = WebSocketServerConfiguration()
        var flood: [TestSocket] = []
        flood.reserveCapacity(count)
        for _ in 0..<count {
            let socket = try TestSocket(port: port, timeoutSeconds: 1)
            try? socket.send([UInt8(ascii: "G")])  // a refused one may be reset already
            flood.append(socket)
        }
        #expect(server.connectionCount <= defaults.maximumHandshakesPerAddress, "the flood holds at most the per-address handshakes")
        let start = MonotonicTime.now()
        let player = try TestSocket(port: port, timeoutSeconds: 1, source: "127.0.0.2")
        try player.send(TestSocket.upgradeRequest())
        let head = try player.receiveHead()
        let elapsed = Double(MonotonicTime.now() - start) / 1e9
        #expect(head.hasPrefix("HTTP/1.1 101"), "the player from 127.0.0.2 connects, got '\(head.prefix(40))'")
        #expect(elapsed < 1, "and within 1 s, not \(elapsed) s")
        #expect(server.connectionCount <= defaults.maximumHandshakesPerAddress + 1)
    }
}

/// Raises the soft descriptor limit to `wanted` (at most the hard limit); throws when even the
/// hard limit is below it, so a test needing many sockets says why it cannot run.
func raiseDescriptorLimit(to wanted: Int) throws {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    if limit.rlim_cur >= rlim_t(wanted) { return }
    guard limit.rlim_max >= rlim_t(wanted) else {
        throw TestSocket.Failure(description: "the descriptor limit is \(limit.rlim_max); this test needs \(wanted) (ulimit -n)")
    }
    limit.rlim_cur = rlim_t(wanted)
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

import Testing
import Tickwire

@testable import ArenaGame

@Suite("Arena UDP in a fleet")
struct ArenaUDPFleetTests {
    @Test(
        "the UDP address a fleet process registers is the one its tokens name",
        arguments: [
            ("127.0.0.2", 7778, "udp://127.0.0.2:7778"), ("0.0.0.0", 7778, "udp://127.0.0.1:7778"),
            ("::", 9000, "udp://[0:0:0:0:0:0:0:1]:9000"), ("10.77.1.11", 7778, "udp://10.77.1.11:7778"),
        ])
    func registeredAddress(host: String, port: Int, expected: String) {
        #expect(ArenaUDP.publicURL(host: host, port: port) == expected, "arena serve --host \(host) --udp-port \(port)")
    }

    @Test("a host that is not a numeric address, or a port outside 1...65535, registers nothing")
    func refusedAddresses() {
        #expect(ArenaUDP.publicURL(host: "localhost", port: 7778) == nil)
        #expect(ArenaUDP.publicURL(host: "127.0.0.1", port: 0) == nil)
        #expect(ArenaUDP.publicURL(host: "127.0.0.1", port: 70_000) == nil)
    }

    @Test("the registered address is the UDP server's own public address")
    func matchesTheServer() throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = 0
        options.bots = 0
        let server = try ArenaServer(options: options)
        defer {
            server.transport.shutdown(timeout: .seconds(1))
            server.udpTransport?.shutdown()
        }
        let port = try #require(server.udpPort)
        let named = try #require(server.udpTransport?.publicAddresses.first)
        #expect(ArenaUDP.publicURL(host: options.host, port: port) == "udp://\(named)")
    }
}

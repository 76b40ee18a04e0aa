import Testing
import TickwireFoundation
import TickwireIO
import TickwireNetcode
import TickwireSim
import TickwireUDPTransport

@testable import ArenaGame

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `arena serve --udp-servers N`: several netcode.io servers in one process, one token naming them all.
@Suite("Several UDP servers in one arena process")
struct ArenaUDPServersTests {
    /// A configuration for 127.0.0.1 with a fresh key, `maxClients` per server.
    func configuration(maxClients: Int = Netcode.maxClients) throws -> UDPTransportServerConfiguration {
        let address = try #require(SocketAddress(numericHost: "127.0.0.1", port: 0))
        var configuration = UDPTransportServerConfiguration(address: address, protocolID: ArenaUDP.protocolID, privateKey: .random())
        configuration.maxClients = maxClients
        return configuration
    }

    @Test(
        "the default count fits rooms × capacity at 256 a server, between 1 and 32",
        arguments: [(1, 1), (256, 1), (257, 2), (1280, 5), (32 * 256, 32), (32 * 256 + 1, 32), (0, 1)])
    func defaultCount(players: Int, servers: Int) {
        #expect(ArenaUDPServers.defaultCount(players: players) == servers, "\(players) players")
    }

    @Test("addresses go most free slots first, ties in port order")
    func order() {
        let a = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 1), b = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 2)
        let c = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 3)
        #expect(ArenaUDPServers.ordered([(a, 10), (b, 200), (c, 10)]) == [b, a, c])
        #expect(ArenaUDPServers.ordered([(a, 0), (b, 0), (c, 0)]) == [a, b, c], "every server full: port order")
    }

    @Test("32 servers bind (the addresses a token can name), each its own port; 33 and 0 are refused with the limit named")
    func countLimit() throws {
        let servers = try ArenaUDPServers(
            count: ArenaUDPServers.maximumCount, host: "127.0.0.1", firstPort: 0, configuration: configuration())
        defer { servers.shutdown() }
        #expect(Set(servers.servers.map(\.address.port)).count == 32, "32 distinct ports")
        let key = NetcodeKey.random()
        let token = try ArenaUDP.guestToken(key: key, addresses: servers.addressesByFreeSlots(), now: 1_700_000_000)
        #expect(token.serverAddresses.count == 32, "a guest token names all 32")
        for count in [ArenaUDPServers.maximumCount + 1, 0] {
            do {
                let extra = try ArenaUDPServers(count: count, host: "127.0.0.1", firstPort: 0, configuration: configuration())
                extra.shutdown()
                Issue.record("\(count) servers should be refused")
            } catch let error as SystemError {
                #expect(error.code == EINVAL)
                #expect(error.description.contains("--udp-servers"), "the error names the flag: \(error)")
            } catch {
                Issue.record("expected a SystemError, got \(error)")
            }
        }
    }

    @Test("ports past 65535 are refused before any socket is bound")
    func portsPastTheEnd() throws {
        #expect(throws: SystemError.self) {
            try ArenaUDPServers(count: 2, host: "127.0.0.1", firstPort: 65535, configuration: configuration())
        }
    }

    @Test("a full server moves to the back of the list, and a client with the old list is denied there and connects to the next")
    func leastLoadedFirst() throws {
        let servers = try ArenaUDPServers(count: 2, host: "127.0.0.1", firstPort: 0, configuration: configuration(maxClients: 1))
        defer { servers.shutdown() }
        let ports = servers.servers.map { UInt16($0.address.port) }
        let before = servers.addressesByFreeSlots()
        #expect(before.map(\.port) == ports, "both empty: port order")
        let key = servers.key
        let first = try UDPClientTransportConnection(token: ArenaUDP.guestToken(key: key, addresses: before, now: UInt64(time(nil))))
        defer { first.close() }
        #expect(waitFor { servers.servers[0].statistics.connectedClients == 1 }, "the first client takes the first server")
        #expect(servers.addressesByFreeSlots().map(\.port) == [ports[1], ports[0]], "the full server goes last")
        let second = try UDPClientTransportConnection(token: ArenaUDP.guestToken(key: key, addresses: before, now: UInt64(time(nil))))
        defer { second.close() }
        #expect(
            waitFor { servers.servers[1].statistics.connectedClients == 1 && second.netcodeState == .connected },
            "denied by the first, the client connects to the second: \(second.netcodeState)")
        #expect(servers.statistics.connectedClients == 2, "the figures add up over the servers")
    }

    @Test("arena serve with two UDP servers: GET /udp-token names both ports, and a player joins through them")
    func serverHandsOutBoth() throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = 0
        options.udpServerCount = 2
        options.bots = 0
        options.tickThreads = 1
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        let ports = running.server.udpPorts
        #expect(ports.count == 2 && ports[0] == running.server.udpPort)
        let token = try ConnectTokenFetch.fetch(host: "127.0.0.1", port: running.server.port, path: ArenaUDP.tokenPath)
        #expect(token.serverAddresses.map { Int($0.port) } == ports, "both empty: the token names both, in port order")
    }

    @Test("arena serve refuses 33 UDP servers before it binds anything")
    func serverRefusesPastTheLimit() {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = 0
        options.udpServerCount = ArenaUDPServers.maximumCount + 1
        #expect(throws: SystemError.self) { try ArenaServer(options: options) }
    }

    /// Polls `body` every 5 ms for at most 5 s.
    private func waitFor(_ body: () -> Bool) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.now + .seconds(5)
        while clock.now < deadline {
            if body() { return true }
            clock.sleep(until: clock.now + .milliseconds(5))
        }
        return body()
    }
}

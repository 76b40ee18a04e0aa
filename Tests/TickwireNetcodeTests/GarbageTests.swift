import Testing
import TickwireFoundation

@testable import TickwireNetcode

/// Seeded random input never crashes a reader, a server or a client, and is never accepted.
struct GarbageTests {
    @Test("random datagrams are refused by the packet reader, the server and the client", arguments: [1 as UInt64, 2, 3, 4])
    func randomDatagrams(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var server = try NetcodeServer.fixture()
        var client = NetcodeClient()
        client.connect(token: try Fixture.token(), now: Fixture.now)
        for _ in 0..<2000 {
            let size = Int.random(in: 0...1400, using: &random)
            var datagram = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            if size > 0 && Bool.random(using: &random) { datagram[0] = UInt8.random(in: 0...0x8F, using: &random) & 0xF7 }
            if Int.random(in: 0..<10, using: &random) == 0 {
                datagram = Array(datagram.prefix(1078)) + Array(repeating: 0, count: max(0, 1078 - size))
            }
            if datagram.count == 1078 { datagram[0] = 0 }
            server.receive(datagram, from: Fixture.serverAddress, now: Fixture.now)
            client.receive(datagram, from: Fixture.serverAddress, now: Fixture.now)
        }
        #expect(server.takeOutgoing().isEmpty, "garbage must never be answered")
        #expect(server.connectedClientCount == 0)
        #expect(client.state == .sendingConnectionRequest)
        #expect(client.takeReceived().isEmpty)
    }

    @Test("random tokens never read as valid private tokens, and mutated tokens never crash", arguments: [7 as UInt64, 8])
    func randomTokens(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let valid = try Fixture.token().serialized()
        for _ in 0..<500 {
            var mutated = valid
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? ConnectToken(bytes: mutated)  // either outcome is fine; the property is that it returns
            let plaintext = (0..<1008).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? ConnectTokenPrivate(plaintext: plaintext)
        }
    }

    @Test("hostile times (NaN, negative, infinite, beyond 2^64) never trap the server or the client")
    func hostileTimes() throws {
        var network = try HandshakeTests.connected()
        let request = try NetcodePacket.connectionRequest(.init(token: try Fixture.token())).written(
            sequence: 0, key: Fixture.clientToServerKey, protocolID: 0)
        for now in [Double.nan, -1, -.infinity, .infinity, 1e30] {
            network.server.receive(request, from: NetcodeAddress(ipv4: 9, 9, 9, 9, port: 9), now: now)
            network.server.update(now: now)
            network.clients[0].update(now: now)
            network.clients[0].receive(request, from: Fixture.serverAddress, now: now)
        }
        #expect(network.server.ignoredPackets[.tokenExpired] == 2, "only the infinite and 1e30 times are past the token's expiry")
    }
}

import Testing
import TickwireIO
import TickwireNetcode
import TickwireSim

@testable import TickwireUDPTransport

/// netcode.io's answer to more than 256 clients: a connect token names several servers, and a
/// client that one denies (full) or never answers tries the next (the standard's "connect
/// token" section). `arena serve --udp-servers` relies on it.
@Suite("A connect token naming several UDP servers")
struct UDPServerListTests {
    @Test("a client denied by a full server connects to the token's next address")
    func deniedMovesOn() throws {
        let key = NetcodeKey.random()
        let full = try UDPTestServer(key: key, maxClients: 1)
        defer { full.server.shutdown() }
        let spare = try UDPTestServer(key: key, maxClients: 1)
        defer { spare.server.shutdown() }
        let both = full.server.publicAddresses + spare.server.publicAddresses

        let first = try UDPClientTransportConnection(token: full.token(clientID: 1, addresses: both))
        defer { first.close() }
        #expect(waitUntil { first.netcodeState == .connected }, "the first client should take the first server's one slot")
        #expect(waitUntil { full.server.statistics.connectedClients == 1 })

        let second = try UDPClientTransportConnection(token: full.token(clientID: 2, addresses: both))
        defer { second.close() }
        #expect(waitUntil { second.netcodeState == .connected }, "the second client should connect, got \(second.netcodeState)")
        #expect(waitUntil { spare.server.statistics.connectedClients == 1 }, "on the second server, the token's next address")
        #expect(full.server.statistics.connectedClients == 1, "the full server still holds only the first client")
        #expect(spare.server.acceptPending().count == 1, "the second server hands the host the client it took")
    }

    @Test("denied by every server the token names, the client ends in connection denied")
    func deniedEverywhere() throws {
        let key = NetcodeKey.random()
        let one = try UDPTestServer(key: key, maxClients: 1)
        defer { one.server.shutdown() }
        let two = try UDPTestServer(key: key, maxClients: 1)
        defer { two.server.shutdown() }
        let both = one.server.publicAddresses + two.server.publicAddresses
        let holders = try [1, 2].map { id in try UDPClientTransportConnection(token: one.token(clientID: UInt64(id), addresses: both)) }
        defer { for holder in holders { holder.close() } }
        #expect(waitUntil { holders.allSatisfy { $0.netcodeState == .connected } }, "two clients fill the two servers")

        let late = try UDPClientTransportConnection(token: one.token(clientID: 3, addresses: both))
        defer { late.close() }
        #expect(waitUntil { late.isClosed }, "the third client should give up within 5 s")
        #expect(late.netcodeState == .connectionDenied, "denied by both, got \(late.netcodeState)")
    }
}

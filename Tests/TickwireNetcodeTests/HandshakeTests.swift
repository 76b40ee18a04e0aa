import Testing

@testable import TickwireNetcode

/// Client and server over an in-memory link on a virtual clock.
struct HandshakeTests {
    static func connected(clients: Int = 1, maxClients: Int = 4, timeout: Int32 = 5) throws -> InMemoryNetwork {
        var network = InMemoryNetwork(server: try .fixture(maxClients: maxClients), clientCount: clients)
        for index in 0..<clients {
            network.clients[index].connect(
                token: try Fixture.token(clientID: UInt64(100 + index), timeout: timeout, randomKeys: true), now: network.now)
        }
        network.step(10)
        return network
    }

    @Test("a client connects: request, challenge, response, keep-alive; both sides agree on the slot")
    func connect() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.clients[0].connect(token: try Fixture.token(), now: network.now)
        #expect(network.clients[0].state == .sendingConnectionRequest)
        network.clients[0].update(now: network.now)
        network.step()
        #expect(network.clients[0].state == .sendingConnectionResponse, "the challenge arrived")
        network.step(2)
        #expect(network.clients[0].state == .connected)
        #expect(network.clients[0].clientIndex == 0)
        #expect(network.clients[0].maxClients == 4)
        #expect(network.server.connectedClientCount == 1)
        guard case .connected(0, 0x0123_4567_89AB_CDEF, _, let userData)? = network.serverEvents.first else {
            Issue.record("the server reported no connection: \(network.serverEvents)")
            return
        }
        #expect(userData == Fixture.userData, "the token's user data reaches the server application")
    }

    @Test("payloads flow both ways once connected; the server's first payload to an unconfirmed client follows a keep-alive")
    func payloads() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.clients[0].connect(token: try Fixture.token(), now: network.now)
        network.step(3)
        #expect(network.clients[0].state == .connected)
        _ = network.server.takeOutgoing()
        try network.server.send([9, 9], toClient: 0, now: network.now)
        let unconfirmed = network.server.takeOutgoing()
        #expect(unconfirmed.count == 2 && unconfirmed[0].bytes[0] & 0x0F == 4, "a keep-alive goes before the payload")
        for datagram in unconfirmed { network.clients[0].receive(datagram.bytes, from: Fixture.serverAddress, now: network.now) }
        #expect(network.clients[0].takeReceived() == [[9, 9]])
        try network.clients[0].send([1, 2, 3], now: network.now)
        network.step()
        #expect(network.serverEvents.contains { if case .payload(0, [1, 2, 3], _) = $0 { true } else { false } })
        try network.server.send([4, 5], toClient: 0, now: network.now)
        #expect(network.server.takeOutgoing().count == 1, "a confirmed client gets the payload alone")
    }

    @Test("keep-alives hold an idle connection for a minute of virtual time")
    func keepAlive() throws {
        var network = try Self.connected()
        network.step(1200)
        #expect(network.clients[0].state == .connected)
        #expect(network.server.connectedClientCount == 1)
    }

    @Test("a silent server times the client out; a silent client is timed out by the server")
    func timeouts() throws {
        var network = try Self.connected(timeout: 2)
        network.serverLinkUp = false
        network.clientLinkUp[0] = false
        network.step(36)
        #expect(network.clients[0].state == .connected, "1.85 s of silence is within the 2 s timeout")
        #expect(network.server.connectedClientCount == 1)
        network.step(4)
        #expect(network.clients[0].state == .connectionTimedOut)
        #expect(network.server.connectedClientCount == 0)
        #expect(network.serverEvents.contains { if case .disconnected(0, _, .timedOut) = $0 { true } else { false } })
    }

    @Test("a client's disconnect sends ten packets and frees its slot on the server")
    func clientDisconnect() throws {
        var network = try Self.connected()
        network.clients[0].disconnect(now: network.now)
        #expect(network.clients[0].state == .disconnected)
        let sent = network.clients[0].takeOutgoing()
        #expect(sent.count == Netcode.disconnectPacketCount)
        #expect(sent.allSatisfy { $0.bytes[0] & 0x0F == 6 })
        for datagram in sent { network.server.receive(datagram.bytes, from: network.clientAddresses[0], now: network.now) }
        #expect(network.server.connectedClientCount == 0)
        #expect(network.server.takeEvents().contains { if case .disconnected(0, 100, .clientDisconnected) = $0 { true } else { false } })
        #expect(network.server.ignoredPackets[.noEncryptionMapping] == 9, "the nine redundant copies find no mapping any more")
    }

    @Test("a server's disconnect sends ten packets and the client goes to disconnected")
    func serverDisconnect() throws {
        var network = try Self.connected()
        network.deliverFromServer()
        network.server.disconnect(client: 0, now: network.now)
        let sent = network.server.takeOutgoing()
        #expect(sent.count == 10)
        for datagram in sent { network.clients[0].receive(datagram.bytes, from: Fixture.serverAddress, now: network.now) }
        #expect(network.clients[0].state == .disconnected)
        #expect(network.server.connectedClientCount == 0)
    }

    @Test("a full server answers a new client with denied, and the client ends in connection denied")
    func serverFull() throws {
        let network = try Self.connected(clients: 3, maxClients: 2)
        #expect(network.clients[0].state == .connected)
        #expect(network.clients[1].state == .connected)
        #expect(network.clients[2].state == .connectionDenied)
        #expect(network.server.connectedClientCount == 2)
    }

    @Test("a token used from a second address is refused")
    func tokenReuse() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 2)
        let token = try Fixture.token(randomKeys: true)
        network.clients[0].connect(token: token, now: network.now)
        network.step(5)
        #expect(network.clients[0].state == .connected)
        network.clients[1].connect(token: token, now: network.now)
        network.step(5)
        #expect(network.clients[1].state == .sendingConnectionRequest)
        #expect((network.server.ignoredPackets[.alreadyConnected] ?? 0) > 0, "the client id is connected already")
        // The first client leaves; its token is still bound to its address.
        network.clients[0].disconnect(now: network.now)
        network.step(2)
        #expect(network.server.connectedClientCount == 0)
        network.step(5)
        #expect(network.clients[1].state == .sendingConnectionRequest)
        #expect((network.server.ignoredPackets[.tokenUsedElsewhere] ?? 0) > 0)
    }

    @Test("no answer: the client moves to the next server, then ends in connection request timed out")
    func requestTimeout() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.serverLinkUp = false
        let other = NetcodeAddress(ipv4: 10, 9, 9, 9, port: 1)
        network.clients[0].connect(
            token: try Fixture.token(timeout: 1, addresses: [other, Fixture.serverAddress], expire: 1_700_000_060), now: network.now)
        network.step(22)
        #expect(network.clients[0].serverIndex == 1, "after 1 s the second server is tried")
        #expect(network.clients[0].state == .sendingConnectionRequest)
        network.step(22)
        #expect(network.clients[0].state == .connectionRequestTimedOut)
    }

    @Test("challenge but no keep-alive: connection response timed out")
    func responseTimeout() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.clients[0].connect(token: try Fixture.token(timeout: 1), now: network.now)
        network.step(2)
        #expect(network.clients[0].state == .sendingConnectionResponse)
        network.clientLinkUp[0] = false
        network.step(25)
        #expect(network.clients[0].state == .connectionResponseTimedOut)
    }

    @Test("the connect token expires before a connection: connect token expired")
    func tokenExpired() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.serverLinkUp = false
        network.clients[0].connect(token: try Fixture.token(timeout: -1, expire: 1_700_000_002), now: network.now)
        network.step(41)
        #expect(network.clients[0].state == .connectTokenExpired)
    }

    @Test("the server ignores an expired token: the request is refused before decryption")
    func expiredAtServer() throws {
        var server = try NetcodeServer.fixture()
        let token = try Fixture.token()
        let request = try NetcodePacket.connectionRequest(.init(token: token)).written(
            sequence: 0, key: Fixture.clientToServerKey, protocolID: 0)
        server.receive(request, from: Fixture.serverAddress, now: Double(token.expireTimestamp))
        #expect(server.ignoredPackets[.tokenExpired] == 1)
        #expect(server.takeOutgoing().isEmpty)
    }

    @Test("the server ignores a token that does not name it, and a token for another protocol")
    func wrongServer() throws {
        var server = try NetcodeServer.fixture()
        let elsewhere = try Fixture.token(addresses: [NetcodeAddress(ipv4: 10, 0, 0, 1, port: 40000)])
        let request = try NetcodePacket.connectionRequest(.init(token: elsewhere)).written(
            sequence: 0, key: Fixture.clientToServerKey, protocolID: 0)
        server.receive(request, from: Fixture.serverAddress, now: Fixture.now)
        #expect(server.ignoredPackets[.serverAddressNotInToken] == 1)
        var tampered = request
        tampered[100] ^= 1
        server.receive(tampered, from: Fixture.serverAddress, now: Fixture.now)
        #expect(server.ignoredPackets[.authenticationFailed] == 1)
        #expect(server.takeOutgoing().isEmpty, "nothing is answered to an invalid request")
    }

    @Test("a client refuses packets from other addresses and an invalid token")
    func clientRefusals() throws {
        var client = NetcodeClient()
        client.connect(token: try Fixture.token(), now: Fixture.now)
        let denied = try NetcodePacket.connectionDenied.written(sequence: 1, key: Fixture.serverToClientKey, protocolID: Fixture.protocolID)
        client.receive(denied, from: NetcodeAddress(ipv4: 6, 6, 6, 6, port: 6), now: Fixture.now)
        #expect(client.ignoredPackets[.unexpectedSender] == 1)
        #expect(client.state == .sendingConnectionRequest)
        client.receive(denied, from: Fixture.serverAddress, now: Fixture.now)
        #expect(client.state == .connectionDenied)
        #expect(throws: NetcodeError.self) { try client.connect(tokenBytes: [1, 2, 3], now: Fixture.now) }
        #expect(client.state == .invalidConnectToken)
        #expect(throws: NetcodeError.self) { try client.send([1], now: Fixture.now) }
    }

    @Test("the server's global packets use sequences from 2^63, its slots from 0")
    func globalSequence() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.clients[0].connect(token: try Fixture.token(), now: network.now)
        network.step(3)
        let challenge = network.sentByServer[0].bytes
        #expect(challenge[0] == 0x82, "8 sequence bytes, type challenge")
        #expect(challenge[8] == 0x80, "top byte of 2^63")
        let keepAlive = network.sentByServer[1].bytes
        #expect(keepAlive[0] == 0x14 && keepAlive[1] == 0, "the first slot packet has sequence 0")
    }

    @Test("a replayed payload is counted and not delivered twice")
    func replayedPayload() throws {
        var network = try Self.connected()
        try network.clients[0].send([7], now: network.now)
        let datagram = network.clients[0].takeOutgoing()[0]
        network.server.receive(datagram.bytes, from: network.clientAddresses[0], now: network.now)
        network.server.receive(datagram.bytes, from: network.clientAddresses[0], now: network.now)
        let payloads = network.server.takeEvents().filter { if case .payload = $0 { true } else { false } }
        #expect(payloads.count == 1)
        #expect(network.server.ignoredPackets[.replayed] == 1)
    }

    @Test("a connecting client sends requests at 10 Hz, not faster")
    func requestRate() throws {
        var client = NetcodeClient()
        client.connect(token: try Fixture.token(), now: Fixture.now)
        var sent = 0
        for tick in 0...100 {  // one virtual second in 10 ms ticks
            client.update(now: Fixture.now + Double(tick) * 0.01)
            sent += client.takeOutgoing().count
        }
        #expect((9...11).contains(sent), "\(sent) requests in one second")
    }

    @Test("an encryption mapping expires after the token's timeout: a late response finds none")
    func mappingExpiry() throws {
        var network = InMemoryNetwork(server: try .fixture(), clientCount: 1)
        network.clients[0].connect(token: try Fixture.token(timeout: 1), now: network.now)
        network.step(2)
        #expect(network.clients[0].state == .sendingConnectionResponse)
        let response = network.clients[0].takeOutgoing()
        #expect(!response.isEmpty, "the client has a response to send")
        network.now += 1.5
        for datagram in response { network.server.receive(datagram.bytes, from: network.clientAddresses[0], now: network.now) }
        #expect(network.server.connectedClientCount == 0)
        #expect(network.server.ignoredPackets[.noEncryptionMapping] == response.count)
    }
}

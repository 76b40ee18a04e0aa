import TickwireNetcode

/// A server and clients joined by an in-memory link on a virtual clock: every step delivers the
/// datagrams each side sent, then updates both. Deterministic; nothing sleeps.
struct InMemoryNetwork {
    var server: NetcodeServer
    var clients: [NetcodeClient]
    var clientAddresses: [NetcodeAddress]
    var now: Double
    var serverEvents: [NetcodeServerEvent] = []
    /// When false, datagrams from client `i` are dropped (a client that vanished).
    var clientLinkUp: [Bool]
    var serverLinkUp = true
    /// Every datagram the server sent, by destination.
    var sentByServer: [NetcodeDatagram] = []

    init(server: NetcodeServer, clientCount: Int, now: Double = Fixture.now) {
        self.server = server
        clients = Array(repeating: NetcodeClient(), count: clientCount)
        clientAddresses = (0..<clientCount).map { NetcodeAddress(ipv4: 127, 0, 0, 2, port: UInt16(50000 + $0)) }
        clientLinkUp = Array(repeating: true, count: clientCount)
        self.now = now
    }

    /// Delivers what each side has queued and advances the clock by `dt`, `count` times.
    mutating func step(_ count: Int = 1, dt: Double = 0.05) {
        for _ in 0..<count {
            for index in clients.indices {
                for datagram in clients[index].takeOutgoing() where clientLinkUp[index] {
                    server.receive(datagram.bytes, from: clientAddresses[index], now: now)
                }
            }
            deliverFromServer()
            now += dt
            server.update(now: now)
            for index in clients.indices { clients[index].update(now: now) }
            serverEvents += server.takeEvents()
        }
    }

    mutating func deliverFromServer() {
        for datagram in server.takeOutgoing() {
            sentByServer.append(datagram)
            guard serverLinkUp, let index = clientAddresses.firstIndex(of: datagram.address) else { continue }
            clients[index].receive(datagram.bytes, from: Fixture.serverAddress, now: now)
        }
        serverEvents += server.takeEvents()
    }
}

extension NetcodeServer {
    static func fixture(maxClients: Int = 4) throws -> NetcodeServer {
        try NetcodeServer(
            configuration: .init(
                protocolID: Fixture.protocolID, privateKey: Fixture.privateKey, publicAddresses: [Fixture.serverAddress],
                maxClients: maxClients,
                challengeKey: Fixture.challengeKey))
    }
}

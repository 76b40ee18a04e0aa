import TickwireIO
import TickwireNetcode
import TickwireSim

@testable import TickwireUDPTransport

/// A UDP transport server on 127.0.0.1 with a fresh key, and connect tokens for it.
struct UDPTestServer {
    static let protocolID: UInt64 = 0x5449_434B_5749_5245
    let key: NetcodeKey
    let server: UDPTransportServer

    /// A server with its own fresh key (or `key`), holding at most `maxClients`.
    init(limits: UDPTransportLimits = UDPTransportLimits(), key: NetcodeKey = NetcodeKey.random(), maxClients: Int = Netcode.maxClients)
        throws
    {
        self.key = key
        var configuration = UDPTransportServerConfiguration(
            address: try requireAddress("127.0.0.1", 0), protocolID: Self.protocolID, privateKey: key)
        configuration.limits = limits
        configuration.maxClients = maxClients
        server = try UDPTransportServer(configuration: configuration)
    }

    /// A token for this server (or for `addresses`, tried in order), sealed with `key` (this
    /// server's unless given), valid from `createdAgo` seconds ago for `lifetime` seconds.
    func token(
        clientID: UInt64, key: NetcodeKey? = nil, timeoutSeconds: Int32 = 5, createdAgo: UInt64 = 0, lifetime: UInt64 = 30,
        addresses: [NetcodeAddress]? = nil, userData: [UInt8] = Array(repeating: 7, count: Netcode.userDataBytes)
    ) throws -> ConnectToken {
        let now = UInt64(UDPClock.unixSeconds())
        let privatePart = try ConnectTokenPrivate(
            clientID: clientID, timeoutSeconds: timeoutSeconds, serverAddresses: addresses ?? server.publicAddresses,
            clientToServerKey: NetcodeKey.random(), serverToClientKey: NetcodeKey.random(),
            userData: userData)
        return try ConnectToken.generate(
            privatePart, protocolID: Self.protocolID, createTimestamp: now - createdAgo, expireTimestamp: now - createdAgo + lifetime,
            privateKey: key ?? self.key)
    }
}

struct MissingAddress: Error {}

func requireAddress(_ host: String, _ port: Int) throws -> SocketAddress {
    guard let address = SocketAddress(numericHost: host, port: port) else { throw MissingAddress() }
    return address
}

/// Polls `body` every 2 ms until it returns true or `seconds` pass; returns whether it did.
func waitUntil(seconds: Int = 5, _ body: () -> Bool) -> Bool {
    let clock = MonotonicClock()
    let deadline = clock.now + .seconds(seconds)
    while clock.now < deadline {
        if body() { return true }
        clock.sleep(until: clock.now + .milliseconds(2))
    }
    return body()
}

extension TransportEvent {
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}

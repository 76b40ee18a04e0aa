import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The UDP side of one `arena serve` process: several netcode.io servers, each on its own UDP
/// port, on one event loop, all feeding the same host and rooms.
///
/// One netcode.io server holds at most `Netcode.maxClients` (256) clients, the standard's
/// `NETCODE_MAX_CLIENTS`, which a reference client checks in every keep-alive. netcode.io's own
/// answer to more players is more servers: a connect token names up to
/// `Netcode.maxServersPerConnect` (32) addresses, and a client that one of them denies (full)
/// or does not answer tries the next. So a process serves up to 32 × 256 UDP players: its
/// guest tokens (``addressesByFreeSlots()``) name every server, the one with the most free
/// slots first. The servers bind consecutive ports from the first (`--udp-port P`: P, P + 1,
/// …), or each any free one for port 0.
///
/// Thread-safe: the servers are, and the rest is immutable.
package final class ArenaUDPServers: Sendable {
    /// The most netcode.io servers one process runs: as many as a connect token can name
    /// (`Netcode.maxServersPerConnect`, 32), `arena serve --udp-servers`.
    package static let maximumCount = Netcode.maxServersPerConnect

    /// The servers, in port order; the first is the one a fleet registers.
    let servers: [UDPTransportServer]
    /// The key every server's tokens are sealed with.
    let key: NetcodeKey
    /// The loop every server runs on.
    private let loop: EventLoop

    /// The number of servers `arena serve` runs by default: enough for `players` at 256 each,
    /// between 1 and ``maximumCount``.
    ///
    /// - Parameter players: The players the process may hold (its rooms × their capacity).
    /// - Returns: The count.
    static func defaultCount(players: Int) -> Int {
        min(maximumCount, max(1, (players + Netcode.maxClients - 1) / Netcode.maxClients))
    }

    /// Binds `count` servers on `host` from `firstPort`, and starts their loop.
    ///
    /// - Parameters:
    ///   - count: Servers, 1...``maximumCount``.
    ///   - host: The numeric address to bind.
    ///   - firstPort: The first server's port; the others follow it. 0: any free port for each.
    ///   - configuration: Each server's configuration; its address is replaced by each one's.
    /// - Throws: ``SystemError``: `EINVAL` for a count out of range, a host that is not numeric
    ///   or ports past 65535; the server's own failure when one cannot be bound (the servers
    ///   bound before it are shut down).
    init(count: Int, host: String, firstPort: Int, configuration: UDPTransportServerConfiguration) throws(SystemError) {
        guard (1...Self.maximumCount).contains(count) else {
            throw SystemError(
                call: "UDP servers: \(count) asked for, 1...\(Self.maximumCount) (a connect token names at most "
                    + "\(Self.maximumCount) addresses; arena serve --udp-servers)", code: EINVAL)
        }
        guard firstPort == 0 || firstPort + count - 1 <= 65535 else {
            throw SystemError(
                call: "UDP servers: ports \(firstPort)...\(firstPort + count - 1) go past 65535 (arena serve --udp-port, --udp-servers)",
                code: EINVAL)
        }
        let loop = try EventLoop()
        try loop.start()
        var servers: [UDPTransportServer] = []
        for index in 0..<count {
            let port = firstPort == 0 ? 0 : firstPort + index
            guard let address = SocketAddress(numericHost: host, port: port) else {
                loop.stop()
                throw SystemError(call: "UDP on \(host):\(port): a numeric address is needed", code: EINVAL)
            }
            var own = configuration
            own.address = address
            do throws(UDPTransportError) {
                servers.append(try UDPTransportServer(configuration: own, loop: loop))
            } catch {
                for server in servers { server.shutdown() }
                loop.stop()
                throw error.systemError ?? SystemError(call: "UDPTransportServer on \(host):\(port): \(error)", code: EINVAL)
            }
        }
        self.servers = servers
        self.loop = loop
        key = configuration.privateKey
    }

    /// Every server's first public address, the one with the most free slots first (ties in
    /// port order): what a guest token names, so that players fill the emptiest server and a
    /// full one's denial sends a client on to the next.
    ///
    /// - Returns: One address per server.
    func addressesByFreeSlots() -> [NetcodeAddress] {
        Self.ordered(
            servers.compactMap { server in
                server.publicAddresses.first.map { (address: $0, freeSlots: server.maxClients - server.statistics.connectedClients) }
            })
    }

    /// `servers`' addresses, most free slots first, ties in their given order.
    ///
    /// - Parameter servers: Each server's address and free slots.
    /// - Returns: The addresses, ordered.
    static func ordered(_ servers: [(address: NetcodeAddress, freeSlots: Int)]) -> [NetcodeAddress] {
        servers.enumerated()
            .sorted { $0.element.freeSlots != $1.element.freeSlots ? $0.element.freeSlots > $1.element.freeSlots : $0.offset < $1.offset }
            .map(\.element.address)
    }

    /// The servers' figures added up (clients, datagrams, bytes, drops), for `GET /metrics`
    /// and the load report's view of the process.
    var statistics: UDPTransportServer.Statistics {
        servers.reduce(into: UDPTransportServer.Statistics()) { total, server in total.add(server.statistics) }
    }

    /// Shuts every server down (netcode.io's disconnects sent), then stops their loop.
    func shutdown() {
        for server in servers { server.shutdown() }
        loop.stop()
    }
}

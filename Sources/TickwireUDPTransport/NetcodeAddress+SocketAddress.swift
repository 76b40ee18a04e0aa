import TickwireIO
import TickwireNetcode

extension NetcodeAddress {
    /// The netcode.io address of a socket address; an IPv4-mapped IPv6 address
    /// (`::ffff:127.0.0.1`, what a dual-stack socket reports for IPv4 peers) becomes IPv4.
    ///
    /// - Parameter address: A numeric socket address.
    /// - Returns: The address, or `nil` when its host does not parse.
    init?(_ address: SocketAddress) {
        guard let port = UInt16(exactly: address.port) else { return nil }
        var host = address.host
        if host.lowercased().hasPrefix("::ffff:"), host.contains(".") { host = String(host.dropFirst(7)) }
        let text = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do throws(NetcodeError) {
            self = try NetcodeAddress(parsing: text)
        } catch {
            return nil
        }
    }

    /// The socket address to send to from a socket of `family`: an IPv4 address is written
    /// IPv4-mapped (`::ffff:a.b.c.d`) for an IPv6 socket.
    ///
    /// - Parameter family: The sending socket's family.
    /// - Returns: The address, or `nil` for an IPv6 address and an IPv4 socket.
    func socketAddress(for family: SocketAddress.Family) -> SocketAddress? {
        let port = Int(self.port)
        if isIPv4 {
            let dotted = bytes.map(String.init).joined(separator: ".")
            return SocketAddress(numericHost: family == .ipv6 ? "::ffff:\(dotted)" : dotted, port: port)
        }
        guard family == .ipv6 else { return nil }
        return SocketAddress(numericHost: ipv6Groups.map { String($0, radix: 16) }.joined(separator: ":"), port: port)
    }
}

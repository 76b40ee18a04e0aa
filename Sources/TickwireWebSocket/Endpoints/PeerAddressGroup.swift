import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The group of peer addresses the server's per-address limits count together: one IPv4
/// address, or the IPv6 addresses sharing a prefix (``WebSocketServerConfiguration/ipv6PrefixLength``).
///
/// An IPv6 host usually holds a whole /64 and can pick a new address in it for every
/// connection, so counting single IPv6 addresses would limit nothing. An IPv4-mapped IPv6
/// address (`::ffff:a.b.c.d`, what a dual-stack listener on `::` sees for IPv4 peers) counts
/// as the IPv4 address it carries.
struct PeerAddressGroup: Hashable {
    /// The address's first 64 bits (for IPv4: the address), masked to the prefix.
    let high: UInt64
    /// The address's last 64 bits, masked to the prefix (0 for IPv4).
    let low: UInt64
    let isIPv6: Bool

    /// The group of `address`, or `nil` when its host is not a numeric address.
    ///
    /// - Parameters:
    ///   - address: The peer's address.
    ///   - ipv6PrefixLength: How many leading bits of an IPv6 address name its group, 0...128.
    init?(_ address: SocketAddress, ipv6PrefixLength: Int) {
        self.init(host: address.host, ipv6PrefixLength: ipv6PrefixLength)
    }

    /// The group of the numeric address `host` (see ``init(_:ipv6PrefixLength:)``).
    init?(host: String, ipv6PrefixLength: Int) {
        if !host.contains(":") {
            var v4 = in_addr()
            guard inet_pton(AF_INET, host, &v4) == 1 else { return nil }
            self.init(ipv4: UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytes[index])
            low = low << 8 | UInt64(bytes[index + 8])
        }
        if high == 0 && low >> 32 == 0xFFFF {
            self.init(ipv4: UInt32(truncatingIfNeeded: low))  // IPv4-mapped
            return
        }
        let bits = min(max(ipv6PrefixLength, 0), 128)
        let highMask: UInt64 = bits >= 64 ? .max : (bits == 0 ? 0 : .max << (64 - bits))
        let lowMask: UInt64 = bits <= 64 ? 0 : (bits == 128 ? .max : .max << (128 - bits))
        self.init(high: high & highMask, low: low & lowMask, isIPv6: true)
    }

    private init(ipv4: UInt32) {
        self.init(high: UInt64(ipv4), low: 0, isIPv6: false)
    }

    private init(high: UInt64, low: UInt64, isIPv6: Bool) {
        self.high = high
        self.low = low
        self.isIPv6 = isIPv6
    }
}

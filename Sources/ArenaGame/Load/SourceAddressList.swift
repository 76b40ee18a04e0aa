import Tickwire

/// The local addresses `tickwire load` spreads its clients over (`--source-addresses`), so that
/// a server's per-address budgets count each address apart: client *k* leaves from address
/// *k* mod *n*.
///
/// Written as a comma list of IPv4 or IPv6 addresses and IPv4 ranges:
/// `127.0.0.2-127.0.0.50`, `127.0.0.2,127.0.0.7-127.0.0.9`, `::1`.
package struct SourceAddressList: Hashable, Sendable, CustomStringConvertible {
    /// Why a `--source-addresses` value could not be read: which part, and what is wrong with it.
    package struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The sentence to show.
        package let description: String
    }

    /// The most addresses a list holds (a whole /16); a client per address is the most that is useful.
    package static let maximumCount = 65_536
    /// How many clients the default list puts on each address: the server's default per-address
    /// handshake budget (`maximumHandshakesPerAddress`, 16), far under its connection budget
    /// (64), so that a run whose clients all connect or reconnect at once stays under both.
    package static let defaultClientsPerAddress = 16
    /// Where the default list starts: the loopback address after the one servers listen on.
    package static let defaultFirstAddress: UInt32 = 0x7F00_0002

    /// The numeric addresses, in the order clients take them.
    package let addresses: [String]

    /// Reads a comma list of addresses and IPv4 ranges.
    ///
    /// - Parameter text: For example `127.0.0.2-127.0.0.50` or `127.0.0.2,127.0.0.5`.
    /// - Throws: ``ParseError`` for a part that is not a numeric address or a range of two
    ///   IPv4 addresses in order, or a list longer than ``maximumCount``.
    package init(parsing text: String) throws(ParseError) {
        var addresses: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmed }) {
            guard !part.isEmpty else { throw ParseError(description: "--source-addresses has an empty entry in '\(text)'") }
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map { String($0).trimmed }
            if ends.count == 2 {
                guard let first = Self.ipv4Value(ends[0]), let last = Self.ipv4Value(ends[1]) else {
                    throw ParseError(description: "--source-addresses range '\(part)' must join two IPv4 addresses (127.0.0.2-127.0.0.50)")
                }
                guard first <= last else { throw ParseError(description: "--source-addresses range '\(part)' runs backwards") }
                guard Int(last - first) + 1 + addresses.count <= Self.maximumCount else {
                    throw ParseError(description: "--source-addresses holds more than \(Self.maximumCount) addresses")
                }
                addresses += (first...last).map(Self.ipv4Text)
            } else {
                guard ends.count == 1, SocketAddress(numericHost: part, port: 0) != nil else {
                    throw ParseError(description: "--source-addresses entry '\(part)' is not a numeric address or an IPv4 range")
                }
                guard addresses.count < Self.maximumCount else {
                    throw ParseError(description: "--source-addresses holds more than \(Self.maximumCount) addresses")
                }
                addresses.append(part)
            }
        }
        self.addresses = addresses
    }

    /// A list of the given addresses.
    ///
    /// - Parameter addresses: Numeric addresses, at least one.
    package init(addresses: [String]) {
        self.addresses = addresses
    }

    /// The list `tickwire load` uses when it is given none: enough loopback addresses from
    /// 127.0.0.2 up for ``defaultClientsPerAddress`` clients each, when every target is on
    /// loopback (an IPv4 127.0.0.0/8 address or `localhost`) and the system makes all of
    /// 127.0.0.0/8 local (Linux); `nil` otherwise (Darwin has 127.0.0.1 alone unless
    /// `lo0` is given aliases), and for a run small enough for one address.
    ///
    /// - Parameters:
    ///   - clients: How many clients the run starts.
    ///   - hosts: The hosts of the URLs the clients connect to.
    ///   - isLoopbackWide: Whether every 127.0.0.0/8 address is local here (true on Linux).
    /// - Returns: The list, or `nil` to let the kernel choose.
    package static func defaultList(clients: Int, hosts: [String], isLoopbackWide: Bool = Self.isLoopbackWide) -> SourceAddressList? {
        guard isLoopbackWide, clients > defaultClientsPerAddress, !hosts.isEmpty else { return nil }
        guard hosts.allSatisfy({ $0 == "localhost" || (ipv4Value($0).map { $0 >> 24 == 127 } ?? false) }) else { return nil }
        let count = min((clients + defaultClientsPerAddress - 1) / defaultClientsPerAddress, maximumCount)
        return SourceAddressList(addresses: (0..<UInt32(count)).map { ipv4Text(defaultFirstAddress + $0) })
    }

    /// Whether every address of 127.0.0.0/8 can be bound here without configuration.
    package static var isLoopbackWide: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    /// The address client `index` leaves from (round robin), with port 0.
    ///
    /// - Parameter index: The client's number, from 0.
    /// - Returns: Its source address, or `nil` for an empty list or an address that does not parse.
    package func address(forClient index: Int) -> SocketAddress? {
        guard !addresses.isEmpty else { return nil }
        return SocketAddress(numericHost: addresses[index % addresses.count], port: 0)
    }

    /// The most clients any one address carries when `clients` are spread over the list.
    ///
    /// - Parameter clients: How many clients the run starts.
    /// - Returns: The largest share.
    package func clientsPerAddress(clients: Int) -> Int {
        addresses.isEmpty ? clients : (clients + addresses.count - 1) / addresses.count
    }

    /// `127.0.0.2` for one address, `127.0.0.2…127.0.0.14 (13 addresses)` for more.
    package var description: String {
        guard let first = addresses.first, let last = addresses.last else { return "none" }
        return addresses.count == 1 ? first : "\(first)…\(last) (\(addresses.count) addresses)"
    }

    /// The 32-bit value of a dotted IPv4 address, or `nil`.
    static func ipv4Value(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let octet = UInt32(part), octet <= 255 else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    /// The dotted text of a 32-bit IPv4 value.
    static func ipv4Text(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }
}

extension String {
    /// The text without leading and trailing spaces.
    fileprivate var trimmed: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

extension Character {
    /// Whether the character is one of `0`…`9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// An IPv4 or IPv6 address with a port, as netcode.io names servers in connect tokens and as
/// the sans-IO state machines name the peers of datagrams.
///
/// Serialized (in connect tokens) as the standard defines: a type byte (1 = IPv4, 2 = IPv6), then
/// for IPv4 the four bytes `a.b.c.d` in order, for IPv6 the eight 16-bit groups `a:…:h` each as a
/// little-endian `uint16`, then the port as a little-endian `uint16`.
public struct NetcodeAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]
    /// The UDP port.
    public let port: UInt16

    /// The wire value of the address type of an IPv4 address.
    public static let ipv4Type: UInt8 = 1
    /// The wire value of the address type of an IPv6 address.
    public static let ipv6Type: UInt8 = 2

    /// An IPv4 address `a.b.c.d:port`.
    ///
    /// - Parameters:
    ///   - a: The first byte.
    ///   - b: The second byte.
    ///   - c: The third byte.
    ///   - d: The fourth byte.
    ///   - port: The UDP port.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) {
        bytes = [a, b, c, d]
        self.port = port
    }

    /// An IPv6 address `[a:b:c:d:e:f:g:h]:port` from its eight 16-bit groups.
    ///
    /// - Parameters:
    ///   - groups: The eight groups, first to last; missing groups are zero, extra ones ignored.
    ///   - port: The UDP port.
    public init(ipv6 groups: [UInt16], port: UInt16) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for index in 0..<8 {
            let group = index < groups.count ? groups[index] : 0
            bytes.append(UInt8(truncatingIfNeeded: group >> 8))
            bytes.append(UInt8(truncatingIfNeeded: group))
        }
        self.bytes = bytes
        self.port = port
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The eight 16-bit groups of an IPv6 address (empty for IPv4).
    public var ipv6Groups: [UInt16] {
        guard bytes.count == 16 else { return [] }
        return (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
    }

    /// `a.b.c.d:port` or `[a:b:…:h]:port` (IPv6 groups in lowercase hexadecimal, not compressed).
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") + ":\(port)" }
        return "[" + ipv6Groups.map { String($0, radix: 16) }.joined(separator: ":") + "]:\(port)"
    }

    /// Parses `a.b.c.d:port` or `[ipv6]:port` (the IPv6 part may use `::`).
    ///
    /// - Parameter text: The address with its port.
    /// - Throws: ``NetcodeError`` with code `invalidAddress` when the text is not such an address.
    public init(parsing text: String) throws(NetcodeError) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidAddress(text) }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()), let groups = Self.parseIPv6(host) else {
                throw .invalidAddress(text)
            }
            self.init(ipv6: groups, port: port)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw .invalidAddress(text) }
        let octets = parts[0].split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        guard octets.count == 4, parts[0].split(separator: ".", omittingEmptySubsequences: false).count == 4 else {
            throw .invalidAddress(text)
        }
        self.init(ipv4: octets[0], octets[1], octets[2], octets[3], port: port)
    }

    private static func parseIPv6(_ host: String) -> [UInt16]? {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        let halves = host.split(separator: "::", omittingEmptySubsequences: false)
        switch halves.count {
        case 1:
            guard let all = groups(Substring(host)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(halves[0]), let tail = groups(halves[1]), head.count + tail.count < 8 else {
                return nil
            }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }

    /// Appends the standard's serialized form (type byte, address, port).
    func write(to writer: inout ByteWriter) {
        if isIPv4 {
            writer.write(Self.ipv4Type)
            writer.write(bytes: bytes)
        } else {
            writer.write(Self.ipv6Type)
            for group in ipv6Groups { writer.write(group) }
        }
        writer.write(port)
    }

    /// Reads the standard's serialized form.
    static func read(from reader: inout ByteReader) throws(NetcodeError) -> NetcodeAddress {
        let type = try reader.readUInt8()
        switch type {
        case ipv4Type:
            let octets = try reader.readBytes(4)
            return NetcodeAddress(ipv4: octets[0], octets[1], octets[2], octets[3], port: try reader.readUInt16())
        case ipv6Type:
            var groups: [UInt16] = []
            for _ in 0..<8 { groups.append(try reader.readUInt16()) }
            return NetcodeAddress(ipv6: groups, port: try reader.readUInt16())
        default:
            throw .invalidAddressType(type)
        }
    }
}

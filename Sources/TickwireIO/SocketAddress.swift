#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address (`sockaddr_in` / `sockaddr_in6` held in a `sockaddr_storage`).
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public struct Family: Hashable, Sendable {
        let rawValue: Int32
        /// IPv4 (`AF_INET`).
        public static let ipv4 = Family(rawValue: AF_INET)
        /// IPv6 (`AF_INET6`).
        public static let ipv6 = Family(rawValue: AF_INET6)
    }

    /// The numeric host, for example `127.0.0.1` or `::1`.
    public let host: String
    /// The port in host byte order.
    public let port: Int
    /// IPv4 or IPv6.
    public let family: Family

    /// Parses a numeric IPv4 or IPv6 address (no name lookup).
    ///
    /// - Parameters:
    ///   - host: A numeric address such as `127.0.0.1`, `0.0.0.0`, `::1` or `::`.
    ///   - port: The port, 0...65535 (0: let the kernel choose when binding).
    /// - Returns: `nil` when `host` is not a numeric address or the port is out of range.
    public init?(numericHost host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = .ipv4
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = .ipv6
        } else {
            return nil
        }
        self.host = host
        self.port = port
    }

    package init(host: String, port: Int, family: Family) {
        self.host = host
        self.port = port
        self.family = family
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String {
        family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        var storage = sockaddr_storage()
        let length: socklen_t
        if family == .ipv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            #if canImport(Darwin)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                withUnsafeBytes(of: &address) { raw.copyMemory(from: $0) }
            }
        }
        let copy = storage
        return try withUnsafeBytes(of: copy) { raw throws(SystemError) -> R in
            // sockaddr_storage is suitably aligned for every sockaddr type.
            guard let base = raw.baseAddress else { throw SystemError(call: "sockaddr", code: EINVAL) }
            return try body(base.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// Reads an address the kernel filled in (`accept`, `getsockname`, `getaddrinfo`).
    ///
    /// - Returns: `nil` for families other than IPv4 and IPv6.
    package static func from(_ pointer: UnsafePointer<sockaddr>) -> SocketAddress? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                guard inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return SocketAddress(host: host, port: Int(UInt16(bigEndian: address.pointee.sin_port)), family: .ipv4)
            }
        case AF_INET6:
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var raw = address.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
                let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return SocketAddress(host: host, port: Int(UInt16(bigEndian: address.pointee.sin6_port)), family: .ipv6)
            }
        default:
            return nil
        }
    }

    /// Resolves a host name or numeric address to socket addresses with `getaddrinfo` (blocking).
    ///
    /// - Parameters:
    ///   - host: A name (`localhost`) or a numeric IPv4/IPv6 address; brackets around IPv6 are removed.
    ///   - port: The port, 0...65535.
    /// - Returns: The TCP addresses found, in the resolver's order.
    /// - Throws: ``SystemError`` naming `getaddrinfo` (its `code` is then the `EAI_*` value) when the lookup fails.
    public static func resolve(host: String, port: Int) throws(SystemError) -> [SocketAddress] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let numeric = SocketAddress(numericHost: name, port: port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, String(port), &hints, &result)
        guard status == 0 else { throw SystemError(call: "getaddrinfo", code: status) }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var cursor = result
        while let entry = cursor {
            if let pointer = entry.pointee.ai_addr, let address = SocketAddress.from(pointer), !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}

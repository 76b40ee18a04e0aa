import TickwireNetcode

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TEST ONLY: a blocking IPv4 UDP socket on 127.0.0.1 (Glibc `socket`/`bind`/`sendto`/`recvfrom`,
/// `poll` for bounded waits) that drives the sans-IO netcode state machines until TickwireIO has
/// UDP. Not for production: no non-blocking loop, no IPv6, one socket per owner.
final class TestOnlyUDPSocket {
    struct SocketError: Error, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call) failed: errno \(errno)" }
    }

    private let descriptor: Int32
    /// The bound address (127.0.0.1 and the port the kernel chose).
    let address: NetcodeAddress

    /// Binds 127.0.0.1 port 0.
    init() throws {
        #if canImport(Glibc)
        let kind = Int32(SOCK_DGRAM.rawValue)
        #else
        let kind = SOCK_DGRAM
        #endif
        let descriptor = socket(AF_INET, kind, 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var local = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let failure = errno
            close(descriptor)
            throw SocketError(call: "bind", errno: failure)
        }
        var name = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let failure = errno
            close(descriptor)
            throw SocketError(call: "getsockname", errno: failure)
        }
        self.descriptor = descriptor
        address = NetcodeAddress(ipv4: 127, 0, 0, 1, port: UInt16(bigEndian: name.sin_port))
    }

    deinit { close(descriptor) }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Sends a datagram to an IPv4 address.
    func send(_ bytes: [UInt8], to destination: NetcodeAddress) throws {
        guard destination.isIPv4 else { throw SocketError(call: "sendto (IPv6 is not supported here)", errno: 0) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = destination.port.bigEndian
        let raw = destination.bytes
        target.sin_addr.s_addr = (UInt32(raw[0]) << 24 | UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8 | UInt32(raw[3])).bigEndian
        let sent = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard sent == bytes.count else { throw SocketError(call: "sendto", errno: errno) }
    }

    /// Waits up to `milliseconds` for one datagram; nil when none came.
    func receive(waitingAtMost milliseconds: Int32) throws -> (bytes: [UInt8], from: NetcodeAddress)? {
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptorSet, 1, milliseconds)
        if ready < 0 && errno != EINTR { throw SocketError(call: "poll", errno: errno) }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2048)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count >= 0 else { throw SocketError(call: "recvfrom", errno: errno) }
        let host = UInt32(bigEndian: source.sin_addr.s_addr)
        let from = NetcodeAddress(
            ipv4: UInt8(host >> 24), UInt8(truncatingIfNeeded: host >> 16), UInt8(truncatingIfNeeded: host >> 8),
            UInt8(truncatingIfNeeded: host), port: UInt16(bigEndian: source.sin_port))
        return (Array(buffer[0..<count]), from)
    }
}

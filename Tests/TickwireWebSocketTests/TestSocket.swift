#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client for tests, with send and receive timeouts so no test can hang.
///
/// Deliberately independent of the library's event loop: it is the "other side" that checks it.
final class TestSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var descriptor: Int32

    /// Connects to `host:port` (IPv4 or IPv6 numeric) with `timeoutSeconds` on every send and
    /// receive, from the IPv4 address `source` when given (127.0.0.2 for a second client address).
    init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 5, source: String? = nil) throws {
        let isV6 = host.contains(":")
        #if canImport(Glibc)
        descriptor = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(isV6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed, errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(descriptor)
                throw Failure(description: "bind to \(source) failed, errno \(code)")
            }
        }
        let status: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard status == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure(description: "connect to \(host):\(port) failed, errno \(code)")
        }
    }

    deinit { if descriptor >= 0 { _ = Glibc.close(descriptor) } }

    /// Sets the receive buffer size (`SO_RCVBUF`), to make a slow reader's window small.
    func setReceiveBuffer(_ bytes: Int32) {
        var value = bytes
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sends every byte, or throws when the peer stops taking them within the timeout.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(descriptor, raw.baseAddress, raw.count, 0)
                #endif
            }
            guard count > 0 else { throw Failure(description: "send failed after \(offset) bytes, errno \(errno)") }
            offset += count
        }
    }

    /// Sends text as UTF-8.
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Receives whatever is available (blocking up to the timeout); empty at end of stream.
    func receiveSome(maximum: Int = 65536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw Failure(description: "receive timed out or failed, errno \(errno)") }
        return Array(buffer[0..<count])
    }

    /// Receives exactly `count` bytes, or throws on timeout or end of stream.
    func receive(exactly count: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            let chunk = try receiveSome(maximum: min(65536, count - result.count))
            guard !chunk.isEmpty else { throw Failure(description: "end of stream after \(result.count) of \(count) bytes") }
            result += chunk
        }
        return result
    }

    /// Receives until end of stream (bounded by `limit` bytes and the timeout).
    func receiveUntilClosed(limit: Int = 1 << 20) throws -> [UInt8] {
        var result: [UInt8] = []
        while result.count < limit {
            let chunk = try receiveSome()
            if chunk.isEmpty { return result }
            result += chunk
        }
        return result
    }

    /// Whether bytes (or end of stream) can be read, waiting up to `waitingMilliseconds` (`poll(2)`).
    func isReadable(waitingMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, waitingMilliseconds) > 0
    }

    /// A valid upgrade request for `path` with a fixed key, plus `extraHeaders` lines.
    static func upgradeRequest(path: String = "/", extraHeaders: [String] = []) -> String {
        var lines = [
            "GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
        ]
        lines += extraHeaders
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Reads an HTTP head (up to the empty line) and returns it as text.
    func receiveHead(limit: Int = 16384) throws -> String {
        var head: [UInt8] = []
        while head.count < limit {
            let byte = try receiveSome(maximum: 1)
            guard let first = byte.first else { break }
            head.append(first)
            if head.count >= 4 && head.suffix(4) == [13, 10, 13, 10] { break }
        }
        return String(decoding: head, as: UTF8.self)
    }

    func close() {
        if descriptor >= 0 {
            #if canImport(Glibc)
            Glibc.close(descriptor)
            #else
            Darwin.close(descriptor)
            #endif
        }
        descriptor = -1
    }
}

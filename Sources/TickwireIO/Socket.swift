#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The owner of one non-blocking TCP socket descriptor; closes it in `deinit`.
///
/// Every method is a thin wrapper over one POSIX call and throws ``SystemError`` naming it.
/// Reads and writes return `nil` instead of throwing when the call would block (`EAGAIN`), and
/// writes never raise `SIGPIPE` (`MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Darwin).
///
/// Not thread-safe: a socket belongs to the event loop thread that serves it.
package final class Socket {
    /// The descriptor, or -1 once closed.
    ///
    /// Unchecked exclusivity: every system call reads it, and being `package` the optimizer can no
    /// longer prove that no access overlaps another; a socket belongs to one thread, and none does.
    @exclusivity(unchecked) package private(set) var descriptor: Int32

    /// Takes ownership of an open descriptor and makes it non-blocking.
    package init(owning descriptor: Int32) throws(SystemError) {
        self.descriptor = descriptor
        try setNonBlocking()
        #if canImport(Darwin)
        try setOption(SOL_SOCKET, SO_NOSIGPIPE, 1, name: "setsockopt(SO_NOSIGPIPE)")
        #endif
    }

    /// A socket's type: a byte stream (TCP) or datagrams (UDP).
    package struct Kind: Hashable, Sendable {
        /// The `SOCK_*` value.
        let rawValue: Int32
        /// A TCP byte stream (`SOCK_STREAM`).
        package static let stream: Kind = {
            #if canImport(Glibc)
            Kind(rawValue: Int32(SOCK_STREAM.rawValue))
            #else
            Kind(rawValue: SOCK_STREAM)
            #endif
        }()
        /// UDP datagrams (`SOCK_DGRAM`).
        package static let datagram: Kind = {
            #if canImport(Glibc)
            Kind(rawValue: Int32(SOCK_DGRAM.rawValue))
            #else
            Kind(rawValue: SOCK_DGRAM)
            #endif
        }()
    }

    /// Opens a new socket for `family` (`socket(2)`), non-blocking and close-on-exec.
    ///
    /// - Parameters:
    ///   - family: IPv4 or IPv6.
    ///   - kind: TCP (``Kind/stream``, the default) or UDP (``Kind/datagram``).
    /// - Throws: ``SystemError`` naming `socket`, `fcntl` or (Darwin) `setsockopt(SO_NOSIGPIPE)`.
    package convenience init(family: SocketAddress.Family, kind: Kind = .stream) throws(SystemError) {
        #if canImport(Glibc)
        let fd = Glibc.socket(family.rawValue, kind.rawValue | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = Darwin.socket(family.rawValue, kind.rawValue, 0)
        #endif
        guard fd >= 0 else { throw .current("socket") }
        #if canImport(Darwin)
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) >= 0 else {
            let error = SystemError.current("fcntl(F_SETFD)")
            _ = Darwin.close(fd)
            throw error
        }
        #endif
        try self.init(owning: fd)
    }

    deinit { close() }

    /// Closes the descriptor (`close(2)`); later calls do nothing.
    package func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }

    private func setNonBlocking() throws(SystemError) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0 else { throw .current("fcntl(F_GETFL)") }
        guard fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) >= 0 else { throw .current("fcntl(F_SETFL)") }
    }

    /// Sets an integer socket option (`setsockopt(2)`).
    package func setOption(_ level: Int32, _ option: Int32, _ value: Int32, name: String) throws(SystemError) {
        var value = value
        guard setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .current(name)
        }
    }

    /// Disables Nagle's algorithm (`TCP_NODELAY`) so small frames leave at once.
    package func setNoDelay() throws(SystemError) {
        try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "setsockopt(TCP_NODELAY)")
    }

    /// Binds to `address` (`bind(2)`); an IPv6 socket also takes IPv4-mapped peers when bound to `::`
    /// (`IPV6_V6ONLY` off).
    ///
    /// - Parameters:
    ///   - address: The local address; port 0 lets the kernel choose.
    ///   - reusesAddress: Sets `SO_REUSEADDR` first, so that a restarted TCP server can reuse its
    ///     port while old connections linger in `TIME_WAIT`. Default `true`. UDP has no `TIME_WAIT`,
    ///     and on Linux `SO_REUSEADDR` would let a second UDP socket bind the same port and take
    ///     part of its datagrams: UDP passes `false`.
    /// - Throws: ``SystemError`` naming `setsockopt` or `bind`.
    package func bind(to address: SocketAddress, reusesAddress: Bool = true) throws(SystemError) {
        if reusesAddress {
            try setOption(SOL_SOCKET, SO_REUSEADDR, 1, name: "setsockopt(SO_REUSEADDR)")
        }
        if address.family == .ipv6 {
            // Accept IPv4-mapped peers on `::` too, as most servers do.
            try setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0, name: "setsockopt(IPV6_V6ONLY)")
        }
        try bindDescriptor(to: address)
    }

    /// `bind(2)` of the descriptor to `address`, with no option set.
    private func bindDescriptor(to address: SocketAddress) throws(SystemError) {
        let fd = descriptor
        try address.withSockAddr { (pointer, length) throws(SystemError) in
            #if canImport(Glibc)
            let status = Glibc.bind(fd, pointer, length)
            #else
            let status = Darwin.bind(fd, pointer, length)
            #endif
            guard status == 0 else { throw .current("bind") }
        }
    }

    /// Starts listening (`listen(2)`).
    package func listen(backlog: Int32) throws(SystemError) {
        #if canImport(Glibc)
        let status = Glibc.listen(descriptor, backlog)
        #else
        let status = Darwin.listen(descriptor, backlog)
        #endif
        guard status == 0 else { throw .current("listen") }
    }

    /// Accepts one pending connection (`accept(2)`), or `nil` when none is waiting.
    package func accept() throws(SystemError) -> (Socket, SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                #if canImport(Glibc)
                Glibc.accept(descriptor, address, &length)
                #else
                Darwin.accept(descriptor, address, &length)
                #endif
            }
        }
        guard fd >= 0 else {
            let error = SystemError.current("accept")
            if error.isWouldBlock || error.isInterrupted || error.code == ECONNABORTED { return nil }
            throw error
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let peer = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress.from($0) }
        }
        return (try Socket(owning: fd), peer)
    }

    /// Makes the connection that ``connect(to:from:)`` opens leave from `source`: binds the socket
    /// to that local address before the connect (`bind(2)`), on Linux with
    /// `IP_BIND_ADDRESS_NO_PORT` so that the ephemeral port is chosen at connect time, per
    /// destination, and many connections can share one source address.
    ///
    /// - Parameter source: A local address of this host (`127.0.0.2`: the whole of
    ///   127.0.0.0/8 is local on Linux; Darwin has only the aliases configured on `lo0`). Its
    ///   port is normally 0.
    /// - Throws: ``SystemError`` naming `bind` (`EADDRNOTAVAIL` when the address is not
    ///   local) or `setsockopt`.
    package func bind(source: SocketAddress) throws(SystemError) {
        #if os(Linux)
        if source.port == 0 {
            // IP_BIND_ADDRESS_NO_PORT (linux/in.h, 24), which Glibc's module does not export.
            try setOption(Int32(IPPROTO_IP), 24, 1, name: "setsockopt(IP_BIND_ADDRESS_NO_PORT)")
        }
        #endif
        try bindDescriptor(to: source)
    }

    /// Starts connecting to `address` from the local address `source` (``bind(source:)`` first,
    /// then `connect(2)`), or from whichever address the kernel picks when `source` is `nil`.
    ///
    /// - Parameters:
    ///   - address: The peer.
    ///   - source: The local address to leave from, of the same family as `address`, or `nil`.
    /// - Returns: `true` when connected at once, `false` when the connection is in progress.
    /// - Throws: ``SystemError`` naming `bind` or `connect`; `EAFNOSUPPORT` for a source of
    ///   another family than `address`.
    package func connect(to address: SocketAddress, from source: SocketAddress?) throws(SystemError) -> Bool {
        if let source {
            guard source.family == address.family else { throw SystemError(call: "bind", code: EAFNOSUPPORT) }
            try bind(source: source)
        }
        return try connect(to: address)
    }

    /// Starts connecting to `address` (`connect(2)`).
    ///
    /// - Returns: `true` when connected at once, `false` when the connection is in progress
    ///   (wait for writability, then call ``connectionError()``).
    package func connect(to address: SocketAddress) throws(SystemError) -> Bool {
        let fd = descriptor
        return try address.withSockAddr { (pointer, length) throws(SystemError) -> Bool in
            #if canImport(Glibc)
            let status = Glibc.connect(fd, pointer, length)
            #else
            let status = Darwin.connect(fd, pointer, length)
            #endif
            if status == 0 { return true }
            let error = SystemError.current("connect")
            if error.isInProgress || error.isInterrupted { return false }
            throw error
        }
    }

    /// The pending error of a non-blocking connect (`getsockopt(SO_ERROR)`), or `nil` when it succeeded.
    package func connectionError() -> SystemError? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return .current("getsockopt(SO_ERROR)") }
        return value == 0 ? nil : SystemError(call: "connect", code: value)
    }

    /// The local address (`getsockname(2)`), for reading back the port the kernel chose for port 0.
    package func localAddress() throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw .current("getsockname") }
        let address = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress.from($0) }
        }
        guard let address else { throw SystemError(call: "getsockname", code: EAFNOSUPPORT) }
        return address
    }

    /// Reads into `buffer` (`read(2)`).
    ///
    /// - Returns: The byte count (0 means the peer closed its side), or `nil` when nothing is available now.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try Self.retrying("read") {
            #if canImport(Glibc)
            Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            #else
            Darwin.read(descriptor, buffer.baseAddress, buffer.count)
            #endif
        }
    }

    /// Writes from `buffer` (`send(2)` with `MSG_NOSIGNAL` on Linux).
    ///
    /// - Returns: The byte count written, or `nil` when the socket buffer is full.
    package func write(from buffer: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try Self.retrying("send") {
            #if canImport(Glibc)
            Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            #else
            Darwin.send(descriptor, buffer.baseAddress, buffer.count, 0)
            #endif
        }
    }

    /// Writes `first` then `second` in one call (`sendmsg(2)` with two `iovec`s, `MSG_NOSIGNAL` on
    /// Linux): a frame header and a payload that stays where it is, with no copy to join them.
    ///
    /// - Returns: The byte count written, counted across both, or `nil` when the socket buffer is full.
    package func write(from first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors throws(SystemError) in
            vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count)
            vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = numericCast(vectors.count)
            return try Self.retrying("sendmsg") {
                #if canImport(Glibc)
                Glibc.sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
                #else
                Darwin.sendmsg(descriptor, &message, 0)
                #endif
            }
        }
    }

    /// Runs a non-blocking I/O call until it is not interrupted (`EINTR`).
    ///
    /// - Parameters:
    ///   - name: The call's name, for the error.
    ///   - call: The system call; it returns a byte count, or -1 with `errno` set.
    /// - Returns: The byte count, or `nil` when the call would block.
    /// - Throws: ``SystemError`` for any other failure.
    private static func retrying(_ name: String, _ call: () -> Int) throws(SystemError) -> Int? {
        while true {
            let count = call()
            if count >= 0 { return count }
            let error = SystemError.current(name)
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    /// Closes the sending direction (`shutdown(2)` with `SHUT_WR`): the peer reads end of stream.
    package func shutdownWrite() {
        #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
        #else
        _ = Darwin.shutdown(descriptor, SHUT_WR)
        #endif
    }
}

@available(*, unavailable)
extension Socket: Sendable {}

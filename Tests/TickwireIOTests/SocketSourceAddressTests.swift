import Testing
import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Socket.connect(to:from:)`: a connection that leaves from a chosen local address.
@Suite("Socket source address")
struct SocketSourceAddressTests {
    /// Whether the whole of 127.0.0.0/8 is local here without configuration.
    static let isLoopbackWide: Bool = {
        #if os(Linux)
        true
        #else
        false
        #endif
    }()

    /// A listening socket on 127.0.0.1 with a kernel-chosen port.
    static func listener() throws -> (Socket, SocketAddress) {
        let listener = try Socket(family: .ipv4)
        try listener.bind(to: try #require(SocketAddress(numericHost: "127.0.0.1", port: 0)))
        try listener.listen(backlog: 8)
        return (listener, try listener.localAddress())
    }

    /// Accepts one connection, waiting for it with the poller at most `seconds`.
    static func acceptOne(_ listener: Socket, seconds: Int32 = 5) throws -> SocketAddress? {
        let poller = try Poller()
        try poller.add(listener.descriptor, interest: .read)
        var events: [PollEvent] = []
        try poller.wait(timeoutMilliseconds: seconds * 1000, into: &events)
        try #require(!events.isEmpty, "the connection should be waiting within \(seconds) s")
        let accepted = try #require(try listener.accept(), "a readable listener has a connection to accept")
        return accepted.1
    }

    @Test("bound to 127.0.0.2 before the connect, the connection reaches 127.0.0.1 from 127.0.0.2", .enabled(if: isLoopbackWide))
    func connectsFromTheSourceAddress() throws {
        let (listener, address) = try Self.listener()
        let client = try Socket(family: .ipv4)
        _ = try client.connect(to: address, from: try #require(SocketAddress(numericHost: "127.0.0.2", port: 0)))
        let peer = try Self.acceptOne(listener)
        #expect(peer?.host == "127.0.0.2", "the listener should see the source address, saw \(String(describing: peer))")
        #expect(try client.localAddress().host == "127.0.0.2", "getsockname names the source address")
        #expect(try client.localAddress().port != 0, "the kernel chose a port at connect time")
    }

    @Test("without a source address the kernel picks 127.0.0.1 for a loopback peer")
    func connectsWithoutSourceAddress() throws {
        let (listener, address) = try Self.listener()
        let client = try Socket(family: .ipv4)
        _ = try client.connect(to: address, from: nil)
        #expect(try Self.acceptOne(listener)?.host == "127.0.0.1")
    }

    @Test("a source of another family than the peer is refused before any system call reaches the network")
    func refusesAnotherFamily() throws {
        let (_, address) = try Self.listener()
        let client = try Socket(family: .ipv4)
        #expect(throws: SystemError(call: "bind", code: EAFNOSUPPORT)) {
            _ = try client.connect(to: address, from: try #require(SocketAddress(numericHost: "::1", port: 0)))
        }
    }

    @Test("an address that is not this host's fails in bind with EADDRNOTAVAIL")
    func refusesAForeignAddress() throws {
        let (_, address) = try Self.listener()
        let client = try Socket(family: .ipv4)
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address.
        #expect(throws: SystemError(call: "bind", code: EADDRNOTAVAIL)) {
            _ = try client.connect(to: address, from: try #require(SocketAddress(numericHost: "192.0.2.1", port: 0)))
        }
    }
}

import Testing
import TickwireFoundation
import TickwireIO

/// The `tickwire` tool's plain TCP echo server, the WebSocket benchmark's baseline: the event
/// loop and TCP channels without framing. Tested here, beside the WebSocket echo tests, for the
/// blocking test socket they share.
@Suite("TCP echo server")
struct TCPEchoServerTests {
    @Test("TCP echo server returns every byte over IPv4 and IPv6, to several clients")
    func tcpEcho() throws {
        let server = try TCPEchoServer()
        defer { server.stop() }
        let address = try server.start(host: "127.0.0.1", port: 0)
        #expect(address.port > 0, "port 0 should be replaced by the kernel's choice")
        var random = SplitMix64(seed: 7)
        let clients = try (0..<10).map { _ in try TestSocket(port: address.port) }
        for client in clients {
            let payload = randomBytes(100_000, using: &random)
            try client.send(payload)
            #expect(try client.receive(exactly: payload.count) == payload, "the echo should return the bytes unchanged")
        }

        let server6 = try TCPEchoServer()
        defer { server6.stop() }
        let address6 = try server6.start(host: "::1", port: 0)
        let client6 = try TestSocket(host: "::1", port: address6.port)
        try client6.send("hello over IPv6")
        #expect(try client6.receive(exactly: 15) == Array("hello over IPv6".utf8))
    }

    @Test("a TCP peer that never reads cannot grow the echo server's buffer past its bound")
    func tcpEchoBackpressure() throws {
        let server = try TCPEchoServer(maximumBufferedBytes: 256 * 1024)
        defer { server.stop() }
        let address = try server.start()
        let client = try TestSocket(port: address.port, timeoutSeconds: 1)
        client.setReceiveBuffer(16 * 1024)
        // Send until the server stops reading and the kernel buffers fill: send then times out.
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        var sent = 0
        while sent < 256 * 1024 * 1024 {
            do { try client.send(chunk) } catch { break }
            sent += chunk.count
        }
        #expect(sent < 64 * 1024 * 1024, "the server should stop reading long before 64 MiB; it took \(sent) bytes")
    }
}

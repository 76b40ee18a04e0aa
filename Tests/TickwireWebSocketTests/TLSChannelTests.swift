import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// Two TLS channels on one loop, for the tests below (loop thread only).
private final class ChannelPair {
    var listener: Listener?
    var server: TCPChannel?
    var client: TCPChannel?
    var received: [UInt8] = []
    var readCalls = 0
    var writableEvents = 0
}

@Suite("TLS under TCPChannel")
struct TLSChannelTests {
    @Test("8 MiB over TLS to a peer that does not read: the writer buffers (backpressure), then all of it arrives in order")
    func backpressure() throws {
        let certificates = try TestCertificates.get()
        let serverContext = try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.server.key)
        let clientContext = try TLSClientContext(configuration: TLSClientConfiguration(caFile: certificates.caFile))
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        var random = SplitMix64(seed: 8)
        let payload = randomBytes(8 << 20, using: &random)
        let pair = LoopBound<ChannelPair?>(nil)
        let started = loop.runAndWait { () -> Bool in
            let state = ChannelPair()
            pair.value = state
            guard let address = SocketAddress(numericHost: "127.0.0.1", port: 0),
                let listener = try? Listener(
                    address: address, loop: loop,
                    onAccept: { socket, peer in
                        guard let tls = try? TLSSession.server(context: serverContext, descriptor: socket.descriptor),
                            let channel = try? TCPChannel(socket: socket, peer: peer, loop: loop, tls: tls)
                        else { return }
                        channel.isReadPaused = true  // a peer that does not read
                        channel.onRead = { bytes in state.received.append(contentsOf: bytes) }
                        state.server = channel
                    })
            else { return false }
            state.listener = listener
            guard let socket = try? Socket(family: .ipv4), let isConnected = try? socket.connect(to: listener.address),
                let tls = try? TLSSession.client(context: clientContext, descriptor: socket.descriptor, host: "127.0.0.1"),
                let client = try? TCPChannel(socket: socket, peer: listener.address, loop: loop, isConnecting: !isConnected, tls: tls)
            else { return false }
            if !isConnected { client.onConnect = { _ in } }
            client.onWritable = { state.writableEvents += 1 }
            payload.withUnsafeBytes { client.write($0) }  // before the handshake: it waits in the buffer
            state.client = client
            return true
        }
        #expect(started == true, "the listener and both channels should start")

        // The kernel's buffers fill, then the rest stays in the writer's outbound buffer.
        let deadline = DispatchTime.now() + .seconds(10)
        var buffered = 0
        while DispatchTime.now() < deadline {
            buffered = loop.runAndWait { pair.value?.client?.bufferedByteCount ?? 0 } ?? 0
            let isPaused = loop.runAndWait { pair.value?.server != nil && pair.value?.received.isEmpty == true } ?? false
            if isPaused && buffered > 0 && buffered < payload.count { break }
            _ = loop.runAndWait { () -> Void in }
        }
        #expect(
            buffered > 0 && buffered < payload.count,
            "with the reader paused, part of the 8 MiB should wait in the writer (\(buffered) bytes)")
        #expect(loop.runAndWait { pair.value?.received.count } == 0, "a paused reader reads nothing")

        _ = loop.runAndWait { pair.value?.server?.isReadPaused = false }
        var receivedCount = 0
        while DispatchTime.now() < deadline + .seconds(20) {
            receivedCount = loop.runAndWait { pair.value?.received.count ?? 0 } ?? 0
            if receivedCount >= payload.count { break }
        }
        let state = loop.runAndWait { () -> (Bool, Int, Int) in
            guard let value = pair.value else { return (false, 0, 0) }
            return (value.received == payload, value.client?.bufferedByteCount ?? -1, value.writableEvents)
        }
        #expect(receivedCount == payload.count, "all 8 MiB should arrive once reading resumes, got \(receivedCount)")
        #expect(state?.0 == true, "the bytes should arrive unchanged and in order")
        #expect(state?.1 == 0 && (state?.2 ?? 0) >= 1, "the writer's buffer should drain and report writability once")
        _ = loop.runAndWait { () -> Void in
            pair.value?.client?.close()
            pair.value?.server?.close()
            pair.value?.listener?.close()
            pair.value = nil
        }
    }

    @Test(
        "a head and a payload written together over TLS arrive whole and in order, joined in one record or not",
        arguments: [(10, 1), (10, 16374), (10, 16375), (10, 70_000), (5000, 20_000)])
    func headThenPayload(head: Int, payload: Int) throws {
        let certificates = try TestCertificates.get()
        let serverContext = try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.server.key)
        let clientContext = try TLSClientContext(configuration: TLSClientConfiguration(caFile: certificates.caFile))
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        var random = SplitMix64(seed: UInt64(head * 1_000_003 + payload))
        let first = randomBytes(head, using: &random), second = randomBytes(payload, using: &random)
        let pair = LoopBound<ChannelPair?>(nil)
        let started = loop.runAndWait { () -> Bool in
            let state = ChannelPair()
            pair.value = state
            guard let address = SocketAddress(numericHost: "127.0.0.1", port: 0),
                let listener = try? Listener(
                    address: address, loop: loop,
                    onAccept: { socket, peer in
                        guard let tls = try? TLSSession.server(context: serverContext, descriptor: socket.descriptor),
                            let channel = try? TCPChannel(socket: socket, peer: peer, loop: loop, tls: tls)
                        else { return }
                        channel.onRead = { bytes in
                            state.readCalls += 1
                            state.received.append(contentsOf: bytes)
                        }
                        state.server = channel
                    })
            else { return false }
            state.listener = listener
            guard let socket = try? Socket(family: .ipv4), let isConnected = try? socket.connect(to: listener.address),
                let tls = try? TLSSession.client(context: clientContext, descriptor: socket.descriptor, host: "127.0.0.1"),
                let client = try? TCPChannel(socket: socket, peer: listener.address, loop: loop, isConnecting: !isConnected, tls: tls)
            else { return false }
            if !isConnected { client.onConnect = { _ in } }
            state.client = client
            return true
        }
        #expect(started == true, "the listener and both channels should start")
        let deadline = DispatchTime.now() + .seconds(10)
        while DispatchTime.now() < deadline, loop.runAndWait({ pair.value?.client?.isTLSHandshaking ?? true }) != false {}
        // After the handshake, so that the write goes to OpenSSL at once (the joined path).
        _ = loop.runAndWait { () -> Void in
            first.withUnsafeBytes { head in second.withUnsafeBytes { pair.value?.client?.writeNow(head, then: $0) } }
        }
        var receivedCount = 0
        while DispatchTime.now() < deadline, receivedCount < head + payload {
            receivedCount = loop.runAndWait { pair.value?.received.count ?? 0 } ?? 0
        }
        let received = loop.runAndWait { pair.value?.received ?? [] } ?? []
        #expect(received == first + second, "the \(head) + \(payload) bytes should arrive unchanged and in order (got \(received.count))")
        // Both channels are on one loop: the write is in the kernel before the reader's turn, and
        // the reader reads all its records into one buffer (64 KiB + 256) rather than one call each.
        let readCalls = loop.runAndWait { pair.value?.readCalls ?? 0 } ?? 0
        let expectedCalls = (head + payload + 64 * 1024 + 255) / (64 * 1024 + 256)
        #expect(
            readCalls <= max(expectedCalls, 1) + 1,
            "\(head + payload) bytes of several records should reach onRead in \(expectedCalls) call(s), not one per record (\(readCalls))")
        _ = loop.runAndWait { () -> Void in
            pair.value?.client?.close()
            pair.value?.server?.close()
            pair.value?.listener?.close()
            pair.value = nil
        }
    }
}

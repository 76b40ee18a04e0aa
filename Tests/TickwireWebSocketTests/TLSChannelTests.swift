import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

@Suite("TLS under TCPChannel")
struct TLSChannelTests {
    @Test("8 MiB over TLS to a peer that does not read: the writer buffers (backpressure), then all of it arrives in order")
    func backpressure() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        var random = SplitMix64(seed: 8)
        let payload = randomBytes(8 << 20, using: &random)
        // Written before the handshake: it waits in the buffer.
        let options = TLSChannelPairOptions(pausesServerReads: true, clientWritesFirst: payload, waitsForHandshakes: false)
        let pair = try startTLSChannelPair(loop: loop, options: options)
        defer { stopTLSChannelPair(loop, pair) }

        // The kernel's buffers fill, then the rest stays in the writer's outbound buffer.
        let deadline = DispatchTime.now() + .seconds(10)
        var buffered = 0
        while DispatchTime.now() < deadline {
            buffered = loop.runAndWait { pair.value?.client?.bufferedByteCount ?? 0 } ?? 0
            let isPaused = loop.runAndWait { pair.value?.server != nil && pair.value?.serverReceived.isEmpty == true } ?? false
            if isPaused && buffered > 0 && buffered < payload.count { break }
            _ = loop.runAndWait { () -> Void in }
        }
        #expect(
            buffered > 0 && buffered < payload.count,
            "with the reader paused, part of the 8 MiB should wait in the writer (\(buffered) bytes)")
        #expect(loop.runAndWait { pair.value?.serverReceived.count } == 0, "a paused reader reads nothing")

        _ = loop.runAndWait { pair.value?.server?.isReadPaused = false }
        let arrived = waitOnLoop(loop, for: pair, seconds: 30) { $0.serverReceived.count >= payload.count }
        let state = loop.runAndWait { () -> (Bool, Int, Int) in
            guard let value = pair.value else { return (false, 0, 0) }
            return (value.serverReceived == payload, value.client?.bufferedByteCount ?? -1, value.clientWritableEvents)
        }
        #expect(arrived, "all 8 MiB should arrive once reading resumes")
        #expect(state?.0 == true, "the bytes should arrive unchanged and in order")
        #expect(state?.1 == 0 && (state?.2 ?? 0) >= 1, "the writer's buffer should drain and report writability once")
    }

    @Test(
        "a head and a payload written together over TLS arrive whole and in order, joined in one record or not",
        arguments: [(10, 1), (10, 16374), (10, 16375), (10, 70_000), (5000, 20_000)])
    func headThenPayload(head: Int, payload: Int) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        var random = SplitMix64(seed: UInt64(head * 1_000_003 + payload))
        let first = randomBytes(head, using: &random), second = randomBytes(payload, using: &random)
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        // After the handshake, so that the write goes to the TLS session at once (the joined path).
        _ = loop.runAndWait { () -> Void in
            first.withUnsafeBytes { head in second.withUnsafeBytes { pair.value?.client?.writeNow(head, then: $0) } }
        }
        _ = waitOnLoop(loop, for: pair, seconds: 10) { $0.serverReceived.count >= head + payload }
        let received = loop.runAndWait { pair.value?.serverReceived ?? [] } ?? []
        #expect(received == first + second, "the \(head) + \(payload) bytes should arrive unchanged and in order (got \(received.count))")
        // Both channels are on one loop: the write is in the kernel before the reader's turn, and
        // the reader reads all its records into one buffer (64 KiB + 256) rather than one call each.
        let readCalls = loop.runAndWait { pair.value?.serverReadCalls ?? 0 } ?? 0
        let expectedCalls = (head + payload + 64 * 1024 + 255) / (64 * 1024 + 256)
        #expect(
            readCalls <= max(expectedCalls, 1) + 1,
            "\(head + payload) bytes of several records should reach onRead in \(expectedCalls) call(s), not one per record (\(readCalls))")
    }
}

import TickwireCodec
import Synchronization
import Testing
@testable import TickwireWebSocket

@Suite("Event loop")
struct EventLoopTests {
    @Test("execute runs work from many threads on the loop thread, every item once")
    func executeFromManyThreads() async throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let counter = Shared(0)
        let onLoop = Shared(true)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        loop.execute {
                            if !loop.isInLoopThread { onLoop.withLock { $0 = false } }
                            counter.withLock { $0 += 1 }
                        }
                    }
                }
            }
        }
        // runAndWait queues behind every item above, so all have run when it returns.
        loop.runAndWait {}
        #expect(counter.withLock { $0 } == 4000, "every executed closure should run exactly once")
        #expect(onLoop.withLock { $0 }, "executed work must run on the loop thread")
    }

    @Test("work queued with wake-ups held wakes the loop at most once, when the hold ends, and all of it runs")
    func heldWakeups() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let counter = Shared(0)
        loop.runAndWait {}
        let before = loop.wakeupsSent.load(ordering: .relaxed)
        loop.withHeldWakeups {
            loop.withHeldWakeups {  // nesting holds until the outer call ends
                for _ in 0..<200 { loop.execute { counter.withLock { $0 += 1 } } }
            }
            #expect(loop.wakeupsSent.load(ordering: .relaxed) == before, "no wake-up while the outer hold lasts")
        }
        #expect(loop.wakeupsSent.load(ordering: .relaxed) - before <= 1, "at most one wake-up for 200 queued items")
        loop.runAndWait {}
        #expect(counter.withLock { $0 } == 200, "every item queued under the hold runs once it ends")
    }

    @Test("timers fire in deadline order, not before their delay, and cancelled ones never")
    func timersFireInOrder() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let fired = Shared<[Int]>([])
        let start = MonotonicClock.now()
        let elapsedAtFirst = Shared<UInt64>(0)
        let done = TestSignal()
        loop.execute {
            loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append(3) }; done.signal() }
            loop.schedule(after: .milliseconds(20)) {
                elapsedAtFirst.withLock { $0 = MonotonicClock.now() - start }
                fired.withLock { $0.append(1) }
            }
            let cancelled = loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(99) } }
            loop.schedule(after: .milliseconds(40)) { fired.withLock { $0.append(2) } }
            loop.cancel(cancelled)
        }
        #expect(done.wait(seconds: 5), "the last timer should fire within 5 s")
        #expect(fired.withLock { $0 } == [1, 2, 3], "timers should fire by deadline and the cancelled one not at all")
        #expect(elapsedAtFirst.withLock { $0 } >= 20_000_000, "a 20 ms timer must not fire early")
    }

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

    @Test("SocketAddress parses numeric hosts and resolves localhost")
    func addresses() throws {
        #expect(SocketAddress(numericHost: "127.0.0.1", port: 80)?.family == .ipv4)
        #expect(SocketAddress(numericHost: "::1", port: 80)?.family == .ipv6)
        #expect(SocketAddress(numericHost: "example", port: 80) == nil, "names are not numeric")
        #expect(SocketAddress(numericHost: "127.0.0.1", port: 65536) == nil, "ports stop at 65535")
        #expect(SocketAddress(numericHost: "::1", port: 8080)?.description == "[::1]:8080")
        let resolved = try SocketAddress.resolve(host: "localhost", port: 9)
        #expect(!resolved.isEmpty, "localhost should resolve to at least one address")
        #expect(try SocketAddress.resolve(host: "[::1]", port: 9).first?.host == "::1")
    }

    @Test("SystemError names the C call and the system's message")
    func systemErrorText() {
        let error = SystemError(call: "connect", code: ECONNREFUSED_CODE)
        #expect(error.description.hasPrefix("connect(2) failed: "))
        #expect(error.description.contains("errno \(ECONNREFUSED_CODE)"))
    }
}

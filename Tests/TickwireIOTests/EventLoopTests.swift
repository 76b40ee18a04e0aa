import Dispatch
import Synchronization
import Testing
import TickwireFoundation
import TickwireIO

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

    @Test("a thread's hold ending wakes the loop for its work while another thread still holds")
    func heldWakeupsOnTwoThreads() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        loop.runAndWait {}
        let ran = TestSignal()
        let otherHolds = TestSignal()
        let otherMayEnd = TestSignal()
        let otherEnded = TestSignal()
        // Another thread (a second tick thread) holds the loop's wake-ups until told to stop.
        DispatchQueue.global().async {
            loop.withHeldWakeups {
                otherHolds.signal()
                _ = otherMayEnd.wait(seconds: 10)
            }
            otherEnded.signal()
        }
        #expect(otherHolds.wait(seconds: 10), "the other thread should start holding")
        let before = loop.wakeupsSent.load(ordering: .relaxed)
        loop.withHeldWakeups {
            loop.execute { ran.signal() }
        }
        #expect(loop.wakeupsSent.load(ordering: .relaxed) - before == 1, "this thread's hold ending should wake the loop once")
        #expect(ran.wait(seconds: 10), "work queued under this thread's hold should run while the other thread still holds")
        otherMayEnd.signal()
        #expect(otherEnded.wait(seconds: 10), "the other thread's hold should end")
    }

    @Test("timers fire in deadline order, not before their delay, and cancelled ones never")
    func timersFireInOrder() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let fired = Shared<[Int]>([])
        let start = MonotonicTime.now()
        let elapsedAtFirst = Shared<UInt64>(0)
        let done = TestSignal()
        loop.execute {
            loop.schedule(after: .milliseconds(60)) {
                fired.withLock { $0.append(3) }; done.signal()
            }
            loop.schedule(after: .milliseconds(20)) {
                elapsedAtFirst.withLock { $0 = MonotonicTime.now() - start }
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
        let error = SystemError(call: "connect", code: connectionRefusedCode)
        #expect(error.description.hasPrefix("connect(2) failed: "))
        #expect(error.description.contains("errno \(connectionRefusedCode)"))
    }
}

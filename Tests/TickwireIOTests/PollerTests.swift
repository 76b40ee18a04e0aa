import Dispatch
import Testing
import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Both readiness mechanisms behave alike: `epoll` (the Linux event loop's) and `poll(2)`
/// (Darwin's), which runs here too so that the Darwin path is known to compile and work.
@Suite("Pollers")
struct PollerTests {
    /// The pollers this platform has.
    static var kinds: [String] {
        #if os(Linux) && canImport(CEpoll)
        ["epoll", "poll"]
        #else
        ["poll"]
        #endif
    }

    func makePoller(_ kind: String) throws -> any ReadinessPoller {
        #if os(Linux) && canImport(CEpoll)
        if kind == "epoll" { return try EpollPoller() }
        #endif
        return try PortablePoller()
    }

    /// A connected pair of non-blocking stream sockets; the caller closes both.
    func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        #if canImport(Glibc)
        let status = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends)
        #else
        let status = socketpair(AF_UNIX, SOCK_STREAM, 0, &ends)
        #endif
        try #require(status == 0, "socketpair failed with errno \(errno)")
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL, 0) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    func wait(_ poller: any ReadinessPoller, milliseconds: Int32 = 0) throws -> [PollEvent] {
        var events: [PollEvent] = []
        try poller.wait(timeoutMilliseconds: milliseconds, into: &events)
        return events
    }

    @Test("a socket is reported readable once its peer wrote, and not before", arguments: kinds)
    func readable(kind: String) throws {
        let poller = try makePoller(kind)
        let (local, peer) = try socketPair()
        defer { _ = close(local); _ = close(peer) }
        try poller.add(local, interest: .read)
        #expect(try wait(poller).isEmpty, "nothing was written yet")
        var byte: UInt8 = 7
        #expect(write(peer, &byte, 1) == 1)
        let events = try wait(poller, milliseconds: 1000)
        #expect(events.count == 1 && events.first?.descriptor == local && events.first?.isReadable == true)
    }

    @Test(
        "write interest reports a writable socket; modified back to read only, it is quiet; removed, it is not watched",
        arguments: kinds)
    func writable(kind: String) throws {
        let poller = try makePoller(kind)
        let (local, peer) = try socketPair()
        defer { _ = close(local); _ = close(peer) }
        try poller.add(local, interest: [.read, .write])
        let events = try wait(poller, milliseconds: 1000)
        #expect(events.first?.isWritable == true && events.first?.isReadable == false)
        try poller.modify(local, interest: .read)
        #expect(try wait(poller).isEmpty, "read interest only, and nothing to read")
        var byte: UInt8 = 1
        #expect(write(peer, &byte, 1) == 1)
        poller.remove(local)
        #expect(try wait(poller).isEmpty, "a removed descriptor is not reported, readable or not")
    }

    @Test("the peer's close is reported as readable (end of stream)", arguments: kinds)
    func peerClosed(kind: String) throws {
        let poller = try makePoller(kind)
        let (local, peer) = try socketPair()
        defer { _ = close(local) }
        try poller.add(local, interest: .read)
        _ = close(peer)
        let events = try wait(poller, milliseconds: 1000)
        #expect(events.first?.isReadable == true || events.first?.isHangup == true)
    }

    @Test(
        "wake() from another thread ends a wait that has no time limit, and is not reported as an event",
        arguments: kinds)
    func wake(kind: String) throws {
        let poller = try makePoller(kind)
        let box = UncheckedPoller(poller)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { box.poller.wake() }
        let started = DispatchTime.now().uptimeNanoseconds
        // Bounded: a wait that is never woken fails the test after 10 s instead of hanging.
        let events = try wait(poller, milliseconds: 10_000)
        let waited = DispatchTime.now().uptimeNanoseconds - started
        #expect(events.isEmpty, "the wake-up is consumed, not reported")
        #expect(waited < 5_000_000_000, "the wake-up ended the wait (it took \(waited / 1_000_000) ms)")
        #expect(try wait(poller).isEmpty, "the wake-up was consumed: the next wait does not see it again")
    }
}

/// Hands a poller to the thread that calls its thread-safe `wake()` (test-only).
private final class UncheckedPoller: @unchecked Sendable {
    // Thread safety: the other thread calls only `wake()`, which is safe from any thread.
    let poller: any ReadinessPoller
    init(_ poller: any ReadinessPoller) { self.poller = poller }
}

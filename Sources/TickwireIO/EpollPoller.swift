#if os(Linux) && canImport(CEpoll)
import CEpoll
import Glibc

/// Readiness notification over `epoll(7)`, level-triggered, plus an `eventfd(2)` to wake the waiter.
///
/// Not thread-safe, except ``wake()``, which only writes to the eventfd and may be called from any thread.
package final class EpollPoller: ReadinessPoller {
    private let epoll: Int32
    /// The eventfd that ``wake()`` writes to; the poller reads it back in ``wait(timeoutMilliseconds:into:)``.
    let wakeDescriptor: Int32
    private var buffer: [epoll_event]

    /// Creates the epoll instance (`epoll_create1`) and the wake eventfd (`eventfd`).
    package init(maximumEventsPerWait: Int = 256) throws(SystemError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .current("epoll_create1") }
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            let error = SystemError.current("eventfd")
            _ = Glibc.close(epoll)
            throw error
        }
        self.epoll = epoll
        self.wakeDescriptor = wake
        self.buffer = [epoll_event](repeating: epoll_event(), count: maximumEventsPerWait)
        do {
            try add(wake, interest: .read)
        } catch {
            _ = Glibc.close(wake)
            _ = Glibc.close(epoll)
            throw error
        }
    }

    deinit {
        _ = Glibc.close(wakeDescriptor)
        _ = Glibc.close(epoll)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ interest: PollInterest) throws(SystemError) {
        var event = epoll_event()
        var mask: UInt32 = 0
        if interest.contains(.read) { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if interest.contains(.write) { mask |= EPOLLOUT.rawValue }
        event.events = mask
        event.data.fd = descriptor
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else { throw .current("epoll_ctl") }
    }

    /// Starts watching `descriptor` (`epoll_ctl(EPOLL_CTL_ADD)`).
    package func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        try control(EPOLL_CTL_ADD, descriptor, interest)
    }

    /// Changes what `descriptor` is watched for (`epoll_ctl(EPOLL_CTL_MOD)`).
    package func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        try control(EPOLL_CTL_MOD, descriptor, interest)
    }

    /// Stops watching `descriptor` (`epoll_ctl(EPOLL_CTL_DEL)`); errors are ignored (the descriptor may be closed).
    package func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Wakes a thread blocked in ``wait(timeoutMilliseconds:into:)``; safe from any thread.
    package func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits for readiness (`epoll_wait`), at most `timeoutMilliseconds` (-1: no limit).
    ///
    /// Wake-ups through ``wake()`` are consumed here and not reported.
    package func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError) {
        events.removeAll(keepingCapacity: true)
        let capacity = Int32(buffer.count)
        let count = buffer.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, capacity, timeoutMilliseconds) }
        if count < 0 {
            let error = SystemError.current("epoll_wait")
            if error.isInterrupted { return }
            throw error
        }
        for index in 0..<Int(count) {
            let event = buffer[index]
            let descriptor = event.data.fd
            if descriptor == wakeDescriptor {
                var value: UInt64 = 0
                _ = Glibc.read(wakeDescriptor, &value, MemoryLayout<UInt64>.size)
                continue
            }
            let mask = event.events
            events.append(
                PollEvent(
                    descriptor: descriptor,
                    isReadable: mask & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                    isWritable: mask & EPOLLOUT.rawValue != 0,
                    isHangup: mask & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                ))
        }
    }
}

@available(*, unavailable)
extension EpollPoller: Sendable {}
#endif

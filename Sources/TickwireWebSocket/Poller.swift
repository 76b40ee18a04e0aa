#if os(Linux) && canImport(CEpoll)
import CEpoll
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a registered descriptor wants to hear about.
struct PollInterest: OptionSet, Hashable, Sendable {
    let rawValue: UInt8
    /// Data (or a pending connection, or end of stream) can be read.
    static let read = PollInterest(rawValue: 1)
    /// The socket buffer has room for more bytes (or a non-blocking connect finished).
    static let write = PollInterest(rawValue: 2)
}

/// One readiness report from ``Poller/wait(timeoutMilliseconds:into:)``.
struct PollEvent: Sendable {
    /// The descriptor that is ready.
    var descriptor: Int32
    /// Readable, or end of stream.
    var isReadable: Bool
    /// Writable.
    var isWritable: Bool
    /// Hang-up or error: the next read or write will tell which.
    var isHangup: Bool
}

#if os(Linux) && canImport(CEpoll)

/// Readiness notification over `epoll(7)`, level-triggered, plus an `eventfd(2)` to wake the waiter.
///
/// Not thread-safe, except ``wake()``, which only writes to the eventfd and may be called from any thread.
final class Poller {
    private let epoll: Int32
    /// The eventfd that ``wake()`` writes to; the poller reads it back in ``wait(timeoutMilliseconds:into:)``.
    let wakeDescriptor: Int32
    private var buffer: [epoll_event]

    /// Creates the epoll instance (`epoll_create1`) and the wake eventfd (`eventfd`).
    init(maximumEventsPerWait: Int = 256) throws(SystemError) {
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
    func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        try control(EPOLL_CTL_ADD, descriptor, interest)
    }

    /// Changes what `descriptor` is watched for (`epoll_ctl(EPOLL_CTL_MOD)`).
    func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError) {
        try control(EPOLL_CTL_MOD, descriptor, interest)
    }

    /// Stops watching `descriptor` (`epoll_ctl(EPOLL_CTL_DEL)`); errors are ignored (the descriptor may be closed).
    func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Wakes a thread blocked in ``wait(timeoutMilliseconds:into:)``; safe from any thread.
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Waits for readiness (`epoll_wait`), at most `timeoutMilliseconds` (-1: no limit).
    ///
    /// Wake-ups through ``wake()`` are consumed here and not reported.
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError) {
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
            events.append(PollEvent(
                descriptor: descriptor,
                isReadable: mask & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                isWritable: mask & EPOLLOUT.rawValue != 0,
                isHangup: mask & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            ))
        }
    }
}

#else

/// Readiness notification over `poll(2)`, plus a pipe to wake the waiter (the portable path for Darwin).
///
/// Not thread-safe, except ``wake()``, which only writes to the pipe and may be called from any thread.
final class Poller {
    private var interests: [Int32: PollInterest] = [:]
    private let wakeReader: Int32
    /// The write end of the wake pipe.
    let wakeDescriptor: Int32

    /// Creates the wake pipe (`pipe(2)`).
    init(maximumEventsPerWait: Int = 256) throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .current("pipe") }
        wakeReader = ends[0]
        wakeDescriptor = ends[1]
        for end in ends {
            let flags = fcntl(end, F_GETFL, 0)
            _ = fcntl(end, F_SETFL, flags | O_NONBLOCK)
        }
    }

    deinit {
        _ = close(wakeReader)
        _ = close(wakeDescriptor)
    }

    /// Starts watching `descriptor`.
    func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) { interests[descriptor] = interest }
    /// Changes what `descriptor` is watched for.
    func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError) { interests[descriptor] = interest }
    /// Stops watching `descriptor`.
    func remove(_ descriptor: Int32) { interests[descriptor] = nil }

    /// Wakes a thread blocked in ``wait(timeoutMilliseconds:into:)``; safe from any thread.
    func wake() {
        var one: UInt8 = 1
        _ = write(wakeDescriptor, &one, 1)
    }

    /// Waits for readiness (`poll(2)`), at most `timeoutMilliseconds` (-1: no limit).
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError) {
        events.removeAll(keepingCapacity: true)
        var descriptors = [pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        for (descriptor, interest) in interests {
            var mask: Int16 = 0
            if interest.contains(.read) { mask |= Int16(POLLIN) }
            if interest.contains(.write) { mask |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: descriptor, events: mask, revents: 0))
        }
        let count = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
        if count < 0 {
            let error = SystemError.current("poll")
            if error.isInterrupted { return }
            throw error
        }
        if descriptors[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeReader, &drain, drain.count) > 0 {}
        }
        for entry in descriptors.dropFirst() where entry.revents != 0 {
            events.append(PollEvent(
                descriptor: entry.fd,
                isReadable: entry.revents & Int16(POLLIN) != 0,
                isWritable: entry.revents & Int16(POLLOUT) != 0,
                isHangup: entry.revents & Int16(POLLHUP | POLLERR) != 0
            ))
        }
    }
}

#endif

@available(*, unavailable)
extension Poller: Sendable {}

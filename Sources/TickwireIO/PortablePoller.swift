#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness notification over `poll(2)`, plus a pipe to wake the waiter: the path for Darwin,
/// built and tested on Linux too, so that it is known to compile and work.
///
/// Not thread-safe, except ``wake()``, which only writes to the pipe and may be called from any thread.
package final class PortablePoller: ReadinessPoller {
    private var interests: [Int32: PollInterest] = [:]
    private let wakeReader: Int32
    /// The write end of the wake pipe.
    let wakeDescriptor: Int32

    /// Creates the wake pipe (`pipe(2)`).
    package init(maximumEventsPerWait: Int = 256) throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .current("pipe") }
        wakeReader = ends[0]
        wakeDescriptor = ends[1]
        for end in ends {
            let flags = fcntl(end, F_GETFL, 0)
            _ = fcntl(end, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        _ = close(wakeReader)
        _ = close(wakeDescriptor)
    }

    /// Starts watching `descriptor`.
    package func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError) { interests[descriptor] = interest }
    /// Changes what `descriptor` is watched for.
    package func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError) { interests[descriptor] = interest }
    /// Stops watching `descriptor`.
    package func remove(_ descriptor: Int32) { interests[descriptor] = nil }

    /// Wakes a thread blocked in ``wait(timeoutMilliseconds:into:)``; safe from any thread.
    package func wake() {
        var one: UInt8 = 1
        _ = write(wakeDescriptor, &one, 1)
    }

    /// Waits for readiness (`poll(2)`), at most `timeoutMilliseconds` (-1: no limit).
    package func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError) {
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
            events.append(
                PollEvent(
                    descriptor: entry.fd,
                    isReadable: entry.revents & Int16(POLLIN) != 0,
                    isWritable: entry.revents & Int16(POLLOUT) != 0,
                    // POLLNVAL (a descriptor closed while watched) is reported as a hang-up, so
                    // that its owner closes it rather than the loop spinning on it.
                    isHangup: entry.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
                ))
        }
    }
}

@available(*, unavailable)
extension PortablePoller: Sendable {}

/// What a registered descriptor wants to hear about.
package struct PollInterest: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    /// Wraps raw flag bits.
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Data (or a pending connection, or end of stream) can be read.
    package static let read = PollInterest(rawValue: 1)
    /// The socket buffer has room for more bytes (or a non-blocking connect finished).
    package static let write = PollInterest(rawValue: 2)
}

/// One readiness report from ``Poller/wait(timeoutMilliseconds:into:)``.
package struct PollEvent: Sendable {
    /// The descriptor that is ready.
    package var descriptor: Int32
    /// Readable, or end of stream.
    package var isReadable: Bool
    /// Writable.
    package var isWritable: Bool
    /// Hang-up or error: the next read or write will tell which.
    package var isHangup: Bool
}

/// What an event loop needs from its readiness mechanism; ``EpollPoller`` and ``PortablePoller`` provide it.
///
/// Not thread-safe, except ``wake()``, which may be called from any thread.
package protocol ReadinessPoller: AnyObject {
    /// Starts watching `descriptor`.
    func add(_ descriptor: Int32, interest: PollInterest) throws(SystemError)
    /// Changes what `descriptor` is watched for.
    func modify(_ descriptor: Int32, interest: PollInterest) throws(SystemError)
    /// Stops watching `descriptor`.
    func remove(_ descriptor: Int32)
    /// Wakes a thread blocked in ``wait(timeoutMilliseconds:into:)``; safe from any thread.
    func wake()
    /// Waits for readiness, at most `timeoutMilliseconds` (-1: no limit); wake-ups are consumed, not reported.
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) throws(SystemError)
}

#if os(Linux) && canImport(CEpoll)
/// The event loop's poller: `epoll` on Linux.
package typealias Poller = EpollPoller
#else
/// The event loop's poller: `poll(2)` where there is no `epoll` (Darwin).
package typealias Poller = PortablePoller
#endif

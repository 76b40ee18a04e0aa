import Synchronization
import TickwireFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of monotonic time that can also wait: the real clock or a virtual one.
///
/// Named `TickClock` rather than `Clock` so that it does not shadow the standard library's
/// `Clock` protocol in code that imports Tickwire. The host, the client session, the tick
/// loop and the simulated network all read time only through this protocol, so the same
/// code runs in real time and, in tests, on a ``VirtualClock`` that advances by hand.
public protocol TickClock: AnyObject, Sendable {
    /// The current time; never decreases.
    var now: Timestamp { get }

    /// Blocks until `deadline` (a virtual clock jumps there instead).
    ///
    /// - Parameter deadline: The time to wait for; a past deadline returns at once.
    func sleep(until deadline: Timestamp)

    /// Whether the clock follows real time. A ``Host`` runs its rooms on its tick threads
    /// (``HostConfiguration/tickThreads``) only on such a clock; on any other (a
    /// ``VirtualClock``) it ticks them inline on the calling thread, so that a simulation stays
    /// single-threaded and deterministic. The default is `false`; ``MonotonicClock`` says `true`.
    var isRealTime: Bool { get }
}

extension TickClock {
    /// `false`: a clock is taken for virtual unless it says otherwise.
    public var isRealTime: Bool { false }
}

/// The real monotonic clock: `clock_gettime(CLOCK_MONOTONIC)` (read once for the whole library,
/// the reading the event loop's timers use), with sleeps on
/// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` to an absolute deadline.
///
/// Sleeping to absolute deadlines (not for relative durations) is what keeps a tick loop
/// free of drift: oversleeping one tick does not move the next deadline. Timestamps count
/// from the moment the clock was created.
public final class MonotonicClock: TickClock {
    private let origin: Int64

    /// Creates a clock whose origin is now.
    public init() {
        origin = MonotonicClock.rawNanoseconds()
    }

    /// The time since this clock was created.
    public var now: Timestamp { Timestamp(nanoseconds: MonotonicClock.rawNanoseconds() - origin) }

    /// `true`: this is the real clock, and a host ticks its rooms on its tick threads.
    public var isRealTime: Bool { true }

    /// Sleeps until `deadline` with `clock_nanosleep(..., TIMER_ABSTIME, ...)`, resuming after signals.
    ///
    /// - Parameter deadline: The time to wake at.
    public func sleep(until deadline: Timestamp) {
        let absolute = deadline.nanoseconds + origin
        guard absolute > MonotonicClock.rawNanoseconds() else { return }
        var request = timespec(tv_sec: Int(absolute / 1_000_000_000), tv_nsec: Int(absolute % 1_000_000_000))
        #if canImport(Glibc)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &request, nil) == EINTR {}
        #else
        // Darwin has no clock_nanosleep: sleep for the remaining relative time.
        let remaining = absolute - MonotonicClock.rawNanoseconds()
        if remaining > 0 {
            request = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
            nanosleep(&request, nil)
        }
        #endif
    }

    /// The monotonic clock's reading (``MonotonicTime/now()``) as a signed count, for arithmetic
    /// with the origin. Monotonic nanoseconds since boot fit in `Int64` for 292 years.
    static func rawNanoseconds() -> Int64 {
        Int64(truncatingIfNeeded: MonotonicTime.now())
    }
}

/// A clock that moves only when told to: tests advance it by hand, and `sleep(until:)`
/// jumps straight to the deadline, so a tick loop runs an hour of ticks in milliseconds.
///
/// Thread-safe: the only state, the current time, is an `Atomic` (reading it takes no lock, so
/// a host's tick threads on a virtual clock, ``HostConfiguration/usesTickThreadsOnVirtualClock``,
/// do not contend for it).
public final class VirtualClock: TickClock, Sendable {
    private let current: Atomic<Int64>

    /// Creates a virtual clock reading `start`.
    ///
    /// - Parameter start: The initial time.
    public init(start: Timestamp = .zero) {
        current = Atomic(start.nanoseconds)
    }

    /// The current virtual time.
    public var now: Timestamp { Timestamp(nanoseconds: current.load(ordering: .acquiring)) }

    /// Moves the clock forward by `duration` (a negative duration is ignored: time never runs back).
    ///
    /// - Parameter duration: How far to advance.
    public func advance(by duration: Duration) {
        let step = max(0, duration.wholeNanoseconds)
        current.add(step, ordering: .acquiringAndReleasing)
    }

    /// Moves the clock to `time`, if that is later than now.
    ///
    /// - Parameter time: The time to move to.
    public func advance(to time: Timestamp) {
        current.max(time.nanoseconds, ordering: .acquiringAndReleasing)
    }

    /// Jumps to `deadline` at once (if it is in the future).
    ///
    /// - Parameter deadline: The time to move to.
    public func sleep(until deadline: Timestamp) {
        advance(to: deadline)
    }
}

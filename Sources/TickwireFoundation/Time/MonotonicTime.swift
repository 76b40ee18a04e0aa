#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one reading of the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), in nanoseconds.
///
/// The event loop's timers, the WebSocket keepalive, the simulation's real-time `MonotonicClock`
/// and the tools all read time through it.
package enum MonotonicTime {
    /// Nanoseconds since an arbitrary fixed point; never goes backwards.
    ///
    /// - Returns: The monotonic clock's reading in nanoseconds.
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

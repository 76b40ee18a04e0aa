#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU share a process uses between readings: `getrusage(RUSAGE_SELF)` user plus
/// system time, divided by the wall time elapsed on a ``TickClock``.
///
/// A share of 1.0 is one core fully busy; with several busy cores it exceeds 1.
package struct CPUUsage: Sendable {
    private var lastCPU: Duration
    private var lastWall: Timestamp

    /// Starts measuring at `now`.
    ///
    /// - Parameter now: The wall time of this first reading.
    package init(now: Timestamp) {
        lastCPU = CPUUsage.processTime()
        lastWall = now
    }

    /// The CPU time (user plus system) the whole process has used since it started.
    ///
    /// - Returns: The time, or zero when `getrusage` fails.
    package static func processTime() -> Duration {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return .zero }
        let micros =
            Int64(usage.ru_utime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec)
            + Int64(usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_stime.tv_usec)
        return .microseconds(micros)
    }

    /// The share of one core used since the previous reading (or since `init`), and starts a new interval.
    ///
    /// - Parameter now: The wall time of this reading.
    /// - Returns: CPU time over wall time; zero when no wall time passed.
    package mutating func sample(now: Timestamp) -> Double {
        let cpu = CPUUsage.processTime()
        let wall = (now - lastWall).secondsValue
        let used = (cpu - lastCPU).secondsValue
        lastCPU = cpu
        lastWall = now
        return wall > 0 ? used / wall : 0
    }
}

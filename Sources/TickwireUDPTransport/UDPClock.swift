import TickwireFoundation
import TickwireSim

/// The two clocks of the UDP transport: netcode.io counts in Unix seconds (its tokens expire
/// against the wall clock), the packet layer in seconds of any monotonic clock.
enum UDPClock {
    /// Seconds on the monotonic clock, for the packet layer's RTT, resends and acks.
    static func monotonicSeconds() -> Double { Double(MonotonicTime.now()) / 1e9 }

    /// Unix seconds (`CLOCK_REALTIME`), for netcode.io's token expiry and timeouts.
    static func unixSeconds() -> Double { Double(HostStateFile.wallClockMilliseconds()) / 1000 }
}

import TickwireSim

/// The clock connect tokens are minted and checked by: Unix seconds.
///
/// The issuer and the verifier each hold one, so tests can pin the time and a fleet can share
/// its own notion of it; ``system`` reads the wall clock.
public struct TokenClock: Sendable {
    private let read: @Sendable () -> UInt64

    /// A clock that reads `read` for the time.
    ///
    /// - Parameter read: Returns the Unix time in seconds.
    public init(_ read: @escaping @Sendable () -> UInt64) { self.read = read }

    /// The wall clock (`clock_gettime(CLOCK_REALTIME)`, through ``HostStateFile/wallClockMilliseconds()``).
    public static let system = TokenClock { HostStateFile.wallClockMilliseconds() / 1000 }

    /// A clock stopped at `seconds`, for tests and vectors.
    ///
    /// - Parameter seconds: The Unix time it always reads.
    /// - Returns: The clock.
    public static func fixed(_ seconds: UInt64) -> TokenClock { TokenClock { seconds } }

    /// The Unix time now, in seconds.
    public var now: UInt64 { read() }
}

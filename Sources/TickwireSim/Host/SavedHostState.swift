/// A ``HostState`` with the wall-clock time it was saved: what a state file holds
/// (``HostStateFile``), read back by ``PersistableGame/readHostState(from:limits:)``.
public struct SavedHostState<World: Sendable>: Sendable {
    /// The host's state.
    public var state: HostState<World>
    /// When it was saved, in milliseconds since the UNIX epoch (wall clock).
    public var savedAt: UInt64

    /// Creates a saved state.
    ///
    /// - Parameters:
    ///   - state: The host's state (``Host/exportState()``).
    ///   - savedAt: When, in milliseconds since the UNIX epoch; by default now
    ///     (``HostStateFile/wallClockMilliseconds()``).
    public init(state: HostState<World>, savedAt: UInt64 = HostStateFile.wallClockMilliseconds()) {
        self.state = state
        self.savedAt = savedAt
    }

    /// The state's age at `now`, in seconds.
    ///
    /// - Parameter now: Milliseconds since the UNIX epoch.
    /// - Returns: Seconds since ``savedAt`` (negative when saved after `now`).
    public func age(now: UInt64) -> Double {
        (Double(now) - Double(savedAt)) / 1000
    }

    /// Throws unless the state was saved at most `maximumAge` before `now` (and not more than a
    /// second after it: a clock set back makes the age meaningless). A host restores clients
    /// for a new ``HostConfiguration/resumeGracePeriod``, so an older state would give back
    /// places their players have long given up.
    ///
    /// - Parameters:
    ///   - now: Milliseconds since the UNIX epoch.
    ///   - maximumAge: The oldest state to accept (the resume grace period).
    /// - Throws: ``HostStateFileError`` (``HostStateFileError/isStale`` when simply too old).
    public func checkAge(now: UInt64, maximumAge: Duration) throws(HostStateFileError) {
        let age = age(now: now)
        let limit = Double(maximumAge.components.seconds) + Double(maximumAge.components.attoseconds) / 1e18
        if age < -1 { throw HostStateFileError(.savedInTheFuture(seconds: -age)) }
        if age > limit { throw HostStateFileError(.stale(ageSeconds: age, limitSeconds: limit)) }
    }
}

extension SavedHostState: Equatable where World: Equatable {}

extension PersistableGame {
    /// Writes a host's state to `path` atomically (``HostStateFile``: temporary file, `fsync`,
    /// `rename`). ``Host/saveState(to:)`` calls this; call it yourself to write off the tick
    /// thread a state exported on it.
    ///
    /// - Parameters:
    ///   - saved: The state (``Host/exportState()``) and when it was saved.
    ///   - path: The file.
    /// - Throws: ``HostStateFileError`` naming the C call that failed; `path` is then left as it was.
    public func writeHostState(_ saved: SavedHostState<State>, to path: String) throws(HostStateFileError) {
        try HostStateFile.write(HostStateFile.encode(saved, schemaFingerprint: schema.fingerprint, encodeWorld: encodeWorld), to: path)
    }

    /// Reads a host's state that ``writeHostState(_:to:)`` (or ``Host/saveState(to:)``) wrote.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - limits: Size and count limits; a larger file is refused before it is read.
    /// - Returns: The state, or `nil` when there is no file at `path`.
    /// - Throws: ``HostStateFileError`` when the file cannot be read (naming the C call) or decoded.
    public func readHostState(from path: String, limits: HostStateFile.Limits = .standard) throws(HostStateFileError) -> SavedHostState<
        State
    >? {
        guard let bytes = try HostStateFile.read(from: path, maximumBytes: limits.maximumBytes) else { return nil }
        return try HostStateFile.decode(bytes, schemaFingerprint: schema.fingerprint, limits: limits, decodeWorld: decodeWorld)
    }
}

extension Host where G: PersistableGame {
    /// Saves every room's world, tick and resumable clients, and the next client id, to `path`
    /// in one call, atomically (``HostStateFile``): a process killed mid-save leaves the previous
    /// file whole. Call it on the thread that drives the host (after ``run(until:)`` returns, or
    /// between ``advance()`` calls).
    ///
    /// - Parameter path: The file (`PATH.tmp` is written beside it first).
    /// - Throws: ``HostStateFileError`` naming the C call that failed (`open`, `write`, `fsync`,
    ///   `close`, `rename`).
    public func saveState(to path: String) throws(HostStateFileError) {
        try game.writeHostState(SavedHostState(state: exportState()), to: path)
    }

    /// Creates a host that carries on from the state file at `path` (``saveState(to:)``), or a
    /// fresh host when there is no file: the one call a server makes at start.
    ///
    /// The restored clients may resume with their tokens within
    /// ``HostConfiguration/resumeGracePeriod`` from now (see
    /// ``init(game:listener:clock:configuration:restoring:)``). A file older than that grace
    /// period is refused as stale (``HostStateFileError/isStale``): its players have given up.
    ///
    /// - Parameters:
    ///   - game: The game to host (the one that saved the file).
    ///   - listener: Where new connections come from.
    ///   - clock: The clock to tick on.
    ///   - configuration: Rooms, rates, limits and policies.
    ///   - path: The state file.
    /// - Throws: ``HostStateFileError`` when the file cannot be read, is damaged, of another
    ///   version or schema, stale, or inconsistent (``HostStateError`` inside).
    public convenience init(
        game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration = HostConfiguration(),
        restoringFrom path: String
    ) throws(HostStateFileError) {
        guard let saved = try game.readHostState(from: path) else {
            self.init(game: game, listener: listener, clock: clock, configuration: configuration)
            return
        }
        try saved.checkAge(now: HostStateFile.wallClockMilliseconds(), maximumAge: configuration.resumeGracePeriod)
        do {
            try self.init(game: game, listener: listener, clock: clock, configuration: configuration, restoring: saved.state)
        } catch {
            throw HostStateFileError(.refusedByHost(error))
        }
    }
}

extension EventLoop {
    /// The loop a server, client or echo server runs on: the one it was given (shared, and
    /// left running when the user is done), or a new one of its own, already started (which
    /// the user stops).
    ///
    /// - Parameter shared: A loop to share, or `nil` for a loop of its own.
    /// - Returns: The loop and whether the caller owns it.
    /// - Throws: ``SystemError`` when a loop of its own cannot be created or started.
    package static func sharedOrOwn(_ shared: EventLoop?) throws(SystemError) -> (loop: EventLoop, isOwned: Bool) {
        if let shared { return (shared, false) }
        let loop = try EventLoop()
        try loop.start()
        return (loop, true)
    }
}

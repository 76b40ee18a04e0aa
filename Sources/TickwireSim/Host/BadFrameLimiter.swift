/// One client's bad frames over a sliding window of time: the bad-frame policy's rate.
///
/// A bad frame is one the host cannot use: a frame that fails to decode, an input the game
/// cannot decode (``Game/decodeInput(_:)`` answers `nil`), or a message of a type a client
/// does not send. A client may send up to ``limit`` of them within any ``window``; the next one
/// within the same window is one too many (``record(at:)`` answers `true`), and the room
/// disconnects the client with a protocol error (close code 4004). Bad frames older than the
/// window no longer count, so a client that errs now and then, as a game of another build
/// might, is never dropped for it.
///
/// It keeps at most `limit + 1` times: memory does not grow with the frames a client sends.
struct BadFrameLimiter {
    /// The most bad frames allowed within ``window``.
    let limit: Int
    /// The window's length.
    let window: Duration
    /// The times of the bad frames still within the window, oldest first.
    private var times: [Timestamp] = []

    init(limit: Int, window: Duration) {
        self.limit = max(0, limit)
        self.window = window
    }

    /// Counts a bad frame at `now`.
    ///
    /// - Parameter now: When it arrived.
    /// - Returns: Whether it is past the limit: more than ``limit`` bad frames arrived within
    ///   the last ``window``, this one included.
    mutating func record(at now: Timestamp) -> Bool {
        times.removeAll { now - $0 >= window }
        times.append(now)
        if times.count > limit + 1 { times.removeFirst(times.count - limit - 1) }
        return times.count > limit
    }

    /// The bad frames counted within the window ending at `now`.
    ///
    /// - Parameter now: The window's end.
    /// - Returns: How many there are.
    func count(at now: Timestamp) -> Int {
        times.filter { now - $0 < window }.count
    }
}

/// A sans-IO keepalive: when to ping, which pong answers which ping, and when the peer
/// has been silent too long. The I/O layer owns the clock and passes `now` in.
///
/// Each ping carries an 8-byte big-endian sequence number, so a pong is matched to the
/// newest ping it answers (pongs to older pings, or unsolicited ones, do not count).
///
/// ```swift
/// switch keepalive.poll(now: clock.nanoseconds) {
/// case .sendPing(let payload): try machine.sendPing(payload, output: &out)
/// case .timedOut: close the socket (the peer is gone)
/// case .idle: break
/// }
/// // on .pong(let payload): keepalive.pongReceived(payload, now: ...)
/// ```
public struct WebSocketKeepalive: Hashable, Sendable {
    /// What the I/O layer should do now.
    public enum Action: Hashable, Sendable {
        /// Nothing; poll again at ``WebSocketKeepalive/nextDeadline``.
        case idle
        /// Send a ping with this payload.
        case sendPing([UInt8])
        /// No pong arrived within the timeout: treat the connection as dead.
        case timedOut
    }

    /// Time between pings, in the caller's clock units (e.g. nanoseconds).
    public let interval: UInt64
    /// How long to wait for the pong before ``Action/timedOut``.
    public let timeout: UInt64

    var nextPingAt: UInt64
    var outstanding: (sequence: UInt64, sentAt: UInt64)?
    var sequence: UInt64 = 0

    /// The round trip of the last matched ping, if any.
    public private(set) var lastRoundTrip: UInt64?

    /// Creates a keepalive that first pings one interval after `now`.
    ///
    /// - Parameters:
    ///   - interval: Time between pings.
    ///   - timeout: How long a ping may go unanswered.
    ///   - now: The current time.
    public init(interval: UInt64, timeout: UInt64, now: UInt64) {
        self.interval = interval
        self.timeout = timeout
        nextPingAt = now &+ interval
    }

    /// Whether a ping is waiting for its pong.
    public var isAwaitingPong: Bool { outstanding != nil }

    /// When ``poll(now:)`` next has something to do.
    public var nextDeadline: UInt64 {
        if let outstanding { return outstanding.sentAt &+ timeout }
        return nextPingAt
    }

    /// Decides what to do at `now`.
    ///
    /// - Parameter now: The current time.
    /// - Returns: Send a ping, give up, or nothing.
    public mutating func poll(now: UInt64) -> Action {
        if let outstanding {
            return now >= outstanding.sentAt &+ timeout ? .timedOut : .idle
        }
        guard now >= nextPingAt else { return .idle }
        sequence &+= 1
        outstanding = (sequence, now)
        return .sendPing((0..<8).reversed().map { UInt8(truncatingIfNeeded: sequence >> UInt64($0 * 8)) })
    }

    /// Records a pong; if it answers the outstanding ping, schedules the next ping.
    ///
    /// - Parameters:
    ///   - payload: The pong's payload.
    ///   - now: The current time.
    /// - Returns: Whether the pong matched the outstanding ping.
    @discardableResult
    public mutating func pongReceived(_ payload: [UInt8], now: UInt64) -> Bool {
        guard let outstanding, payload.count == 8 else { return false }
        let value = payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value == outstanding.sequence else { return false }
        lastRoundTrip = now &- outstanding.sentAt
        self.outstanding = nil
        nextPingAt = now &+ interval
        return true
    }

    /// Records other traffic from the peer: a live peer needs no ping until one interval later.
    ///
    /// - Parameter now: The current time.
    public mutating func activityObserved(now: UInt64) {
        if outstanding == nil { nextPingAt = now &+ interval }
    }

    /// Whether two keepalives are in the same state.
    public static func == (lhs: WebSocketKeepalive, rhs: WebSocketKeepalive) -> Bool {
        lhs.interval == rhs.interval && lhs.timeout == rhs.timeout && lhs.nextPingAt == rhs.nextPingAt
            && lhs.outstanding?.sequence == rhs.outstanding?.sequence && lhs.outstanding?.sentAt == rhs.outstanding?.sentAt
            && lhs.sequence == rhs.sequence && lhs.lastRoundTrip == rhs.lastRoundTrip
    }

    /// Hashes the essential state.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(interval)
        hasher.combine(timeout)
        hasher.combine(nextPingAt)
        hasher.combine(sequence)
    }
}

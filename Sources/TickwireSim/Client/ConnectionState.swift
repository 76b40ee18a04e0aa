import TickwireCodec
import TickwireFoundation

/// Where a ``ReconnectingSession`` stands, for a HUD or a log.
///
/// `refused`, `refusedConnection`, `kicked` and `left` are final: the session makes no more attempts.
public enum ConnectionState: Hashable, Sendable {
    /// Opening a connection and waiting for the welcome. `attempt` counts the attempts since the
    /// last successful connection (or since the start), from 1.
    case connecting(attempt: Int)
    /// Welcomed and playing; `resumed` when the host gave back the same player (see
    /// ``ClientSession/wasResumed``).
    case connected(resumed: Bool)
    /// The connection was lost or the attempt failed; attempt number `attempt` starts at `at`
    /// (on the session's ``TickClock``).
    case waitingToReconnect(attempt: Int, at: Timestamp)
    /// The server refused the hello for a reason that retrying cannot fix (see
    /// ``ReconnectingSession/retryableRefusals``); no more attempts.
    case refused(reason: Message.Reject.Reason, text: String)
    /// The server refused the connection itself, before any game message, with a status that
    /// retrying cannot fix (see ``ReconnectingSession/finalConnectionRefusals``: 401 and 403 by
    /// default, a token or an origin the server does not accept); no more attempts.
    case refusedConnection(TransportRefusal)
    /// The host kicked the player for good (a disconnect with reason
    /// ``Message/Disconnect/Reason/kicked``, ``Room/kick(_:text:allowRejoin:)`` without
    /// `allowRejoin`); `text` is the host's words. No more attempts: the player is gone.
    case kicked(text: String)
    /// The session ended on this side: ``ReconnectingSession/leave()`` was called, or the
    /// ``ReconnectPolicy`` gave up (disabled, or ``ReconnectPolicy/maximumAttempts`` failed in a row;
    /// ``ReconnectingSession/hasGivenUp`` tells which).
    case left

    /// Whether the session has stopped for good (`refused`, `refusedConnection`, `kicked` or `left`).
    public var isFinal: Bool {
        switch self {
        case .refused, .refusedConnection, .kicked, .left: true
        case .connecting, .connected, .waitingToReconnect: false
        }
    }
}

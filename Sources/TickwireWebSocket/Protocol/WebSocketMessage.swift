/// One complete WebSocket data message, as the user sends and receives it.
public enum WebSocketMessage: Hashable, Sendable, CustomStringConvertible {
    /// A text message (valid UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// The payload size in bytes (UTF-8 bytes for text).
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }

    /// A plain-words rendering for logs and test failures.
    public var description: String {
        switch self {
        case .text(let text): "text(\(text.utf8.count) bytes)"
        case .binary(let bytes): "binary(\(bytes.count) bytes)"
        }
    }
}

/// What became of a message handed to `send`: the backpressure signal.
///
/// A game server checks ``isBackpressured`` and skips the next snapshots for that client until
/// its drain event (``WebSocketServerEvent/writable(_:)``) says the buffer has room again.
public struct SendResult: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case accepted, acceptedOverHighWaterMark, droppedBufferFull, droppedNotOpen
    }

    private let kind: Kind

    /// Queued; the send buffer is below its high-water mark.
    public static let accepted = SendResult(kind: .accepted)
    /// Queued, but the send buffer is now over its high-water mark: slow down until the drain event.
    public static let acceptedOverHighWaterMark = SendResult(kind: .acceptedOverHighWaterMark)
    /// Not queued: the send buffer is at its hard limit (the peer reads too slowly).
    public static let droppedBufferFull = SendResult(kind: .droppedBufferFull)
    /// Not queued: the connection is closing or closed.
    public static let droppedNotOpen = SendResult(kind: .droppedNotOpen)

    /// Whether the message will be sent.
    public var isAccepted: Bool { kind == .accepted || kind == .acceptedOverHighWaterMark }
    /// Whether the caller should stop sending until the drain event.
    public var isBackpressured: Bool { kind != .accepted }

    /// A plain-words rendering for logs and test failures.
    public var description: String {
        switch kind {
        case .accepted: "accepted"
        case .acceptedOverHighWaterMark: "accepted, over the high-water mark"
        case .droppedBufferFull: "dropped: send buffer full"
        case .droppedNotOpen: "dropped: connection not open"
        }
    }
}

/// Per-connection send buffer bounds (bytes framed and waiting for the socket, plus messages
/// queued from other threads and not yet framed).
public struct SendBufferLimits: Hashable, Sendable {
    /// Above this, `send` answers ``SendResult/acceptedOverHighWaterMark``; the drain event
    /// fires once the buffer is back at or below half of it. Default 1 MiB.
    public var highWaterMark: Int
    /// Once the buffer holds this much, `send` drops further messages (``SendResult/droppedBufferFull``):
    /// a connection buffers at most `hardLimit` plus one message. Default 8 MiB.
    public var hardLimit: Int
    /// Once the buffer holds this much, the connection stops reading from its socket until the
    /// buffer drains to the high-water mark, so a peer that never reads cannot make a server that
    /// answers what it reads (an echo) grow memory. Default: ``hardLimit``.
    public var pauseReadingThreshold: Int

    /// Creates limits; `hardLimit` is raised to at least `highWaterMark`.
    ///
    /// - Parameters:
    ///   - highWaterMark: The backpressure threshold in bytes.
    ///   - hardLimit: The most bytes ever buffered for one connection.
    ///   - pauseReadingThreshold: Where reading stops, `nil` for `hardLimit`; kept within `highWaterMark...hardLimit`.
    public init(highWaterMark: Int = 1 << 20, hardLimit: Int = 8 << 20, pauseReadingThreshold: Int? = nil) {
        self.highWaterMark = max(1, highWaterMark)
        self.hardLimit = max(self.highWaterMark, hardLimit)
        self.pauseReadingThreshold = min(max(pauseReadingThreshold ?? self.hardLimit, self.highWaterMark), self.hardLimit)
    }

    /// The level the buffer must fall to before the drain event: half the high-water mark.
    public var lowWaterMark: Int { highWaterMark / 2 }
}

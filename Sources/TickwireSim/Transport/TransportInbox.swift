import Synchronization

/// An inbox of transport events, filled on a transport's own thread (a socket loop) and
/// drained on the tick thread: the building block of a ``TransportConnection`` that receives
/// on another thread. After a `.closed` event (or ``closeLocally()``) it takes nothing more.
///
/// Thread-safe: every field lives in the `Mutex`.
public final class TransportInbox: Sendable {
    private struct State {
        var events: [TransportEvent] = []
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Creates an empty, open inbox.
    public init() {}

    /// Adds an event, unless the inbox is already closed; a `.closed` event closes it.
    ///
    /// - Parameter event: The event, from the transport's thread.
    public func push(_ event: TransportEvent) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.events.append(event)
            if case .closed = event { state.isClosed = true }
        }
    }

    /// Takes every event pushed since the last call, oldest first.
    ///
    /// - Returns: The events.
    public func drain() -> [TransportEvent] {
        state.withLock { state in
            let events = state.events
            state.events.removeAll()
            return events
        }
    }

    /// Whether the inbox is closed: a `.closed` event was pushed or this side closed.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Marks the inbox closed without an event (this side closed).
    public func closeLocally() {
        state.withLock { $0.isClosed = true }
    }
}

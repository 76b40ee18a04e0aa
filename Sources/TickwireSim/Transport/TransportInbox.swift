import Synchronization
import TickwireFoundation

/// An inbox of transport events, filled on a transport's own thread (a socket loop) and
/// drained on the tick thread: the building block of a ``TransportConnection`` that receives
/// on another thread. After a `.closed` event (or ``closeLocally()``) it takes nothing more.
///
/// Every event is stamped with the monotonic clock when it is pushed, so that
/// ``drainArrivals()`` can tell how long each waited: a connection built on an inbox pushes
/// each frame as it comes off the socket and implements
/// ``TransportConnection/drainArrivals()`` as `inbox.drainArrivals()`.
///
/// Thread-safe: every field lives in the `Mutex`.
public final class TransportInbox: Sendable {
    private struct State {
        var events: [TransportEvent] = []
        /// The monotonic clock's reading when each event in `events` was pushed, in nanoseconds.
        var pushedAt: [UInt64] = []
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Creates an empty, open inbox.
    public init() {}

    /// Adds an event, stamped with the monotonic clock now, unless the inbox is already closed;
    /// a `.closed` event closes it.
    ///
    /// - Parameter event: The event, from the transport's thread.
    public func push(_ event: TransportEvent) {
        let now = MonotonicTime.now()
        state.withLock { state in
            guard !state.isClosed else { return }
            state.events.append(event)
            state.pushedAt.append(now)
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
            state.pushedAt.removeAll()
            return events
        }
    }

    /// Takes every event pushed since the last call, oldest first, each with how long it has
    /// waited in the inbox since it was pushed.
    ///
    /// - Returns: The events and their waits.
    public func drainArrivals() -> [TransportArrival] {
        let (events, pushedAt) = state.withLock { state in
            defer {
                state.events.removeAll()
                state.pushedAt.removeAll()
            }
            return (state.events, state.pushedAt)
        }
        let now = MonotonicTime.now()
        return zip(events, pushedAt).map { event, pushed in
            TransportArrival(event, waited: .nanoseconds(Int64(clamping: now - min(now, pushed))))
        }
    }

    /// Whether the inbox is closed: a `.closed` event was pushed or this side closed.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Marks the inbox closed without an event (this side closed).
    public func closeLocally() {
        state.withLock { $0.isClosed = true }
    }
}

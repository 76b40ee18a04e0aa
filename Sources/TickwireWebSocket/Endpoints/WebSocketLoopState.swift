import TickwireIO

/// What the WebSocket connections on one event loop share (loop thread only): the buffer their
/// replies gather in over a loop turn, which connection holds it, the order in which to send
/// them, and the spare buffer their received messages are built in.
///
/// One per loop (``of(_:)``, kept by the loop as a loop-local); it is the loop's turn observer,
/// so the replies of one turn leave at its end, one `send` per connection. It lives in this
/// layer, not in the loop, so that every access to it on the hot path stays inside this module,
/// where the optimizer sees all of them, and the holder stays a concrete ``WebSocketChannel``.
final class WebSocketLoopState: LoopTurnObserver {
    /// The replies WebSocket connections frame while handling their reads, gathered over one
    /// loop turn and written, one `send` per connection, at its end (loop thread only): one
    /// buffer for all connections stays in the cache. Unchecked exclusivity: a channel swaps it
    /// in for its reads and back out when they are done, so no access overlaps.
    @exclusivity(unchecked) var replyBuffer: [UInt8] = []
    /// The channels with replies waiting in ``replyBuffer``, in the order they were served.
    private var replySenders: [WebSocketChannel] = []
    /// The channel that has ``replyBuffer`` swapped into its own storage while it handles its
    /// reads; the buffer's bytes are then its (see ``WebSocketChannel/withReplyBuffer(_:)``).
    var replyBufferHolder: WebSocketChannel?
    /// Storage for the next received message, lent to each connection's protocol machine for
    /// one read (loop thread only), so that one warm buffer serves every connection rather than
    /// each keeping its own or allocating. Unchecked exclusivity, like `replyBuffer`.
    @exclusivity(unchecked) var spareMessage: [UInt8] = []
    /// Inflation steps continued in a later turn by this loop's connections, for tests and
    /// diagnostics: a deflate bomb takes many, with other connections served in between.
    var inflationSteps = 0

    private init() {}

    /// `loop`'s state, created and registered as its turn observer on first use. Loop thread only.
    ///
    /// - Parameter loop: The loop the caller's connection runs on.
    /// - Returns: The state every WebSocket connection on `loop` shares.
    static func of(_ loop: EventLoop) -> WebSocketLoopState {
        loop.loopLocal(WebSocketLoopState.self) {
            let state = WebSocketLoopState()
            loop.addTurnObserver(state)
            return state
        }
    }

    /// Has `channel`'s replies in ``replyBuffer`` sent once this turn's events are handled.
    func deferReplies(of channel: WebSocketChannel) {
        replySenders.append(channel)
    }

    /// Sends every connection's deferred replies, in the order they were served, and empties
    /// ``replyBuffer`` (keeping up to 4 MiB of its storage): at the end of each turn, and when
    /// a channel finds the buffer full. Never while a channel holds the buffer.
    func sendDeferredReplies() {
        guard !replySenders.isEmpty else { return }
        var index = 0
        while index < replySenders.count {
            replySenders[index].turnEnded()
            index += 1
        }
        replySenders.removeAll(keepingCapacity: true)
        replyBuffer.removeAll(keepingCapacity: replyBuffer.capacity <= 1 << 22)
    }

    /// The loop's turn (its events, or its timers and queued work) is over: send the replies.
    func loopTurnEnded() {
        sendDeferredReplies()
    }
}

@available(*, unavailable)
extension WebSocketLoopState: Sendable {}

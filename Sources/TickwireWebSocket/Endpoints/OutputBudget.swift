import TickwireIO

/// The bytes all connections of one server hold in their send buffers, against
/// ``WebSocketServerConfiguration/outputBudgetBytes``.
///
/// Each ``WebSocketChannel`` adds the change in its buffered bytes whenever it settles its
/// accounting (after writes, not per message). Once the total passes the limit, the server's
/// ``enforce`` runs in the next loop turn (never inside a send): it closes the connections with
/// the fullest buffers until the total fits. Not thread-safe: loop thread only.
final class OutputBudget: LoopPendingWork {
    /// The most bytes the server's connections may hold together.
    let limitBytes: Int
    /// The bytes they hold now. Unchecked exclusivity: changed after every flush of every
    /// connection, on the loop thread only, and no access to it overlaps another.
    @exclusivity(unchecked) private(set) var totalBytes = 0
    private let loop: EventLoop
    private var isEnforcementRequested = false
    /// Closes the fullest connections until ``totalBytes`` is within ``limitBytes``; set by the server.
    var enforce: () -> Void = {}

    init(limitBytes: Int, loop: EventLoop) {
        self.limitBytes = max(limitBytes, 0)
        self.loop = loop
    }

    /// Counts `delta` more (or, negative, fewer) buffered bytes.
    func add(_ delta: Int) {
        totalBytes &+= delta
        guard totalBytes > limitBytes, !isEnforcementRequested else { return }
        isEnforcementRequested = true
        loop.requestPendingWork(self)
    }

    /// Whether the total is over the limit.
    var isExceeded: Bool { totalBytes > limitBytes }

    func continuePendingWork() {
        isEnforcementRequested = false
        if isExceeded { enforce() }
    }
}

@available(*, unavailable)
extension OutputBudget: Sendable {}

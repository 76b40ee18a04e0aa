import Synchronization
import TickwireIO

/// The counters behind ``WebSocketServerStatistics``: written on the loop thread when a
/// connection is accepted, refused, upgraded or closed (never per message), read from any thread.
final class ServerCounters: Sendable {
    let openConnections = Atomic<Int>(0)
    let handshakesInProgress = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    let refusedAtConnectionLimit = Atomic<Int>(0)
    let refusedShuttingDown = Atomic<Int>(0)
    let refusedPerAddressConnections = Atomic<Int>(0)
    let refusedPerAddressHandshakes = Atomic<Int>(0)
    let handshakesEvicted = Atomic<Int>(0)
    let handshakesFailed = Atomic<Int>(0)
    let closedForOutputBudget = Atomic<Int>(0)
    let httpRequests = Atomic<Int>(0)
    let tlsFailures = Atomic<Int>(0)
    let acceptErrors = Atomic<Int>(0)
    let connectionSetupFailures = Atomic<Int>(0)
    let listenerRegistrationFailures = Atomic<Int>(0)
    /// 1 while the listener watches its socket for connections, else 0.
    let listenerAccepting = Atomic<Int>(0)
    /// Why the listener gave up, once it has (``WebSocketServer/listenerFailure``).
    let listenerFailure = Mutex<SystemError?>(nil)

    /// The counters' values now (each read on its own: a scrape may see one event counted in
    /// one and not yet in another).
    var statistics: WebSocketServerStatistics {
        WebSocketServerStatistics(
            openConnections: openConnections.load(ordering: .relaxed),
            handshakesInProgress: handshakesInProgress.load(ordering: .relaxed),
            connectionsOpened: connectionsOpened.load(ordering: .relaxed),
            refusedAtConnectionLimit: refusedAtConnectionLimit.load(ordering: .relaxed),
            refusedShuttingDown: refusedShuttingDown.load(ordering: .relaxed),
            refusedPerAddressConnections: refusedPerAddressConnections.load(ordering: .relaxed),
            refusedPerAddressHandshakes: refusedPerAddressHandshakes.load(ordering: .relaxed),
            handshakesEvicted: handshakesEvicted.load(ordering: .relaxed),
            handshakesFailed: handshakesFailed.load(ordering: .relaxed),
            closedForOutputBudget: closedForOutputBudget.load(ordering: .relaxed),
            httpRequests: httpRequests.load(ordering: .relaxed),
            tlsFailures: tlsFailures.load(ordering: .relaxed),
            isListenerAccepting: listenerAccepting.load(ordering: .relaxed) == 1,
            acceptErrors: acceptErrors.load(ordering: .relaxed),
            connectionSetupFailures: connectionSetupFailures.load(ordering: .relaxed),
            listenerRegistrationFailures: listenerRegistrationFailures.load(ordering: .relaxed))
    }
}

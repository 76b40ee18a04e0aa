import TickwireFoundation

/// What a ``WebSocketServer`` has done with its connections, read through
/// ``WebSocketServer/statistics``: open connections, and those its budgets
/// (``WebSocketServerConfiguration``) refused or closed. Counts run from the server's start.
///
/// As a `MetricsSource` it writes the `tickwire_websocket_*` families and
/// `tickwire_http_requests_total` (README, "Metrics").
public struct WebSocketServerStatistics: Hashable, Sendable {
    /// WebSocket connections open now (past their upgrade, not yet closed).
    public var openConnections = 0
    /// Upgrade handshakes in progress now.
    public var handshakesInProgress = 0
    /// Connections upgraded to WebSocket.
    public var connectionsOpened = 0
    /// Connections refused at ``WebSocketServerConfiguration/maximumConnections`` (HTTP 503),
    /// when accepted or when about to be upgraded.
    public var refusedAtConnectionLimit = 0
    /// Connections refused because the server was shutting down (HTTP 503).
    public var refusedShuttingDown = 0
    /// Connections refused at ``WebSocketServerConfiguration/maximumConnectionsPerAddress`` (HTTP 429).
    public var refusedPerAddressConnections = 0
    /// Connections refused at ``WebSocketServerConfiguration/maximumHandshakesPerAddress`` (HTTP 429).
    public var refusedPerAddressHandshakes = 0
    /// Handshakes cut off to make room for newer ones at
    /// ``WebSocketServerConfiguration/maximumHandshakes`` (HTTP 503).
    public var handshakesEvicted = 0
    /// Handshakes answered with an HTTP error other than the ones above: a malformed or
    /// oversized request, a missing subprotocol, a refusal of
    /// ``WebSocketServerConfiguration/shouldAccept``, a timeout.
    public var handshakesFailed = 0
    /// Connections closed because the server's buffered output went over
    /// ``WebSocketServerConfiguration/outputBudgetBytes`` and they held the most.
    public var closedForOutputBudget = 0
    /// Plain HTTP requests answered by ``WebSocketServerConfiguration/httpHandler``.
    public var httpRequests = 0
    /// Connections whose TLS failed before their upgrade (a bad or plain-text ClientHello, a
    /// handshake that did not finish in time); 0 for a plain server.
    public var tlsFailures = 0
    /// Whether the listening socket is watched for connections now: `false` before
    /// ``WebSocketServer/start()``, while accepting pauses after an `accept(2)` failure, after the
    /// listener gave up (``WebSocketServer/listenerFailure``) and once the server shuts down.
    public var isListenerAccepting = false
    /// `accept(2)` failures (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`): each pauses accepting
    /// for a while (100 ms, doubling while they go on, at most 5 s); the connection waits in the backlog.
    public var acceptErrors = 0
    /// Accepted connections dropped before their handshake because they could not be set up:
    /// no TLS session (OpenSSL out of memory), or the event loop would not watch their socket.
    public var connectionSetupFailures = 0
    /// Failed attempts to watch the listening socket again after a pause (`epoll_ctl`); each is
    /// retried, and past 8 in a row the listener gives up.
    public var listenerRegistrationFailures = 0

    /// Creates statistics, all zero unless given.
    ///
    /// - Parameters:
    ///   - openConnections: WebSocket connections open now.
    ///   - handshakesInProgress: Handshakes in progress now.
    ///   - connectionsOpened: Connections upgraded.
    ///   - refusedAtConnectionLimit: Refused at the connection limit.
    ///   - refusedShuttingDown: Refused while shutting down.
    ///   - refusedPerAddressConnections: Refused at the per-address connection limit.
    ///   - refusedPerAddressHandshakes: Refused at the per-address handshake limit.
    ///   - handshakesEvicted: Handshakes cut off for newer ones.
    ///   - handshakesFailed: Handshakes answered with another HTTP error.
    ///   - closedForOutputBudget: Connections closed for the output budget.
    ///   - httpRequests: Plain HTTP requests answered.
    ///   - tlsFailures: Connections whose TLS failed before their upgrade.
    ///   - isListenerAccepting: Whether the listening socket is watched for connections now.
    ///   - acceptErrors: `accept(2)` failures.
    ///   - connectionSetupFailures: Accepted connections that could not be set up.
    ///   - listenerRegistrationFailures: Failed attempts to watch the listening socket again.
    public init(
        openConnections: Int = 0, handshakesInProgress: Int = 0, connectionsOpened: Int = 0, refusedAtConnectionLimit: Int = 0,
        refusedShuttingDown: Int = 0, refusedPerAddressConnections: Int = 0, refusedPerAddressHandshakes: Int = 0,
        handshakesEvicted: Int = 0, handshakesFailed: Int = 0, closedForOutputBudget: Int = 0, httpRequests: Int = 0,
        tlsFailures: Int = 0, isListenerAccepting: Bool = false, acceptErrors: Int = 0, connectionSetupFailures: Int = 0,
        listenerRegistrationFailures: Int = 0
    ) {
        self.openConnections = openConnections
        self.handshakesInProgress = handshakesInProgress
        self.connectionsOpened = connectionsOpened
        self.refusedAtConnectionLimit = refusedAtConnectionLimit
        self.refusedShuttingDown = refusedShuttingDown
        self.refusedPerAddressConnections = refusedPerAddressConnections
        self.refusedPerAddressHandshakes = refusedPerAddressHandshakes
        self.handshakesEvicted = handshakesEvicted
        self.handshakesFailed = handshakesFailed
        self.closedForOutputBudget = closedForOutputBudget
        self.httpRequests = httpRequests
        self.tlsFailures = tlsFailures
        self.isListenerAccepting = isListenerAccepting
        self.acceptErrors = acceptErrors
        self.connectionSetupFailures = connectionSetupFailures
        self.listenerRegistrationFailures = listenerRegistrationFailures
    }
}

extension WebSocketServerStatistics: MetricsSource {
    /// Writes `tickwire_websocket_connections`, `tickwire_websocket_handshakes`,
    /// `tickwire_websocket_connections_opened_total`, `tickwire_websocket_connections_refused_total`
    /// (by `reason`: `connection_limit`, `shutting_down`, `address_connection_limit`,
    /// `address_handshake_limit`, `handshake_evicted`), `tickwire_websocket_handshakes_failed_total`,
    /// `tickwire_websocket_output_budget_closes_total`, `tickwire_http_requests_total`,
    /// `tickwire_websocket_tls_failures_total`, `tickwire_websocket_listener_accepting`,
    /// `tickwire_websocket_accept_errors_total`, `tickwire_websocket_connection_setup_failures_total`
    /// and `tickwire_websocket_listener_registration_failures_total`.
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        writer.gauge("tickwire_websocket_connections", help: "WebSocket connections open.", value: openConnections)
        writer.gauge("tickwire_websocket_handshakes", help: "WebSocket upgrade handshakes in progress.", value: handshakesInProgress)
        writer.counter(
            "tickwire_websocket_connections_opened_total", help: "Connections upgraded to WebSocket.", value: connectionsOpened)
        writer.counter(
            "tickwire_websocket_connections_refused_total", help: "Connections refused by the server's connection budgets, by budget.",
            label: "reason",
            values: [
                ("connection_limit", refusedAtConnectionLimit), ("shutting_down", refusedShuttingDown),
                ("address_connection_limit", refusedPerAddressConnections), ("address_handshake_limit", refusedPerAddressHandshakes),
                ("handshake_evicted", handshakesEvicted),
            ])
        writer.counter(
            "tickwire_websocket_handshakes_failed_total",
            help: "Upgrade handshakes answered with an HTTP error: malformed, refused by the application, timed out.",
            value: handshakesFailed)
        writer.counter(
            "tickwire_websocket_output_budget_closes_total",
            help: "Connections closed because the server's buffered output went over its budget.", value: closedForOutputBudget)
        writer.counter("tickwire_http_requests_total", help: "Plain HTTP requests answered on the WebSocket port.", value: httpRequests)
        writer.counter(
            "tickwire_websocket_tls_failures_total", help: "Connections whose TLS failed before their WebSocket upgrade.",
            value: tlsFailures)
        writer.gauge(
            "tickwire_websocket_listener_accepting",
            help: "1 while the listening socket is watched for connections; 0 while paused after an accept error, or given up.",
            value: isListenerAccepting ? 1 : 0)
        writer.counter(
            "tickwire_websocket_accept_errors_total",
            help: "accept(2) failures (EMFILE, ENFILE, ENOBUFS, ENOMEM), each pausing accepting for a while.", value: acceptErrors)
        writer.counter(
            "tickwire_websocket_connection_setup_failures_total",
            help: "Accepted connections dropped because they could not be set up (TLS session, loop registration).",
            value: connectionSetupFailures)
        writer.counter(
            "tickwire_websocket_listener_registration_failures_total",
            help: "Failed attempts to watch the listening socket again after a pause; past the limit the listener gives up.",
            value: listenerRegistrationFailures)
    }
}

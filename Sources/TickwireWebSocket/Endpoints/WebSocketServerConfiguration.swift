import TickwireFoundation
import TickwireIO

/// What a client asked for in its upgrade request, shown to ``WebSocketServerConfiguration/shouldAccept``.
public struct WebSocketUpgradeRequest: Sendable, Hashable {
    /// The path of the request target, for example `/game`.
    public let path: String
    /// The query of the request target without `?`, or `nil`.
    public let query: String?
    /// Every header field as received.
    public let headers: HTTPHeaders
    /// The subprotocols the client offered, in its order of preference.
    public let offeredSubprotocols: [String]
    /// The client's address, when known.
    public let remoteAddress: SocketAddress?

    /// The value of the header called `name` (case-insensitive), or `nil`.
    ///
    /// - Parameter name: The header name, for example `Origin` or `Authorization`.
    /// - Returns: Its value.
    public func header(_ name: String) -> String? { headers[name] }
}

/// A server's answer to an upgrade request: accept, or refuse with an HTTP status.
public struct WebSocketUpgradeDecision: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case accept
        case reject(status: Int, reason: String)
    }

    let kind: Kind

    /// Accept (the subprotocol is chosen from ``WebSocketServerConfiguration/subprotocols``).
    public static let accept = WebSocketUpgradeDecision(kind: .accept)

    /// Refuse with an HTTP status, for example 401, 403 or 404; the reason goes in the status line and body.
    ///
    /// - Parameters:
    ///   - status: An HTTP status code, 400...599.
    ///   - reason: A short explanation.
    /// - Returns: The decision.
    public static func reject(status: Int, reason: String) -> WebSocketUpgradeDecision {
        WebSocketUpgradeDecision(kind: .reject(status: min(max(status, 400), 599), reason: reason))
    }
}

/// How a ``WebSocketServer`` listens, which handshakes it accepts and how it treats connections.
public struct WebSocketServerConfiguration: Sendable {
    /// The numeric address to listen on: `127.0.0.1` (default), `0.0.0.0`, `::1` or `::`.
    public var host: String = "127.0.0.1"
    /// The port; 0 lets the kernel choose (read it back from ``WebSocketServer/start()``).
    public var port: Int = 0
    /// The most open connections (past their upgrade handshake); a new connection while this
    /// many are open is answered with HTTP 503. Default 10 000.
    ///
    /// Connections still in their handshake do not count here but against ``maximumHandshakes``,
    /// so half-open connections can never take the places of players. At most this many plus
    /// ``maximumHandshakes`` sockets are held at once: keep the process's descriptor limit above that.
    public var maximumConnections: Int = 10_000
    /// The most connections in their upgrade handshake at once, server-wide. Default 512.
    ///
    /// A new connection beyond it evicts the oldest handshake still in progress (closed at once
    /// after an HTTP 503), the classic defence against slowloris floods from many addresses: a
    /// real client's handshake takes one round trip, so the oldest half-open connection is
    /// almost always an attacker's, and a flood must open this many connections within one
    /// round trip to push a real client out. 512 lets a burst of players (a server restart that
    /// makes everyone reconnect) handshake together.
    public var maximumHandshakes: Int = 512
    /// The most connections from one address (see ``ipv6PrefixLength``), handshaking or open; one
    /// more is answered with HTTP 429 and closed at once. Default 64; `Int.max` for no limit.
    ///
    /// Enough for a household, a LAN party or an office behind one NAT address; it stops one
    /// address from taking ``maximumConnections``. Raise it for players behind carrier-grade
    /// NAT, and for load tests that run every client from one address (or spread their clients
    /// over several with ``WebSocketClientConfiguration/localAddress``, as `tickwire load` does).
    /// A refusal names this budget and its value (``WebSocketRefusal/Budget/addressConnectionLimit``).
    public var maximumConnectionsPerAddress: Int = 64
    /// The most connections from one address in their upgrade handshake at once; one more is
    /// answered with HTTP 429 and closed at once. Default 16; `Int.max` for no limit.
    ///
    /// A real client's handshake lasts one round trip, so even many players behind one address
    /// rarely have more than a few in flight; a slowloris from one address keeps at most this
    /// many sockets, and cannot push other addresses' handshakes out of ``maximumHandshakes``.
    public var maximumHandshakesPerAddress: Int = 16
    /// How many leading bits of an IPv6 peer address the per-address limits count as one
    /// address, 0...128. Default 64: a host or home network usually holds a whole /64 and can
    /// use a fresh address from it for every connection. IPv4 addresses count one by one.
    public var ipv6PrefixLength: Int = 64
    /// The longest a client may take to send its whole upgrade request; then HTTP 408. Default 10 s.
    public var handshakeTimeout: Duration = .seconds(10)
    /// The largest upgrade request head, in bytes; larger is answered with HTTP 431. Default 8 KiB.
    public var maximumHandshakeBytes: Int = 8 * 1024
    /// The most header lines in the upgrade request; more is answered with HTTP 431. Default 64.
    public var maximumHeaderCount: Int = 64
    /// The subprotocols this server speaks, in its order of preference; the first one the client
    /// also offers is chosen. Empty: none is negotiated.
    public var subprotocols: [String] = []
    /// Whether to refuse clients that offer subprotocols none of which is in ``subprotocols`` (HTTP 400).
    /// Default `false`: such clients are accepted without a subprotocol, as RFC 6455 allows.
    public var requiresSubprotocol = false
    /// permessage-deflate settings, or `nil` (default) to decline compression.
    public var compression: PerMessageDeflateConfiguration?
    /// Frame and message limits and sending behaviour of each connection.
    public var protocolConfiguration = WebSocketConfiguration()
    /// Per-connection send buffer bounds.
    public var sendBuffer = SendBufferLimits()
    /// How long a connection's send buffer may stay over its high-water mark
    /// (``SendBufferLimits/highWaterMark``) before the connection is closed with 1008 (policy
    /// violation) and its buffer dropped; `nil` never closes. Default 10 s.
    ///
    /// A peer that reads slowly but keeps up brings the buffer back under the mark again and
    /// again and is never closed; one that stopped reading keeps it over the mark. 10 s rides
    /// out a stalled Wi-Fi link or a TCP retransmission backoff; an owner that stops sending
    /// to a backed-up connection (a game host skipping snapshots) should put the high-water mark
    /// at the size it stops at, so that a client that stops reading is still closed.
    public var writeTimeout: Duration? = .seconds(10)
    /// The most bytes all of the server's connections together may hold in their send buffers.
    /// Past it, the connections with the fullest buffers are closed with 1008 (policy violation),
    /// their buffers dropped, until the total is within it again. Default 256 MiB; `Int.max` for none.
    ///
    /// The per-connection hard limit bounds one peer; this bounds many peers that read slowly
    /// together (ten that never read once took an echo server from 20 to 143 MB). Closing the
    /// fullest first frees the most memory for the fewest connections closed.
    public var outputBudgetBytes: Int = 256 << 20
    /// The most bytes a connection inflates from compressed messages (permessage-deflate) in
    /// one loop turn; then it yields to the other connections on its loop and goes on in the
    /// next turn. Default 256 KiB (about 0.1–0.3 ms of zlib).
    ///
    /// A message that inflates toward the message limit (a deflate bomb) then costs its own
    /// connection time, not every connection's: it is still refused with 1009 at the limit.
    public var inflationStepBytes: Int = 256 * 1024
    /// How long to wait for the peer's close reply before closing the socket. Default 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// Pings idle clients and drops those that do not answer; `nil` (default) disables it.
    public var keepalive: KeepalivePolicy?
    /// Sees every upgrade request before it is accepted (authentication, origin checks). Runs on
    /// the loop thread: keep it quick. `nil` accepts every well-formed request. Each refusal is
    /// logged at `info` (`refused a handshake: REASON`, with the status and the peer); a
    /// Tickwire client that can read the status (the Swift one) takes 401 and 403 as final and
    /// stops retrying. A browser cannot read it (its WebSocket API reports a refused upgrade as a
    /// close with 1006) and retries: refuse browsers in the game's admission hook instead.
    public var shouldAccept: (@Sendable (WebSocketUpgradeRequest) -> WebSocketUpgradeDecision)?
    /// TLS for this server's port (`wss://`), or `nil` (default) for plain `ws://`. A server
    /// serves one or the other; for both, run two servers on one ``EventLoop``.
    /// ``WebSocketServer/reloadCertificates()`` swaps in renewed certificate files.
    public var tls: TLSServerContext?
    /// Hears of every connection whose TLS failed before its upgrade completed: a failed TLS
    /// handshake (a plain client, garbage, no shared version), a TLS handshake still unfinished at
    /// ``handshakeTimeout``, or a bad record during the upgrade; with OpenSSL's reason and the
    /// peer's address. Runs on the loop thread: keep it quick (log it). ``WebSocketServer/tlsFailureCount``
    /// counts them either way. `nil` (default): only counted.
    public var tlsFailureHandler: (@Sendable (TLSError, SocketAddress?) -> Void)?
    /// Answers plain HTTP requests on the WebSocket port (a page, its scripts, a metrics endpoint):
    /// every request whose `Upgrade` header does not name `websocket`, whatever its method, goes
    /// here, and the ``HTTPResponse`` is sent from memory and the connection closed (see
    /// ``HTTPResponse/encoded(includesBody:)``; a `HEAD` gets the head only). The request head is
    /// held to ``maximumHandshakeBytes`` and ``maximumHeaderCount`` like an upgrade; a request
    /// body is not read. Runs on the loop thread: keep it quick. `nil` (default): such requests
    /// are refused as failed handshakes (HTTP 426, 405 or 400).
    public var httpHandler: (@Sendable (HTTPRequestHead) -> HTTPResponse)?
    /// Answers plain HTTP requests that carry a body or must wait for something (a matchmaker's
    /// `POST`): when set, every request that is not a WebSocket upgrade goes here instead of
    /// ``httpHandler`` (wrap that one to keep serving a page). The server first reads the body
    /// that `Content-Length` announces, at most ``maximumHTTPBodyBytes`` (more: `413`; a chunked
    /// body: `411`), within ``handshakeTimeout``, then calls the handler in a task that prefers
    /// the server's event loop as its executor (it runs on the loop thread between events and
    /// never waits for the cooperative pool: keep its synchronous stretches short), and sends
    /// its answer. An answer that takes longer than
    /// ``handshakeTimeout`` from the request's first byte is replaced by `503`. The connection
    /// counts as a handshake until it is answered. `nil` (default): ``httpHandler`` answers.
    public var httpRequestHandler: HTTPRequestHandler?
    /// The longest body an ``httpRequestHandler`` request may carry (its `Content-Length`).
    /// Default 16 KiB.
    public var maximumHTTPBodyBytes: Int = 16 * 1024
    /// Where the server logs what went wrong: `accept(2)` failures and the listener's retries
    /// (source `listener`; `critical` when it gives up), connections refused by the budgets
    /// (`notice`; the 1st, 2nd, 4th, 8th… of each kind, so that a flood writes few lines) and
    /// connections that could not be set up (`error`; source `websocket-server`). Each is counted
    /// in ``WebSocketServer/statistics``. Runs on the loop thread: keep the handler quick.
    /// Default `LogSink.disabled` (TickwireFoundation).
    public var logSink: LogSink = .disabled

    /// Creates the default configuration (127.0.0.1, any free port).
    public init() {}

    /// Creates a configuration listening on `host:port`.
    ///
    /// - Parameters:
    ///   - host: A numeric IPv4 or IPv6 address.
    ///   - port: The port, or 0 for any free port.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

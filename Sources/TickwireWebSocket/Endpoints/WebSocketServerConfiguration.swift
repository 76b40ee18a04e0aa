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
    /// The most connections at once, handshaking or open; more are answered with HTTP 503. Default 10 000.
    public var maximumConnections: Int = 10_000
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
    /// How long to wait for the peer's close reply before closing the socket. Default 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// Pings idle clients and drops those that do not answer; `nil` (default) disables it.
    public var keepalive: KeepalivePolicy?
    /// Sees every upgrade request before it is accepted (authentication, origin checks). Runs on
    /// the loop thread: keep it quick. `nil` accepts every well-formed request.
    public var shouldAccept: (@Sendable (WebSocketUpgradeRequest) -> WebSocketUpgradeDecision)?
    /// TLS for this server's port (`wss://`), or `nil` (default) for plain `ws://`. A server
    /// serves one or the other; for both, run two servers on one ``EventLoop``.
    /// ``WebSocketServer/reloadCertificates()`` swaps in renewed certificate files.
    public var tls: TLSServerContext?
    /// Answers plain HTTP requests on the WebSocket port (a page, its scripts, a metrics endpoint):
    /// every request whose `Upgrade` header does not name `websocket`, whatever its method, goes
    /// here, and the ``HTTPResponse`` is sent from memory and the connection closed (see
    /// ``HTTPResponse/encoded(includesBody:)``; a `HEAD` gets the head only). The request head is
    /// held to ``maximumHandshakeBytes`` and ``maximumHeaderCount`` like an upgrade; a request
    /// body is not read. Runs on the loop thread: keep it quick. `nil` (default): such requests
    /// are refused as failed handshakes (HTTP 426, 405 or 400).
    public var httpHandler: (@Sendable (HTTPRequestHead) -> HTTPResponse)?

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

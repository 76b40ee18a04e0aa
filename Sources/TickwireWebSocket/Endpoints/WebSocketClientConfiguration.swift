import TickwireFoundation

/// How a ``WebSocketClient`` connects, keeps the connection alive and reconnects.
public struct WebSocketClientConfiguration: Sendable {
    /// Subprotocols to offer, preferred first.
    public var subprotocols: [String] = []
    /// Extra request headers (`Origin`, `Authorization`, …).
    public var headers = HTTPHeaders()
    /// permessage-deflate to offer, or `nil` (default) for none.
    public var compression: PerMessageDeflateConfiguration?
    /// Frame and message limits and sending behaviour.
    public var protocolConfiguration = WebSocketConfiguration()
    /// The local address the TCP connection leaves from, or `nil` (default) for the one the
    /// kernel picks.
    ///
    /// Set it to spread many clients of one machine over several source addresses, so that a
    /// server's per-address budgets (``WebSocketServerConfiguration/maximumConnectionsPerAddress``)
    /// count each address apart: `SocketAddress(numericHost: "127.0.0.2", port: 0)` against a
    /// server on 127.0.0.1 (on Linux every address of 127.0.0.0/8 is local; on Darwin only the
    /// aliases given to `lo0`). The port is normally 0, chosen at connect time. Only server
    /// addresses of the same family are tried; an address that is not local fails each attempt
    /// with `bind` and `EADDRNOTAVAIL`.
    public var localAddress: SocketAddress?
    /// The longest a TCP connect plus the upgrade handshake may take. Default 10 s.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Limits on the server's response head.
    public var responseLimits = HTTPHeadLimits()
    /// Pings the server and declares the connection dead without a pong; `nil` disables it.
    /// Default: a ping every 15 s, dead after 10 s without a pong.
    public var keepalive: KeepalivePolicy? = KeepalivePolicy()
    /// Reconnection after a lost connection; `ReconnectPolicy/disabled` to stay closed.
    public var reconnect = ReconnectPolicy()
    /// Send buffer bounds while connected.
    public var sendBuffer = SendBufferLimits()
    /// The most payload bytes queued while not connected (sent in order once open); beyond it
    /// `send` drops the message. 0 refuses every send while disconnected. Default 1 MiB.
    public var maximumQueuedBytesWhileDisconnected = 1 << 20
    /// How long to wait for the server's close reply before closing the socket. Default 5 s.
    public var closeTimeout: Duration = .seconds(5)
    /// Seed for the reconnect jitter; `nil` draws from the system generator. Set it in tests.
    public var jitterSeed: UInt64?
    /// How a `wss://` connection checks the server: the system trust store or a CA file, the
    /// host name, and the loudly named switch that skips both for local testing. Unused for `ws://`.
    public var tls = TLSClientConfiguration()
    /// Where the client logs lost connections and failed attempts (`warning`, with the delay
    /// before the next), giving up (`error` when out of reconnection attempts) and, with
    /// reconnection off, a closed connection (`notice`: its owner decides what next); source
    /// `websocket-client`. Default `LogSink.disabled` (TickwireFoundation).
    public var logSink: LogSink = .disabled

    /// Creates the default configuration.
    public init() {}
}

/// Where a ``WebSocketClient`` stands.
public enum WebSocketClientState: Hashable, Sendable, CustomStringConvertible {
    /// Created, ``WebSocketClient/connect()`` not called yet.
    case idle
    /// Connecting or handshaking; `attempt` counts attempts since the last open connection (1-based).
    case connecting(attempt: Int)
    /// Open: messages flow.
    case open
    /// The close handshake has started.
    case closing
    /// Waiting `delay` before connection attempt `attempt`.
    case waitingToReconnect(attempt: Int, delay: Duration)
    /// Closed for good (closed by the user, reconnection disabled or out of attempts): the last close frame.
    case closed(WebSocketCloseFrame)

    /// A plain-words rendering for logs and test failures.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting(let attempt): "connecting (attempt \(attempt))"
        case .open: "open"
        case .closing: "closing"
        case .waitingToReconnect(let attempt, let delay): "waiting \(delay) before attempt \(attempt)"
        case .closed(let frame): "closed (\(frame))"
        }
    }
}

/// What a ``WebSocketClient`` reports, on its loop thread or through ``WebSocketClient/events``.
public enum WebSocketClientEvent: Sendable {
    /// The state changed. A lost connection shows as `.connecting`/`.waitingToReconnect` after
    /// a ``disconnected(_:)`` event with the reason.
    case stateChanged(WebSocketClientState)
    /// A connection ended (the server's close frame, or 1006 with the local reason); reconnection may follow.
    case disconnected(WebSocketCloseFrame)
    /// A complete message arrived.
    case message(WebSocketMessage)
    /// The send buffer fell back to its low-water mark after being over its high-water mark.
    case writable
}

import TickwireIO

extension WebSocketClient {
    /// Why the last `wss://` connection attempt failed in TLS (an unknown CA, an expired
    /// certificate, a wrong host name…), with OpenSSL's reason; `nil` once a connection opens.
    public var lastTLSError: TLSError? { shared.withLock { $0.tlsError } }
}

@_spi(LoopThread) import TickwireIO

extension ClientCore {
    /// A TLS session for a new socket when the URL is `wss://`, `nil` for `ws://`.
    func tlsSession(for socket: Socket) -> Result<TLSSession?, TLSError> {
        guard url.isSecure else { return .success(nil) }
        return Result { () throws(TLSError) in
            let context: TLSClientContext
            if let tlsContext {
                context = tlsContext
            } else {
                context = try TLSClientContext.shared(for: configuration.tls)
                tlsContext = context
            }
            return try TLSSession.client(context: context, descriptor: socket.descriptor, host: url.host)
        }
    }

    /// A `wss://` attempt failed in TLS: the client records the typed error, then the attempt
    /// ends like any other, with OpenSSL's reason: 1015 (TLS handshake failure) when the
    /// handshake or the certificate failed, else 1006; reconnection per the policy.
    func failTLS(_ error: TLSError) {
        callbacks.tlsFailed(error)
        let isHandshake = error.category == .handshake || error.category == .verification
        fail("\(error)", code: isHandshake ? .tlsHandshakeFailure : .abnormalClosure)
    }
}

@_spi(LoopThread) import TickwireIO

extension ServerCore {
    /// A TLS session for an accepted socket when the server serves TLS, `nil` for plain TCP.
    ///
    /// A failure (OpenSSL out of memory) drops the connection rather than serving it in plain text.
    func tlsSession(for socket: Socket) -> Result<TLSSession?, TLSError> {
        guard let tlsContext else { return .success(nil) }
        return Result { () throws(TLSError) in try TLSSession.server(context: tlsContext, descriptor: socket.descriptor) }
    }
}

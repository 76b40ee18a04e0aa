import TickwireSim
import TickwireWebSocket

extension WebSocketTransportServer {
    /// Serves new connections with the renewed files of ``WebSocketServerConfiguration/tls``;
    /// open connections keep theirs (see ``WebSocketServer/reloadCertificates()``).
    ///
    /// - Throws: ``TLSError`` when the server has no TLS or the files cannot be loaded.
    public func reloadCertificates() throws(TLSError) {
        try server.reloadCertificates()
    }
}

@_spi(LoopThread) import TickwireIO

extension WebSocketServer {
    /// Loads the certificate chain and key files of ``WebSocketServerConfiguration/tls`` again
    /// and serves new connections with them; open connections keep the certificate they have.
    ///
    /// For renewed certificates without a restart (`arena serve` calls it on `SIGHUP`). When
    /// the files are broken, the server goes on with the certificates it had. Call it on a started
    /// server; before ``start()``, the context in the configuration is the one used.
    ///
    /// - Throws: ``TLSError`` when the server has no TLS or the files cannot be loaded.
    public func reloadCertificates() throws(TLSError) {
        guard let current = configuration.tls else {
            throw TLSError(.configuration, reason: "the server has no TLS configuration to reload")
        }
        let fresh = try current.reloaded()
        loop.runAndWait { [core] in core.value?.tlsContext = fresh }
    }
}

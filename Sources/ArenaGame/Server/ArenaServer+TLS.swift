import Tickwire

extension ArenaServer {
    /// Serves new players with the renewed certificate files (`arena serve` calls it on `SIGHUP`);
    /// players already connected keep their connections.
    ///
    /// - Throws: ``TLSError`` when the server has no TLS or the files cannot be loaded.
    package func reloadCertificates() throws(TLSError) {
        try transport.reloadCertificates()
    }
}

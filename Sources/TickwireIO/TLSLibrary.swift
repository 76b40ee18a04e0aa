import CTLS
import Synchronization

/// What every TLS context and session of this library shares.
package enum TLSLibrary {
    /// The socket BIO method (see `tickwire_bio_method_new` in CTLS): sends with `MSG_NOSIGNAL`.
    // nonisolated(unsafe): made once by the global's thread-safe lazy initialization, never changed after.
    nonisolated(unsafe) static let socketMethod: OpaquePointer? = tickwire_bio_method_new()

    /// How many bytes one read from the socket may bring into the socket BIO's inbound buffer
    /// (`tickwire_bio_read` in CTLS): the five records of a 64 KiB message and its frame header.
    static let inboundBytes = 4 * (16 * 1024 + 512)

    /// The most plaintext bytes in one TLS record (RFC 8446 section 5.1): one `SSL_write` takes at most this many.
    package static let maximumRecordBytes = 16 * 1024

    /// TLS 1.2 and 1.3 only, no renegotiation or compression, TLS 1.3 cipher suites in the order
    /// `tickwire_tls13_ciphersuites` gives (AES-128-GCM first on a CPU with AES instructions),
    /// record buffers released while idle, partial writes from a moving buffer (the channel's
    /// outbound buffer).
    ///
    /// With `SSL_MODE_RELEASE_BUFFERS`, a busy connection frees and allocates its record buffers
    /// as they empty; on a 64 KiB echo that cost under 1% of the server's time (malloc and free,
    /// no page faults, perf), so they are released always, which keeps an idle connection small.
    static func configureCommon(_ context: OpaquePointer) {
        _ = tickwire_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = SSL_CTX_set_options(context, tickwire_common_options())
        _ = SSL_CTX_set_ciphersuites(context, tickwire_tls13_ciphersuites())
        _ = tickwire_SSL_CTX_set_mode(context, tickwire_channel_modes())
        // No read-ahead: the socket BIO reads up to ``inboundBytes`` at once itself (one `recv`
        // for a 64 KiB message), without OpenSSL's moves of the unread records before each record.
        tickwire_SSL_CTX_set_read_ahead(context, 0)
        // The application traffic secrets, for the record layer that takes over after a TLS 1.3 handshake.
        tickwire_SSL_CTX_keep_traffic_secrets(context)
    }
}

/// A client's OpenSSL context, made from a ``TLSClientConfiguration``: trust roots, verification,
/// ALPN `http/1.1`. Immutable once made.
package final class TLSClientContext: @unchecked Sendable {
    // @unchecked Sendable: `context` is configured in `init` and never changed after; OpenSSL
    // makes `SSL_new` on an unchanging `SSL_CTX` thread-safe.
    let context: OpaquePointer
    package let configuration: TLSClientConfiguration

    /// Loads the trust roots `configuration` names.
    ///
    /// - Throws: ``TLSError`` (configuration) when the CA file or the system store cannot be loaded.
    package init(configuration: TLSClientConfiguration) throws(TLSError) {
        self.configuration = configuration
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.fromQueue(.configuration, fallback: "SSL_CTX_new failed")
        }
        self.context = context
        TLSLibrary.configureCommon(context)
        if configuration.insecureSkipVerificationForLocalTestingOnly {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile = configuration.caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw TLSError.fromQueue(.configuration, fallback: "cannot load the CA file", file: caFile)
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw TLSError.fromQueue(.configuration, fallback: "cannot load the system trust store")
            }
        }
        guard tickwire_SSL_CTX_offer_http11(context) == 0 else {
            throw TLSError.fromQueue(.configuration, fallback: "cannot set ALPN")
        }
    }

    deinit { SSL_CTX_free(context) }
}

extension TLSClientContext {
    /// Contexts already made, by configuration: clients with the same configuration share one
    /// (trust roots are loaded once, not per connection). A few configurations per process.
    private static let cache = Mutex<[TLSClientConfiguration: TLSClientContext]>([:])

    /// The context for `configuration`, made on first use and shared after.
    ///
    /// - Throws: ``TLSError`` (configuration) when the trust roots cannot be loaded (not cached).
    package static func shared(for configuration: TLSClientConfiguration) throws(TLSError) -> TLSClientContext {
        if let context = cache.withLock({ $0[configuration] }) { return context }
        let context = try TLSClientContext(configuration: configuration)
        return cache.withLock { cache in
            if let existing = cache[configuration] { return existing }
            cache[configuration] = context
            return context
        }
    }
}

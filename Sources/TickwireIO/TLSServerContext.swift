import CTLS

/// A server's TLS setup: its certificate chain and private key, loaded from PEM files into an
/// OpenSSL context (`SSL_CTX`), TLS 1.2 and 1.3 only, ALPN `http/1.1`, no TLS 1.3 session
/// tickets (every connection makes a full handshake). The server's cipher order
/// decides: AES-128-GCM first on a CPU with AES instructions, unless the client lists
/// ChaCha20-Poly1305 first.
///
/// A context is immutable once made, so one context serves every connection on any thread.
/// To take renewed certificate files, make a new one with ``reloaded()``; connections opened
/// with the old one keep it (OpenSSL counts its references).
public final class TLSServerContext: @unchecked Sendable {
    // @unchecked Sendable: `context` is configured in `init` and never changed after; OpenSSL
    // makes `SSL_new` and the reference counts of an unchanging `SSL_CTX` thread-safe.
    /// The PEM file with the server's certificate, then the intermediates.
    public let certificateChainFile: String
    /// The PEM file with the certificate's private key (not encrypted).
    public let privateKeyFile: String
    let context: OpaquePointer

    /// Loads the certificate chain and the private key and checks that they belong together.
    ///
    /// - Parameters:
    ///   - certificateChainFile: A PEM file: the server certificate first, then intermediates.
    ///   - privateKeyFile: A PEM file with the certificate's private key.
    /// - Throws: ``TLSError`` (``TLSError/Category/configuration``) with OpenSSL's reason when
    ///   a file cannot be read or parsed, or the key does not match the certificate.
    public init(certificateChainFile: String, privateKeyFile: String) throws(TLSError) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError.fromQueue(.configuration, fallback: "SSL_CTX_new failed")
        }
        self.context = context
        TLSLibrary.configureCommon(context)
        _ = SSL_CTX_set_options(context, tickwire_server_options())
        // No TLS 1.3 session tickets: a ticket is a record OpenSSL would write after the handshake,
        // under keys the record layer takes over (TLSRecordLayer); clients make full handshakes.
        guard tickwire_SSL_CTX_issue_no_tickets(context) == 1 else {
            throw TLSError.fromQueue(.configuration, fallback: "cannot turn TLS 1.3 session tickets off")
        }
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1 else {
            throw TLSError.fromQueue(.configuration, fallback: "cannot load the certificate chain", file: certificateChainFile)
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.fromQueue(.configuration, fallback: "cannot load the private key", file: privateKeyFile)
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError.fromQueue(.configuration, fallback: "the private key does not match the certificate", file: privateKeyFile)
        }
        tickwire_SSL_CTX_select_http11(context)
    }

    deinit { SSL_CTX_free(context) }

    /// Loads the same two files again into a new context (after they were renewed on disk).
    ///
    /// - Returns: A new context; this one is unchanged.
    /// - Throws: ``TLSError`` as ``init(certificateChainFile:privateKeyFile:)`` does.
    public func reloaded() throws(TLSError) -> TLSServerContext {
        try TLSServerContext(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile)
    }
}

extension TLSServerContext: Hashable {
    /// Two contexts are equal when they are the same loaded context (not merely the same file names).
    public static func == (lhs: TLSServerContext, rhs: TLSServerContext) -> Bool { lhs === rhs }

    /// Hashes the context's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

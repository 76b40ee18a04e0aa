/// How a client checks the server it reaches over TLS (`wss://`).
///
/// By default the server's certificate must chain to the system's trust store
/// (`SSL_CTX_set_default_verify_paths`) and name the host of the URL (a DNS name or an IP
/// address in its subjectAltName).
public struct TLSClientConfiguration: Hashable, Sendable {
    /// A PEM file of CA certificates to trust instead of the system's, or `nil` (default) for the system trust store.
    public var caFile: String?
    /// The name sent as SNI and checked against the certificate, or `nil` (default) for the URL's host.
    public var serverName: String?
    /// Skips every check of the server's certificate, so anyone on the path can read and change
    /// the traffic. For a server with a throwaway certificate on one's own machine only; never in
    /// production. Default `false`.
    public var insecureSkipVerificationForLocalTestingOnly = false

    /// Creates the default configuration: the system trust store and the URL's host name.
    public init() {}

    /// Trusts the CA certificates in `caFile` rather than the system's.
    ///
    /// - Parameter caFile: A PEM file of CA certificates.
    public init(caFile: String) {
        self.caFile = caFile
    }
}

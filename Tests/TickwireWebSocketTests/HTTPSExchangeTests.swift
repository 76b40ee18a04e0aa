import Testing
import TickwireIO
import TickwireWebSocket

/// ``HTTPExchange`` over TLS (an `https` matchmaker's or token endpoint's client) against a TLS
/// ``WebSocketServer``'s plain-HTTP handler.
@Suite("HTTP exchange over TLS")
struct HTTPSExchangeTests {
    /// A TLS server whose handler answers every GET with its method and target.
    private static func startServer() throws -> (WebSocketServer, Int, TestCertificates) {
        let certificates = try TestCertificates.get()
        var configuration = WebSocketServerConfiguration()
        configuration.tls = try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.server.key)
        configuration.httpHandler = { request in .text(status: 200, "\(request.method) \(request.target)") }
        let server = try WebSocketServer(configuration: configuration) { _ in }
        let address = try server.start()
        return (server, address.port, certificates)
    }

    @Test("an https exchange trusting the test CA reads the TLS server's answer")
    func trusted() throws {
        let (server, port, certificates) = try Self.startServer()
        defer { server.shutdown(timeout: .seconds(1)) }
        var exchange = HTTPExchange(host: "127.0.0.1", port: port, path: "/rooms?mode=arena")
        exchange.tls = TLSClientConfiguration(caFile: certificates.caFile)
        let response = try exchange.run()
        #expect(response.status == 200, "the server answers over TLS")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("GET /rooms?mode=arena"), "the request went through TLS whole")
    }

    @Test("an https exchange that does not trust the server's certificate fails with OpenSSL's reason, before any request is sent")
    func untrusted() throws {
        let (server, port, _) = try Self.startServer()
        defer { server.shutdown(timeout: .seconds(1)) }
        var exchange = HTTPExchange(host: "127.0.0.1", port: port, path: "/rooms")
        exchange.tls = TLSClientConfiguration()  // the system trust store, which has no test CA
        do {
            let response = try exchange.run()
            Issue.record("an untrusted certificate was accepted: \(response.status)")
        } catch {
            guard case .tls(let failure) = error.kind else {
                Issue.record("the failure should be TLS's, got \(error)")
                return
            }
            #expect(failure.category == .verification, "the certificate is refused: \(failure)")
            #expect(error.description.contains("certificate verify failed"), "the words say why: \(error)")
        }
    }

    @Test("a plain exchange on a TLS port fails rather than hanging")
    func plainOnTLSPort() throws {
        let (server, port, _) = try Self.startServer()
        defer { server.shutdown(timeout: .seconds(1)) }
        var exchange = HTTPExchange(host: "127.0.0.1", port: port, path: "/rooms")
        exchange.timeout = .seconds(5)
        #expect(throws: HTTPExchangeError.self) { try exchange.run() }
    }
}

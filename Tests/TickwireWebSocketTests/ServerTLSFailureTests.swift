import Foundation
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// What a server's ``WebSocketServerConfiguration/tlsFailureHandler`` heard.
struct HeardTLSFailure: Sendable {
    let error: TLSError
    let peer: SocketAddress?
}

@Suite("a TLS server reports its TLS failures and refuses over budget in TLS")
struct ServerTLSFailureTests {
    /// A TLS echo server whose failure handler records into `failures`.
    private func startReportingServer(
        _ configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(), failures: Recorder<HeardTLSFailure>,
        recorder: Recorder<Seen>
    ) throws -> (WebSocketServer, Int) {
        var configuration = configuration
        configuration.tlsFailureHandler = { error, peer in failures.push(HeardTLSFailure(error: error, peer: peer)) }
        return try startTLSEchoServer(try TestCertificates.get().server, configuration: configuration, recorder: recorder)
    }

    @Test("a plain client, garbage and an unfinished TLS handshake are each reported once with OpenSSL's reason and counted")
    func failuresAreReported() throws {
        let failures = Recorder<HeardTLSFailure>()
        let recorder = Recorder<Seen>()
        var configuration = WebSocketServerConfiguration()
        configuration.handshakeTimeout = .milliseconds(300)
        let (server, port) = try startReportingServer(configuration, failures: failures, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }

        let plain = try TestSocket(port: port)
        try plain.send(TestSocket.upgradeRequest(path: "/plain"))
        _ = receiveUntilClosedOrReset(plain)
        #expect(failures.wait(seconds: 2) { $0.count == 1 }, "the plain client's failed handshake should be reported")

        var random = SplitMix64(seed: 11)
        let garbage = try TestSocket(port: port)
        try garbage.send(randomBytes(600, using: &random))
        _ = receiveUntilClosedOrReset(garbage)
        #expect(failures.wait(seconds: 2) { $0.count == 2 }, "garbage instead of a ClientHello should be reported")

        let slow = try TestSocket(port: port)
        try slow.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])  // the start of a ClientHello record, then nothing
        _ = receiveUntilClosedOrReset(slow)
        #expect(failures.wait(seconds: 3) { $0.count == 3 }, "a TLS handshake unfinished at the handshake timeout should be reported")

        let heard = failures.all
        #expect(heard.allSatisfy { $0.error.category == .handshake }, "all three fail in the TLS handshake: \(heard.map(\.error))")
        #expect(heard.first?.error.reason.contains("http request") == true, "OpenSSL names a plain HTTP request: \(heard.map(\.error))")
        #expect(heard.last?.error.reason.contains("did not finish within") == true, "the timeout says so: \(heard.map(\.error))")
        #expect(heard.allSatisfy { $0.peer?.host == "127.0.0.1" }, "each report names the peer: \(heard.map(\.peer))")
        #expect(server.tlsFailureCount == 3, "the server counts the three failures, counted \(server.tlsFailureCount)")
    }

    @Test("a wss:// client that opens and closes normally is not reported as a failure")
    func successIsNotReported() throws {
        let failures = Recorder<HeardTLSFailure>()
        let recorder = Recorder<Seen>()
        let (server, port) = try startReportingServer(failures: failures, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeTLSClient(port: port, recorder: recorder)
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the client should open: \(recorder.all)")
        client.shutdown()
        #expect(recorder.wait(seconds: 5) { _ in server.connectionCount == 0 }, "the connection should end")
        #expect(failures.all.isEmpty && server.tlsFailureCount == 0, "nothing failed: \(failures.all.map(\.error))")
    }

    @Test("over the connection budget a wss:// client reads the same HTTP 503 a plain one does, after the TLS handshake")
    func overBudgetOverTLS() async throws {
        let recorder = Recorder<Seen>()
        var configuration = WebSocketServerConfiguration()
        configuration.maximumConnections = 1
        let failures = Recorder<HeardTLSFailure>()
        let (server, port) = try startReportingServer(configuration, failures: failures, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let first = try makeTLSClient(port: port, recorder: recorder)
        defer { first.shutdown() }
        try await first.open(timeout: .seconds(5))

        let second = try makeTLSClient(port: port, recorder: Recorder<Seen>())
        defer { second.shutdown() }
        // The answer is the server's 503, not the client's open timeout: the error says which. The
        // timeout is long because a TLS handshake on a loaded 2-core machine has taken over 4.5 s;
        // how fast the refusal comes is not what this test is about.
        let error = await #expect(throws: WebSocketClientError.self) { try await second.open(timeout: .seconds(30)) }
        let text = String(describing: error)
        #expect(text.contains("503"), "the second client should be refused with 503, not time out; got \(text)")
        #expect(failures.all.isEmpty, "a refusal is not a TLS failure: \(failures.all.map(\.error))")
    }
}

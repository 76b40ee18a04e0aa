import Foundation
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// A TLS echo server with `pair`'s certificate that records what it sees.
func startTLSEchoServer(
    _ pair: TestCertificates.Pair, configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(),
    recorder: Recorder<Seen>
) throws -> (WebSocketServer, Int) {
    var configuration = configuration
    configuration.tls = try TLSServerContext(certificateChainFile: pair.chain, privateKeyFile: pair.key)
    return try startEchoServer(configuration, recorder: recorder)
}

/// A `wss://` client on `host:port` trusting the test CA (unless `tls` says otherwise), without reconnection.
func makeTLSClient(
    host: String = "127.0.0.1", port: Int, tls: TLSClientConfiguration? = nil, compressed: Bool = false,
    recorder: Recorder<Seen>
) throws -> WebSocketClient {
    var configuration = WebSocketClientConfiguration()
    configuration.reconnect = .disabled
    configuration.tls = try tls ?? TLSClientConfiguration(caFile: TestCertificates.get().caFile)
    if compressed { configuration.compression = PerMessageDeflateConfiguration() }
    return try WebSocketClient(url: WebSocketURL("wss://\(host):\(port)/echo"), configuration: configuration) { recorder.push(.client($0)) }
}

/// The client's final close frame, once it has closed for good.
func closedFrame(_ seen: [Seen]) -> WebSocketCloseFrame? {
    for event in seen { if case .closed(let frame)? = event.clientState { return frame } }
    return nil
}

/// What `socket` receives until the server closes it; a reset counts as closed (the server closes
/// with the peer's unread bytes, which the kernel answers with a reset).
func receiveUntilClosedOrReset(_ socket: TestSocket) -> [UInt8] {
    var received: [UInt8] = []
    while received.count < 1 << 20, let chunk = try? socket.receiveSome(), !chunk.isEmpty { received += chunk }
    return received
}

@Suite("wss:// over OpenSSL")
struct TLSTests {
    @Test("messages of 0 B to 1 MiB round-trip over wss://, with and without compression", arguments: [false, true])
    func roundTrip(compressed: Bool) throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        var serverConfiguration = WebSocketServerConfiguration()
        if compressed { serverConfiguration.compression = PerMessageDeflateConfiguration() }
        let (server, port) = try startTLSEchoServer(certificates.server, configuration: serverConfiguration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeTLSClient(port: port, compressed: compressed, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the wss client should open within 5 s: \(recorder.all)")
        var random = SplitMix64(seed: 19)
        let sizes = [0, 1, 125, 16_383, 16_384, 70_000, 1 << 20]
        let expected = sizes.map { WebSocketMessage.binary(randomBytes($0, using: &random)) } + [.text("héllo over TLS")]
        for message in expected { #expect(client.send(message).isAccepted) }
        let echoed = recorder.wait(seconds: 10) { $0.compactMap(\.clientMessage).count >= expected.count }
        #expect(echoed, "every echo should come back within 10 s")
        #expect(recorder.all.compactMap(\.clientMessage) == expected, "echoes should equal what was sent, in order")
        client.close(code: .normalClosure, reason: "done")
        let closed = recorder.wait(seconds: 5) { closedFrame($0) != nil }
        #expect(closed && closedFrame(recorder.all)?.code == .normalClosure, "the close handshake should complete over TLS")
    }

    @Test("the async API opens a wss:// connection to a host name (SNI and name check for localhost)")
    func asyncOpenByName() async throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, recorder: recorder)
        var configuration = WebSocketClientConfiguration()
        configuration.tls = TLSClientConfiguration(caFile: certificates.caFile)
        let client = try WebSocketClient(url: WebSocketURL("wss://localhost:\(port)/async"), configuration: configuration)
        try await client.open(timeout: .seconds(5))
        #expect(await client.send(.text("one")).isAccepted)
        var echo: WebSocketMessage?
        for await event in client.events {
            if case .message(let message) = event {
                echo = message
                break
            }
        }
        #expect(echo == .text("one"))
        _ = await client.close(timeout: .seconds(5))
        client.shutdown()
        await server.shutdown(timeout: .seconds(1))
    }

    @Test(
        "a certificate the client does not trust, an expired one and one for another host are refused with OpenSSL's reason",
        arguments: ["unknown CA", "expired", "other host"])
    func refusedCertificates(fault: String) async throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let pair: TestCertificates.Pair
        let words: String
        switch fault {
        case "unknown CA": (pair, words) = (certificates.selfSigned, "self-signed certificate")
        case "expired": (pair, words) = (certificates.expired, "certificate has expired")
        default: (pair, words) = (certificates.otherHost, "IP address mismatch")
        }
        let (server, port) = try startTLSEchoServer(pair, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeTLSClient(port: port, recorder: recorder)
        defer { client.shutdown() }
        do {
            try await client.open(timeout: .seconds(5))
            Issue.record("the client should refuse the \(fault) certificate")
        } catch {
            let tlsError = try #require(error.tlsError, "open() should throw a TLS error, threw \(error)")
            #expect(tlsError.category == .verification, "\(tlsError)")
            #expect(tlsError.reason.contains("certificate verify failed") && tlsError.reason.contains(words), "\(tlsError)")
            #expect(client.lastTLSError == tlsError)
        }
        let frame = closedFrame(recorder.all)
        #expect(
            frame?.code == .tlsHandshakeFailure && frame?.reason.contains(words) == true,
            "the client should close with 1015 and OpenSSL's reason, closed with \(String(describing: frame))")
        #expect(
            server.connectionCount == 0 || recorder.wait(seconds: 2) { _ in server.connectionCount == 0 },
            "the server should drop the refused connection")
    }

    @Test("the loudly named option connects to a self-signed server without checking it")
    func insecureSkip() throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.selfSigned, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        var tls = TLSClientConfiguration()
        tls.insecureSkipVerificationForLocalTestingOnly = true
        let client = try makeTLSClient(port: port, tls: tls, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the client should open without verification: \(recorder.all)")
    }

    @Test("a wss:// client on a plain port fails with OpenSSL's reason, not a hang")
    func tlsClientOnPlainPort() async throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeTLSClient(port: port, recorder: recorder)
        defer { client.shutdown() }
        let error = await #expect(throws: WebSocketClientError.self) { try await client.open(timeout: .seconds(5)) }
        let tlsError = try #require(error?.tlsError, "open() should throw a TLS error, threw \(String(describing: error))")
        #expect(tlsError.category == .handshake && tlsError.reason.contains("wrong version number"), "\(tlsError)")
    }

    @Test("a ws:// client on a TLS port is closed at once, not left hanging")
    func plainClientOnTLSPort() throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let socket = try TestSocket(port: port)
        try socket.send(TestSocket.upgradeRequest(path: "/plain"))
        let started = ContinuousClock.now
        let reply = receiveUntilClosedOrReset(socket)
        #expect(!String(decoding: reply, as: UTF8.self).contains("101"), "no upgrade in plain text on a TLS port")
        #expect(ContinuousClock.now - started < .seconds(2), "the server should close at once, not at the handshake timeout")
    }

    @Test("garbage instead of a ClientHello is closed at once")
    func garbageClientHello() throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<4 {
            let socket = try TestSocket(port: port)
            try socket.send(randomBytes(600, using: &random))
            let started = ContinuousClock.now
            _ = receiveUntilClosedOrReset(socket)
            #expect(ContinuousClock.now - started < .seconds(2), "garbage should be refused at once")
        }
        #expect(recorder.wait(seconds: 2) { _ in server.connectionCount == 0 }, "no connection should be left")
    }

    @Test("a TLS handshake that never completes is cut off at the handshake timeout")
    func slowHandshake() throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        var configuration = WebSocketServerConfiguration()
        configuration.handshakeTimeout = .milliseconds(300)
        let (server, port) = try startTLSEchoServer(certificates.server, configuration: configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let socket = try TestSocket(port: port)
        // The first bytes of a ClientHello record (handshake, TLS 1.0 record version, 512 bytes), then nothing.
        try socket.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
        let started = ContinuousClock.now
        let reply = try socket.receiveUntilClosed()
        let waited = ContinuousClock.now - started
        #expect(reply.isEmpty, "nothing can be sent before the TLS handshake")
        #expect(waited >= .milliseconds(250) && waited < .seconds(3), "closed after \(waited), expected the 300 ms handshake timeout")
        #expect(recorder.wait(seconds: 2) { _ in server.connectionCount == 0 })
    }

    @Test("reloadCertificates() serves new connections with the files' new certificate; a server without TLS refuses to reload")
    func reload() async throws {
        let certificates = try TestCertificates.get()
        let folder = certificates.folder + "/reload-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let chain = folder + "/chain.pem"
        let key = folder + "/key.pem"
        try FileManager.default.copyItem(atPath: certificates.expired.chain, toPath: chain)
        try FileManager.default.copyItem(atPath: certificates.expired.key, toPath: key)
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(TestCertificates.Pair(chain: chain, key: key), recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let first = try makeTLSClient(port: port, recorder: Recorder<Seen>())
        defer { first.shutdown() }
        await #expect(throws: WebSocketClientError.self) { try await first.open(timeout: .seconds(5)) }
        #expect(first.lastTLSError?.reason.contains("expired") == true)

        try FileManager.default.removeItem(atPath: chain)
        try FileManager.default.copyItem(atPath: certificates.server.chain, toPath: chain)
        try server.reloadCertificates()
        let second = try makeTLSClient(port: port, recorder: Recorder<Seen>())
        defer { second.shutdown() }
        try await second.open(timeout: .seconds(5))

        let plain = try WebSocketServer { _ in }
        #expect(throws: TLSError.self) { try plain.reloadCertificates() }
    }

    @Test("one loop serves a TLS port and a plain port at once (two servers)")
    func tlsAndPlainOnOneLoop() throws {
        let certificates = try TestCertificates.get()
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let recorder = Recorder<Seen>()
        let echo: @Sendable (WebSocketServerEvent) -> Void = { event in
            recorder.push(.server(event))
            if case .message(let connection, let message) = event { connection.send(message) }
        }
        var secure = WebSocketServerConfiguration()
        secure.tls = try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.server.key)
        let tlsServer = try WebSocketServer(configuration: secure, loop: loop, handler: echo)
        let plainServer = try WebSocketServer(configuration: WebSocketServerConfiguration(), loop: loop, handler: echo)
        let tlsPort = try tlsServer.start().port
        let plainPort = try plainServer.start().port
        defer {
            tlsServer.shutdown(timeout: .seconds(1))
            plainServer.shutdown(timeout: .seconds(1))
        }
        let tlsClient = try makeTLSClient(port: tlsPort, recorder: recorder)
        let plainClient = try makeClient(port: plainPort, recorder: recorder)
        defer {
            tlsClient.shutdown()
            plainClient.shutdown()
        }
        tlsClient.connect()
        plainClient.connect()
        #expect(recorder.wait(seconds: 5) { $0.filter { $0.clientState == .open }.count == 2 }, "both clients should open")
        tlsClient.send(text: "secure")
        plainClient.send(text: "plain")
        #expect(recorder.wait(seconds: 5) { Set($0.compactMap(\.clientMessage)) == [.text("secure"), .text("plain")] })
    }

    @Test("a missing certificate file and a key that does not match are typed errors naming the file")
    func badFiles() throws {
        let certificates = try TestCertificates.get()
        let missing = #expect(throws: TLSError.self) {
            try TLSServerContext(certificateChainFile: certificates.folder + "/none.pem", privateKeyFile: certificates.server.key)
        }
        #expect(missing?.category == .configuration && missing?.file == certificates.folder + "/none.pem", "\(String(describing: missing))")
        let mismatched = #expect(throws: TLSError.self) {
            try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.selfSigned.key)
        }
        #expect(mismatched?.reason.contains("values mismatch") == true, "\(String(describing: mismatched))")
    }
}

/// `openssl s_client` against our TLS server, for what our own client cannot be made to do.
@Suite("wss:// protocol versions and ALPN (openssl s_client)")
struct TLSVersionTests {
    /// Runs `openssl s_client` with `arguments` against 127.0.0.1:`port` and returns its output.
    func sClient(port: Int, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(port)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("TLS 1.2 and 1.3 are served with ALPN http/1.1; TLS 1.1 is refused", arguments: ["-tls1_2", "-tls1_3", "-tls1_1"])
    func versions(version: String) throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let output = try sClient(port: port, [version, "-CAfile", certificates.caFile, "-alpn", "http/1.1"])
        if version == "-tls1_1" {
            #expect(
                output.contains("alert protocol version") && output.contains("No ALPN negotiated"), "TLS 1.1 should be refused:\n\(output)")
        } else {
            #expect(
                output.contains("ALPN protocol: http/1.1") && output.contains("Verify return code: 0 (ok)"),
                "\(version) should complete with ALPN http/1.1:\n\(output)")
        }
    }
}

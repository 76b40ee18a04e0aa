import Foundation
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// Interoperability with an independent implementation: the Python `websockets` library
/// (`Tools/interop/peer.py`), our client against its server and its client against our server.
/// Needs `TICKWIRE_PYTHON` (a Python with `websockets`; `Tools/test` creates and sets it).
@Suite(
    "Interop with Python websockets",
    .serialized,
    .enabled(
        if: InteropPeer.python != nil,
        "needs TICKWIRE_PYTHON, a Python with the websockets package (Tools/test sets it up)"))
struct InteropTests {
    /// The default limits: 16 MiB messages pass even deflated larger than themselves.
    static let limits = WebSocketLimits.default
    static let sizes = [0, 1, 125, 126, 127, 65535, 65536, 1 << 20, 16 << 20]
    static let closeCodes: [UInt16] = [1000, 1001, 1003, 1007, 1008, 1011, 3000, 4000, 4999]

    // MARK: - Their client, our server

    @Test(
        "Python's client passes its whole script against our server (sizes, fragments, pings, every close code)",
        arguments: [false, true])
    func theirClientOurServer(compression: Bool) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.protocolConfiguration = WebSocketConfiguration(limits: Self.limits)
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        if compression { configuration.compression = PerMessageDeflateConfiguration() }
        // Our server pings too, so the Python client must answer our pings as well as send its own.
        configuration.keepalive = KeepalivePolicy(interval: .milliseconds(200), pongTimeout: .seconds(5))
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let peer = try InteropPeer(["client", "ws://127.0.0.1:\(port)/"] + (compression ? [] : ["--no-compression"]))
        let status = peer.waitForExit(timeout: 120)
        let checks = peer.output.split(separator: "\n").filter { $0.hasPrefix("ok:") || $0.hasPrefix("FAIL") }
        #expect(
            status == 0,
            "peer.py client should pass every check; exit status \(status.map(String.init) ?? "none (timed out)"); its last checks:\n\(checks.suffix(4).joined(separator: "\n"))"
        )
        let closes = recorder.all.compactMap(\.serverClose).compactMap(\.code?.rawValue)
        for code in Self.closeCodes {
            #expect(closes.contains(code), "our server should have seen the Python client close with \(code); saw \(closes)")
        }
    }

    // MARK: - Our client, their server

    @Test(
        "our client's text and binary messages from 0 bytes to 16 MiB come back intact from Python's server",
        arguments: [false, true])
    func ourClientTheirServer(compression: Bool) async throws {
        let (peer, port) = try InteropPeer.server(compression ? [] : ["--no-compression"])
        defer { peer.stop() }
        let recorder = Recorder<Seen>()
        let client = try makeClient(
            port: port, path: "/", configuration: Self.clientConfiguration(compression: compression),
            recorder: recorder)
        defer { client.shutdown() }
        try await client.open(timeout: .seconds(10))
        #expect(
            (client.connection?.compression != nil) == compression,
            "permessage-deflate should be negotiated exactly when offered (offered: \(compression))")
        var random = SplitMix64(seed: 6455)
        var expected: [WebSocketMessage] = [
            .text(""), .text("h\u{e9}llo \u{2713} \u{1F600}"), .text(String(repeating: "x", count: 1 << 20)),
        ]
        expected += Self.sizes.map { size in .binary((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        for message in expected {
            let result = await client.send(message)
            #expect(result.isAccepted, "sending \(message) was refused: \(result)")
        }
        let arrived = recorder.wait(seconds: 90) {
            $0.compactMap(\.clientMessage).count >= expected.count || $0.contains(where: isDisconnect)
        }
        let received = recorder.all.compactMap(\.clientMessage)
        #expect(arrived, "only \(received.count) of \(expected.count) echoes arrived; peer output: \(peer.output.suffix(500))")
        for (sent, echoed) in zip(expected, received) {
            #expect(sent == echoed, "the echo of \(sent) came back as \(echoed)")
        }
    }

    @Test("our fragmented messages are reassembled by Python's server and echoed whole", arguments: [false, true])
    func fragmentedMessages(compression: Bool) async throws {
        let (peer, port) = try InteropPeer.server(compression ? [] : ["--no-compression"])
        defer { peer.stop() }
        var configuration = Self.clientConfiguration(compression: compression)
        configuration.protocolConfiguration = WebSocketConfiguration(limits: Self.limits, outgoingFragmentBytes: 1000)
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, path: "/", configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        try await client.open(timeout: .seconds(10))
        var random = SplitMix64(seed: 17)
        let expected: [WebSocketMessage] = [
            .binary((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) }),
            .text(String(repeating: "h\u{e9}llo w\u{f6}rld \u{1F600} ", count: 500)),  // fragments split characters
            .binary([1, 2, 3]),
        ]
        for message in expected { await client.send(message) }
        let arrived = recorder.wait(seconds: 30) {
            $0.compactMap(\.clientMessage).count >= expected.count || $0.contains(where: isDisconnect)
        }
        #expect(arrived, "the fragmented messages' echoes did not all arrive; peer output: \(peer.output.suffix(500))")
        #expect(recorder.all.compactMap(\.clientMessage) == expected, "the echoes differ from the fragmented messages sent")
    }

    @Test("pings both ways: our keepalive gets Python's pongs, and we answer Python's pings")
    func pingsBothWays() async throws {
        let (peer, port) = try InteropPeer.server(["--ping-interval", "0.1"])
        defer { peer.stop() }
        var configuration = Self.clientConfiguration(compression: false)
        configuration.keepalive = KeepalivePolicy(interval: .milliseconds(100), pongTimeout: .milliseconds(500))
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, path: "/", configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        try await client.open(timeout: .seconds(10))
        // Either side drops the connection when a pong is missing: ours after 0.5 s, Python's
        // (1011) after 0.1 s. Fifteen intervals of each without a drop show both directions work.
        let dropped = recorder.wait(seconds: 1.5) { $0.contains { if case .client(.disconnected) = $0 { true } else { false } } }
        #expect(
            !dropped, "the connection dropped: \(recorder.all.compactMap { if case .client(.disconnected(let f)) = $0 { f } else { nil } })"
        )
        client.send(text: "still here")
        #expect(
            recorder.wait(seconds: 5) { $0.contains { $0.clientMessage == .text("still here") } }, "an echo after the pings should arrive")
    }

    @Test("Python's server closing with each code reaches our client with that code and reason")
    func theirServerCloses() async throws {
        let (peer, port) = try InteropPeer.server()
        defer { peer.stop() }
        for code in Self.closeCodes {
            let recorder = Recorder<Seen>()
            let client = try makeClient(
                port: port, path: "/", configuration: Self.clientConfiguration(compression: true), recorder: recorder)
            defer { client.shutdown() }
            try await client.open(timeout: .seconds(10))
            client.send(text: "close:\(code):bye \(code)")
            let closed = recorder.wait(seconds: 10) { $0.contains(where: isDisconnect) }
            let frames = recorder.all.compactMap { if case .client(.disconnected(let frame)) = $0 { frame } else { nil } }
            #expect(closed, "our client should see Python's close \(code)")
            #expect(
                frames.first?.code?.rawValue == code && frames.first?.reason == "bye \(code)",
                "expected close \(code) 'bye \(code)', got \(frames)")
        }
    }

    @Test("our client closing with each code completes the close handshake with Python's server")
    func ourClientCloses() async throws {
        let (peer, port) = try InteropPeer.server()
        defer { peer.stop() }
        for code in Self.closeCodes {
            let recorder = Recorder<Seen>()
            let client = try makeClient(
                port: port, path: "/", configuration: Self.clientConfiguration(compression: false), recorder: recorder)
            defer { client.shutdown() }
            try await client.open(timeout: .seconds(10))
            let closeCode = try #require(WebSocketCloseCode(rawValue: code), "\(code) should be a valid close code")
            let start = ContinuousClock.now
            let frame = await client.close(code: closeCode, reason: "ours", timeout: .seconds(10))
            #expect(frame != nil, "the close handshake with code \(code) should finish within 10 s")
            #expect(frame?.code?.rawValue == code, "Python should echo close code \(code); the final frame is \(String(describing: frame))")
            #expect(ContinuousClock.now - start < .seconds(3), "closing with \(code) took \(ContinuousClock.now - start)")
        }
    }

    // MARK: - Reconnection

    @Test("the reconnect loop survives Python's server stopping and starting again on the same port")
    func reconnectAcrossRestart() async throws {
        var (peer, port) = try InteropPeer.server()
        defer { peer.stop() }
        var configuration = Self.clientConfiguration(compression: true)
        configuration.reconnect = ReconnectPolicy(baseDelay: .milliseconds(50), maximumDelay: .milliseconds(200), jitter: 0.2)
        configuration.jitterSeed = 42
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, path: "/", configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        try await client.open(timeout: .seconds(10))
        client.send(text: "before")
        #expect(recorder.wait(seconds: 10) { $0.contains { $0.clientMessage == .text("before") } }, "the first echo should arrive")

        peer.stop()
        let lost = recorder.wait(seconds: 10) { $0.contains { if case .client(.disconnected) = $0 { true } else { false } } }
        #expect(lost, "our client should notice the server is gone")
        let retrying = recorder.wait(seconds: 10) { $0.contains { if case .waitingToReconnect = $0.clientState { true } else { false } } }
        #expect(retrying, "our client should be retrying with backoff")
        #expect(client.send(text: "queued").isAccepted, "a send while disconnected should be queued")

        (peer, port) = try InteropPeer.server(port: port)
        let reopened = recorder.wait(seconds: 15) { $0.filter { $0.clientState == .open }.count >= 2 }
        #expect(reopened, "our client should reconnect to the restarted server; states: \(recorder.all.compactMap(\.clientState))")
        #expect(
            recorder.wait(seconds: 10) { $0.contains { $0.clientMessage == .text("queued") } },
            "the message queued while disconnected should be sent and echoed after reconnecting")
    }

    /// Whether `seen` is our client losing its connection (so a wait for echoes can end early).
    func isDisconnect(_ seen: Seen) -> Bool {
        if case .client(.disconnected) = seen { return true }
        return false
    }

    static func clientConfiguration(compression: Bool) -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration()
        configuration.protocolConfiguration = WebSocketConfiguration(limits: limits)
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        configuration.maximumQueuedBytesWhileDisconnected = 64 << 20
        configuration.keepalive = nil
        configuration.reconnect = .disabled
        if compression { configuration.compression = PerMessageDeflateConfiguration() }
        return configuration
    }
}

import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

/// The client's life cycle: graceful shutdown seen from the client, reconnection across a server
/// restart, keepalive against a hung server, the async API.
@Suite("WebSocket client life cycle")
struct WebSocketClientTests {
    @Test("server shutdown closes every client with 1001 and waits for the close handshakes")
    func gracefulShutdown() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        var configuration = WebSocketClientConfiguration()
        configuration.reconnect = .disabled
        let clientRecorders = (0..<5).map { _ in Recorder<Seen>() }
        let clients = try clientRecorders.map { try makeClient(port: port, configuration: configuration, recorder: $0) }
        defer { for client in clients { client.shutdown() } }
        for client in clients { client.connect() }
        for recorder in clientRecorders { #expect(recorder.wait(seconds: 5, until: isOpen)) }

        let start = MonotonicTime.now()
        server.shutdown(timeout: .seconds(5))
        let elapsed = Double(MonotonicTime.now() - start) / 1e9
        #expect(elapsed < 4, "clients answer at once, so shutdown should end before its 5 s timeout (took \(elapsed) s)")
        #expect(server.connectionCount == 0)
        let serverCloses = recorder.all.compactMap(\.serverClose)
        #expect(serverCloses.count == 5, "the server should report all five closed")
        #expect(serverCloses.allSatisfy { $0.code == .goingAway }, "each close handshake should complete with 1001: \(serverCloses)")
        for (index, recorder) in clientRecorders.enumerated() {
            let closed = recorder.wait(seconds: 5) { seen in
                seen.contains { if case .client(.stateChanged(.closed(let frame))) = $0 { frame.code == .goingAway } else { false } }
            }
            #expect(closed, "client \(index) should end closed with 1001")
        }
    }

    @Test("shutdown cuts off a client that never answers the close, at the timeout")
    func shutdownTimeout() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        let silent = try TestSocket(port: port)
        try silent.send(TestSocket.upgradeRequest())
        #expect(try silent.receiveHead().hasPrefix("HTTP/1.1 101"))
        #expect(recorder.wait(seconds: 5) { $0.contains { if case .server(.opened) = $0 { true } else { false } } })
        let start = MonotonicTime.now()
        server.shutdown(timeout: .milliseconds(300))
        let elapsed = Double(MonotonicTime.now() - start) / 1e9
        #expect(elapsed >= 0.3 && elapsed < 3, "shutdown should wait its 0.3 s timeout, then cut off (took \(elapsed) s)")
        #expect(recorder.all.compactMap(\.serverClose).first?.code == .abnormalClosure)
    }

    @Test("the client reconnects with backoff after the server stops, and resumes when it restarts")
    func reconnectAcrossRestart() throws {
        let serverRecorder = Recorder<Seen>()
        let (first, port) = try startEchoServer(recorder: serverRecorder)
        var configuration = WebSocketClientConfiguration()
        configuration.reconnect = ReconnectPolicy(baseDelay: .milliseconds(20), maximumDelay: .milliseconds(100), jitter: 0.5)
        configuration.jitterSeed = 99
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen))
        first.shutdown(timeout: .seconds(1))

        // While the server is down, attempts fail and the waits grow up to the cap.
        let waited = recorder.wait(seconds: 5) { seen in
            seen.filter { if case .client(.stateChanged(.waitingToReconnect)) = $0 { true } else { false } }.count >= 5
        }
        #expect(waited, "the client should keep trying while the server is down")
        let delays = recorder.all.compactMap { seen -> Duration? in
            if case .client(.stateChanged(.waitingToReconnect(_, let delay))) = seen { return delay }
            return nil
        }
        #expect(delays.allSatisfy { $0 <= .milliseconds(100) }, "no delay may pass the 100 ms cap: \(delays)")
        #expect(client.send(text: "queued while down").isAccepted, "sends while disconnected should be queued")

        var restartConfiguration = WebSocketServerConfiguration()
        restartConfiguration.port = port
        let restartRecorder = Recorder<Seen>()
        let (second, _) = try startEchoServer(restartConfiguration, recorder: restartRecorder)
        defer { second.shutdown(timeout: .seconds(1)) }
        let opensBefore = recorder.all.filter { $0.clientState == .open }.count
        let reopened = recorder.wait(seconds: 5) { $0.filter { $0.clientState == .open }.count > opensBefore }
        #expect(reopened, "the client should reconnect once the server is back")
        let echoed = recorder.wait(seconds: 5) { $0.compactMap(\.clientMessage).contains(.text("queued while down")) }
        #expect(echoed, "the message queued while down should be sent after reconnecting")
        #expect(restartRecorder.all.compactMap(\.serverMessage) == [.text("queued while down")])

        // A successful connection resets the backoff: the next loss starts again at attempt 1.
        let seenBefore = recorder.all.count
        second.shutdown(timeout: .seconds(1))
        let waitingAgain = recorder.wait(seconds: 5) { seen in
            seen.dropFirst(seenBefore).contains { if case .client(.stateChanged(.waitingToReconnect)) = $0 { true } else { false } }
        }
        #expect(waitingAgain)
        let firstWait = recorder.all.dropFirst(seenBefore).compactMap { seen -> Int? in
            if case .client(.stateChanged(.waitingToReconnect(let attempt, _))) = seen { return attempt }
            return nil
        }.first
        #expect(firstWait == 1, "after an open connection the attempt count should restart at 1, not \(String(describing: firstWait))")
    }

    @Test("a server that stops answering pings is declared dead by the client's keepalive")
    func clientKeepaliveTimeout() throws {
        let serverLoop = try EventLoop()
        try serverLoop.start()
        defer { serverLoop.stop() }
        let serverRecorder = Recorder<Seen>()
        let server = try WebSocketServer(loop: serverLoop) { serverRecorder.push(.server($0)) }
        let port = try server.start().port
        defer { server.shutdown(timeout: .milliseconds(200)) }
        var configuration = WebSocketClientConfiguration()
        configuration.keepalive = KeepalivePolicy(interval: .milliseconds(100), pongTimeout: .milliseconds(300))
        configuration.reconnect = .disabled
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen))
        // Pings are answered while the server runs: still open after several intervals.
        #expect(!recorder.wait(seconds: 0.6) { $0.contains { if case .client(.disconnected) = $0 { true } else { false } } })

        // Hang the server's loop (a stand-in for a frozen process) until the client gives up.
        let release = TestSignal()
        serverLoop.execute { _ = release.wait(seconds: 5) }
        let dead = recorder.wait(seconds: 4) { seen in
            seen.contains { if case .client(.disconnected(let frame)) = $0 { frame.reason.contains("pong") } else { false } }
        }
        release.signal()
        #expect(dead, "the client should declare the hung server dead after its pong timeout")
    }

    @Test("async API: open, send, iterate events, close")
    func asyncAPI() async throws {
        let server = try WebSocketServer()
        let port = try server.start().port
        let serverTask = Task {
            var received: [WebSocketMessage] = []
            for await event in server.events {
                switch event {
                case .message(let connection, let message):
                    received.append(message)
                    connection.send(message)
                default: break
                }
            }
            return received
        }
        let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(port)/async"))
        try await client.open(timeout: .seconds(5))
        #expect(client.state == .open)
        #expect(await client.send(.text("one")).isAccepted)
        #expect(await client.send(.binary([1, 2, 3])).isAccepted)
        var echoes: [WebSocketMessage] = []
        for await event in client.events {
            if case .message(let message) = event { echoes.append(message) }
            if echoes.count == 2 { break }
        }
        #expect(echoes == [.text("one"), .binary([1, 2, 3])])
        let frame = await client.close(code: .normalClosure, reason: "done", timeout: .seconds(5))
        #expect(frame?.code == .normalClosure, "the close handshake should end with 1000, got \(String(describing: frame))")
        client.shutdown()
        await server.shutdown(timeout: .seconds(1))
        #expect(
            await serverTask.value == [.text("one"), .binary([1, 2, 3])], "the server's event stream should see both messages, then end")
    }

    @Test("open() reports a refused connection when reconnection is off")
    func openRefused() async throws {
        // Find a port nobody listens on: bind one, read it, close it.
        let probe = try TCPEchoServer()
        let port = try probe.start().port
        probe.stop()
        var configuration = WebSocketClientConfiguration()
        configuration.reconnect = .disabled
        let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(port)/"), configuration: configuration)
        defer { client.shutdown() }
        await #expect(throws: WebSocketClientError.self) { try await client.open(timeout: .seconds(5)) }
        guard case .closed(let frame) = client.state else {
            Issue.record("the client should be closed, is \(client.state)")
            return
        }
        #expect(frame.code == .abnormalClosure && frame.reason.contains("refused"), "closed with \(frame)")
    }

    @Test("after close() has finished, connect() opens a new connection")
    func reconnectAfterClose() throws {
        let serverRecorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: serverRecorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen))
        client.close(code: .normalClosure, reason: "bye")
        let closed = recorder.wait(seconds: 5) { $0.contains { if case .client(.stateChanged(.closed)) = $0 { true } else { false } } }
        #expect(closed, "close() should end in .closed")
        #expect(client.send(text: "while closed") == .droppedNotOpen, "sends after close are refused, not queued")
        #expect(
            serverRecorder.wait(seconds: 5) { $0.compactMap(\.serverClose).first?.code == .normalClosure },
            "the server should see the client's 1000")
        client.connect()
        #expect(recorder.wait(seconds: 5) { $0.filter { $0.clientState == .open }.count == 2 }, "connect() after close should open again")
        #expect(client.send(text: "again").isAccepted)
        #expect(recorder.wait(seconds: 5) { $0.compactMap(\.clientMessage) == [.text("again")] })
    }

    @Test("shutdown called from the server's own event handler does not block its loop")
    func shutdownFromHandler() throws {
        let box = Shared<WebSocketServer?>(nil)
        let server = try WebSocketServer { event in
            if case .message(_, .text("stop")) = event { box.value?.shutdown(timeout: .seconds(2)) }
        }
        box.withLock { $0 = server }
        defer { box.withLock { $0 = nil } }
        let port = try server.start().port
        var configuration = WebSocketClientConfiguration()
        configuration.reconnect = .disabled
        let recorder = Recorder<Seen>()
        let client = try makeClient(port: port, configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen))
        client.send(text: "stop")
        let closed = recorder.wait(seconds: 5) { seen in
            seen.contains { if case .client(.stateChanged(.closed(let frame))) = $0 { frame.code == .goingAway } else { false } }
        }
        #expect(closed, "the client should be closed with 1001 by a shutdown started inside the handler")
    }
}

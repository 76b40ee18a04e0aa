import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's defences: handshake limits and timeout, the connection cap, the accept hook,
/// backpressure against peers that never read, keepalive against silent peers.
@Suite("WebSocket server limits")
struct WebSocketServerLimitsTests {
    @Test("a client sending its handshake one byte at a time is cut off with 408 at the handshake timeout")
    func slowHandshake() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.handshakeTimeout = .milliseconds(600)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 1)
        let request = Array(TestSocket.upgradeRequest().utf8)
        let start = MonotonicTime.now()
        var sent = 0
        // The fake slow client (named so: this pacing is its behaviour, not synchronization):
        // one byte every 100 ms until the server hangs up or the request is out.
        while sent < request.count && MonotonicTime.now() - start < 5_000_000_000 {
            do { try client.send([request[sent]]) } catch { break }
            sent += 1
            if client.isReadable(waitingMilliseconds: 100) { break }
        }
        let head = try client.receiveHead()
        let elapsed = Double(MonotonicTime.now() - start) / 1e9
        #expect(head.hasPrefix("HTTP/1.1 408"), "the server should answer 408, got '\(head.prefix(40))'")
        #expect(sent < request.count, "the server should hang up before the slow request is complete (sent \(sent) of \(request.count))")
        #expect(elapsed < 3, "the cut should come near the 0.6 s timeout, not after \(elapsed) s")
        #expect(recorder.all.isEmpty, "no connection should open")
    }

    @Test("a handshake at the byte limit is accepted; one byte over is refused with 431")
    func handshakeByteLimit() throws {
        let base = TestSocket.upgradeRequest(extraHeaders: ["X-Pad: "])
        var configuration = WebSocketServerConfiguration()
        configuration.maximumHandshakeBytes = 1024
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        for (padding, expected) in [(1024 - base.utf8.count, "HTTP/1.1 101"), (1025 - base.utf8.count, "HTTP/1.1 431")] {
            let request = TestSocket.upgradeRequest(extraHeaders: ["X-Pad: " + String(repeating: "a", count: padding)])
            let client = try TestSocket(port: port)
            try client.send(request)
            let head = try client.receiveHead()
            #expect(head.hasPrefix(expected), "a \(request.utf8.count)-byte request should get \(expected), got '\(head.prefix(40))'")
        }
    }

    @Test("a handshake at the header-count limit is accepted; one header more is refused with 431")
    func headerCountLimit() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.maximumHeaderCount = 10  // the request itself has 5
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        for (extra, expected) in [(5, "HTTP/1.1 101"), (6, "HTTP/1.1 431")] {
            let client = try TestSocket(port: port)
            try client.send(TestSocket.upgradeRequest(extraHeaders: (0..<extra).map { "X-\($0): v" }))
            let head = try client.receiveHead()
            #expect(head.hasPrefix(expected), "\(5 + extra) headers should get \(expected), got '\(head.prefix(40))'")
        }
    }

    @Test("an oversized handshake (a 1 MiB header) is refused without buffering it")
    func hugeHandshake() throws {
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        let request = TestSocket.upgradeRequest(extraHeaders: ["X-Huge: " + String(repeating: "b", count: 1 << 20)])
        try? client.send(request)  // the server may hang up before all of it is sent
        let head = try client.receiveHead()
        #expect(head.hasPrefix("HTTP/1.1 431"), "got '\(head.prefix(40))'")
    }

    @Test("past the connection limit the server answers 503; below it, it accepts again")
    func connectionLimit() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.maximumConnections = 2
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let first = try TestSocket(port: port)
        let second = try TestSocket(port: port)
        for client in [first, second] {
            try client.send(TestSocket.upgradeRequest())
            #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"))
        }
        let third = try TestSocket(port: port)
        try? third.send(TestSocket.upgradeRequest())
        let refused = try third.receiveHead()
        #expect(refused.hasPrefix("HTTP/1.1 503"), "the third connection should get 503, got '\(refused.prefix(40))'")
        first.close()
        #expect(recorder.wait(seconds: 5) { $0.contains { $0.serverClose != nil } }, "the server should see the first client go")
        let fourth = try TestSocket(port: port)
        try fourth.send(TestSocket.upgradeRequest())
        #expect(try fourth.receiveHead().hasPrefix("HTTP/1.1 101"), "with room again, a new client should be accepted")
    }

    @Test("the accept hook sees path, query and headers and can refuse with a status")
    func acceptHook() throws {
        let seenRequests = Recorder<WebSocketUpgradeRequest>()
        var configuration = WebSocketServerConfiguration()
        configuration.subprotocols = ["tickwire.v1"]
        configuration.shouldAccept = { request in
            seenRequests.push(request)
            if request.header("Authorization") != "Bearer good" { return .reject(status: 401, reason: "bad token") }
            if request.header("Origin") == "https://evil.example" { return .reject(status: 403, reason: "origin") }
            return .accept
        }
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let cases: [([String], String)] = [
            (["Authorization: Bearer bad"], "HTTP/1.1 401"),
            (["Authorization: Bearer good", "Origin: https://evil.example"], "HTTP/1.1 403"),
            (["Authorization: Bearer good", "Sec-WebSocket-Protocol: other, tickwire.v1"], "HTTP/1.1 101"),
        ]
        for (headers, expected) in cases {
            let client = try TestSocket(port: port)
            try client.send(TestSocket.upgradeRequest(path: "/game?room=7", extraHeaders: headers))
            let head = try client.receiveHead()
            #expect(head.hasPrefix(expected), "\(headers) should get \(expected), got '\(head.prefix(40))'")
            if expected.hasSuffix("101") {
                #expect(head.contains("Sec-WebSocket-Protocol: tickwire.v1"), "the server should choose tickwire.v1")
            }
        }
        let first = try #require(seenRequests.all.first)
        #expect(first.path == "/game" && first.query == "room=7", "the hook should see path and query apart")
        #expect(seenRequests.all.last?.offeredSubprotocols == ["other", "tickwire.v1"])
    }

    @Test("a peer that never reads cannot grow the server's send buffer past its bound")
    func backpressure() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 256 * 1024, hardLimit: 1 << 20)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder, echo: false)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        client.setReceiveBuffer(64 * 1024)  // not smaller: see `largeMessagesThroughPartialWrites`
        try client.send(TestSocket.upgradeRequest())
        #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"))
        #expect(recorder.wait(seconds: 5) { $0.contains { if case .server(.opened) = $0 { true } else { false } } })
        let connection = try #require(recorder.all.compactMap { if case .server(.opened(let c)) = $0 { c } else { nil } }.first)

        // A game server's snapshot loop: 64 KiB snapshots, skipping while backpressured.
        let snapshot = [UInt8](repeating: 7, count: 64 * 1024)
        var results: [SendResult] = []
        var largestBuffer = 0
        for _ in 0..<2000 {
            let result = connection.send(binary: snapshot)
            results.append(result)
            largestBuffer = max(largestBuffer, connection.bufferedByteCount)
            if result == .droppedBufferFull { break }
        }
        #expect(results.contains(.acceptedOverHighWaterMark), "send should report the high-water mark")
        #expect(results.last == .droppedBufferFull, "send should refuse once the hard limit is reached")
        #expect(largestBuffer <= (1 << 20) + snapshot.count, "buffered \(largestBuffer) bytes, over the hard limit plus one message")

        // Now the client reads: the drain event must follow (bounded: 10 s).
        func sawWritable() -> Bool { recorder.all.contains { if case .server(.writable) = $0 { true } else { false } } }
        let start = MonotonicTime.now()
        var readBytes = 0
        while !sawWritable() && MonotonicTime.now() - start < 10_000_000_000 {
            readBytes += (try? client.receiveSome())?.count ?? 0
        }
        #expect(
            sawWritable(),
            """
            the server should report the connection writable once the reader catches up; after \(results.count) \
            sends the reader took \(readBytes) bytes, the server still buffers \(connection.bufferedByteCount) \
            bytes; it closed the connection: \(recorder.all.compactMap(\.serverClose).first.map { "\($0)" } ?? "no")
            """)
    }

    @Test("large messages, written from their own storage, reach a slow reader whole and in order among small ones")
    func largeMessagesThroughPartialWrites() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder, echo: false)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 2)
        // A small window, so the kernel takes the large writes in pieces. Not smaller: a receive
        // buffer far below the loopback MSS (64 KiB), set after connecting, stalls the sender on
        // zero-window probes (`ss` shows `persist`), and a megabyte then takes many seconds.
        client.setReceiveBuffer(64 * 1024)
        try client.send(TestSocket.upgradeRequest())
        #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"))
        #expect(recorder.wait(seconds: 5) { $0.contains { if case .server(.opened) = $0 { true } else { false } } })
        let connection = try #require(recorder.all.compactMap { if case .server(.opened(let c)) = $0 { c } else { nil } }.first)

        // Binary messages from 16 KiB up leave from their own storage (header and payload in
        // one gathered write); texts and small binaries are copied into the frame buffer. Half
        // go from the loop thread (framed at once), half from this one (queued, then framed).
        var random = SplitMix64(seed: 11)
        var messages: [WebSocketMessage] = []
        for index in 0..<60 {
            switch index % 4 {
            case 0: messages.append(.binary(randomBytes(64 * 1024 + index, using: &random)))
            case 1: messages.append(.text("message \(index)"))
            case 2: messages.append(.binary(randomBytes(16 * 1024 + index * 7, using: &random)))
            default: messages.append(.binary(randomBytes(100 + index, using: &random)))
            }
        }
        for (index, message) in messages.enumerated() {
            if index % 8 < 4 {
                #expect(connection.send(message).isAccepted, "message \(index) should be accepted from this thread")
            } else {
                let accepted = connection.loop.runAndWait { connection.send(message).isAccepted }
                #expect(accepted == true, "message \(index) should be accepted on the loop thread")
            }
        }
        let expectedBytes = messages.reduce(0) { total, message in
            let count = message.byteCount
            return total + count + (count < 126 ? 2 : count < 65536 ? 4 : 10)
        }
        var received: [[UInt8]] = []
        var receivedBytes = 0
        let start = MonotonicTime.now()
        while receivedBytes < expectedBytes && MonotonicTime.now() - start < 10_000_000_000 {
            guard let chunk = try? client.receiveSome(), !chunk.isEmpty else { continue }
            received.append(chunk)
            receivedBytes += chunk.count
        }
        #expect(receivedBytes == expectedBytes, "the reader should get exactly \(expectedBytes) bytes, got \(receivedBytes)")
        let frames = try decodeFrames(received, role: .client)
        let decoded: [WebSocketMessage] = frames.map {
            $0.header.opcode == .text ? .text(String(decoding: $0.payload, as: UTF8.self)) : .binary($0.payload)
        }
        #expect(decoded.count == messages.count, "\(messages.count) messages sent, \(decoded.count) frames read")
        let firstDifference = zip(decoded, messages).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "message \(firstDifference ?? -1) arrived changed or out of order")
    }

    @Test("an echo server stops reading from a client that sends but never reads")
    func nonReadingEchoClient() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 128 * 1024, hardLimit: 512 * 1024)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 1)
        client.setReceiveBuffer(4096)
        try client.send(TestSocket.upgradeRequest())
        #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"))
        var random = SplitMix64(seed: 3)
        let frame = WebSocketFrame(
            opcode: .binary, payload: [UInt8](repeating: 1, count: 32 * 1024),
            maskingKey: .random(using: &random)
        ).encoded()
        var sent = 0
        while sent < 512 << 20 {
            do { try client.send(frame) } catch { break }
            sent += frame.count
        }
        #expect(sent < 32 << 20, "the server should stop reading long before 32 MiB; it took \(sent) bytes")
    }

    @Test("keepalive declares a peer dead when it does not answer pings")
    func keepalivePongTimeout() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.keepalive = KeepalivePolicy(interval: .milliseconds(100), pongTimeout: .milliseconds(200))
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        // A raw peer that completes the handshake and then never answers a ping.
        let silent = try TestSocket(port: port)
        try silent.send(TestSocket.upgradeRequest())
        #expect(try silent.receiveHead().hasPrefix("HTTP/1.1 101"))
        let closed = recorder.wait(seconds: 5) { $0.contains { $0.serverClose != nil } }
        #expect(closed, "the silent peer should be dropped within 5 s")
        let frame = try #require(recorder.all.compactMap(\.serverClose).first)
        #expect(frame.code == .abnormalClosure && frame.reason.contains("pong"), "closed with \(frame)")

        // A library client answers pings, so it stays open past several intervals.
        let liveRecorder = Recorder<Seen>()
        var clientConfiguration = WebSocketClientConfiguration()
        clientConfiguration.keepalive = nil
        let client = try makeClient(port: port, configuration: clientConfiguration, recorder: liveRecorder)
        defer { client.shutdown() }
        client.connect()
        #expect(liveRecorder.wait(seconds: 5, until: isOpen))
        let droppedEarly = liveRecorder.wait(seconds: 1) { $0.contains { if case .client(.disconnected) = $0 { true } else { false } } }
        #expect(!droppedEarly, "a client that answers pings must stay connected")
        let liveConnection = recorder.all.compactMap { if case .server(.opened(let c)) = $0 { c } else { nil } }.last
        #expect(liveConnection?.roundTripTime != nil, "answered pings should give the server a round-trip time")
    }
}

import Testing
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Slow readers are bounded: a send buffer over its high-water mark for longer than the write
/// timeout closes the connection with 1008; past the server's output budget the fullest buffers
/// are closed first; a reader that is slow but keeps up is never closed.
@Suite("WebSocket server slow readers")
struct WebSocketServerSlowReaderTests {
    /// A server that, when a connection opens on `/send/N`, sends it N bytes in 64 KiB messages,
    /// and on `/more/N` sends N bytes again for every message it receives.
    static func startSendingServer(
        _ configuration: WebSocketServerConfiguration, recorder: Recorder<Seen>,
        overHighWater: Shared<Int>? = nil
    ) throws -> (WebSocketServer, Int) {
        let server = try WebSocketServer(configuration: configuration) { event in
            recorder.push(.server(event))
            func send(_ connection: WebSocketConnection) {
                let parts = connection.requestTarget.split(separator: "/")
                guard parts.count == 2, let total = Int(parts[1]) else { return }
                let chunk = [UInt8](repeating: 0x5A, count: 64 * 1024)
                for _ in 0..<(total / chunk.count) {
                    if connection.send(binary: chunk) == .acceptedOverHighWaterMark { overHighWater?.withLock { $0 += 1 } }
                }
            }
            switch event {
            case .opened(let connection) where connection.requestTarget.hasPrefix("/send/"): send(connection)
            case .message(let connection, _) where connection.requestTarget.hasPrefix("/more/"): send(connection)
            default: break
            }
        }
        return (server, try server.start().port)
    }

    static func closes(_ seen: [Seen], path: String) -> [WebSocketCloseFrame] {
        seen.compactMap { item in
            if case .server(.closed(let connection, let frame)) = item, connection.requestTarget == path { return frame }
            return nil
        }
    }

    @Test("a client that never reads is closed with 1008 within the write timeout")
    func neverReadingClientIsClosed() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.writeTimeout = .milliseconds(300)
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 64 * 1024, hardLimit: 64 << 20)
        let recorder = Recorder<Seen>()
        let (server, port) = try Self.startSendingServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port)
        client.setReceiveBuffer(4096)
        let start = MonotonicTime.now()
        try client.send(TestSocket.upgradeRequest(path: "/send/16777216"))
        let closed = recorder.wait(seconds: 5) { !Self.closes($0, path: "/send/16777216").isEmpty }
        let elapsed = Double(MonotonicTime.now() - start) / 1e9
        #expect(closed, "the server should close the never-reading client")
        let frame = Self.closes(recorder.all, path: "/send/16777216").first
        #expect(frame?.code == .policyViolation, "with 1008, got \(String(describing: frame))")
        #expect(elapsed >= 0.3 && elapsed < 2, "after the 0.3 s write timeout, not \(elapsed) s")
    }

    @Test("a client that reads slowly but keeps up is not closed, though its buffer goes over the high-water mark")
    func slowReaderThatKeepsUp() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.writeTimeout = .milliseconds(1000)
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 64 * 1024, hardLimit: 64 << 20)
        let recorder = Recorder<Seen>()
        let overHighWater = Shared(0)
        let (server, port) = try Self.startSendingServer(configuration, recorder: recorder, overHighWater: overHighWater)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try TestSocket(port: port, timeoutSeconds: 5)
        let path = "/more/8388608"
        try client.send(TestSocket.upgradeRequest(path: path))
        #expect(try client.receiveHead().hasPrefix("HTTP/1.1 101"))
        let start = MonotonicTime.now()
        let round = 8 << 20
        var rounds = 0
        // Rounds of 8 MiB until well past the write timeout; each is read 16 KiB at a time with
        // a 1 ms pause every 64 KiB (the slow reader's pace: its behaviour, not synchronization).
        while MonotonicTime.now() - start < 2_500_000_000 && rounds < 20 {
            try client.send(BadFrameCase.frame(0x82, [1]))
            var received = 0
            let frameBytes = (round / (64 * 1024)) * (64 * 1024 + 10)  // a 64 KiB message has a 10-byte header
            while received < frameBytes {
                received += try client.receiveSome(maximum: min(16 * 1024, frameBytes - received)).count
                if received % (64 * 1024) < 16 * 1024 { usleep(1000) }
            }
            rounds += 1
        }
        #expect(rounds >= 3, "several rounds should be read (\(rounds))")
        #expect(overHighWater.value > 0, "the buffer should have gone over the high-water mark (else this shows nothing)")
        #expect(Self.closes(recorder.all, path: path).isEmpty, "the slow reader that keeps up must not be closed")
    }

    @Test("past the output budget the connection holding the most is closed with 1008 first; the other stays")
    func outputBudgetClosesFullestFirst() throws {
        var configuration = WebSocketServerConfiguration()
        configuration.writeTimeout = nil
        configuration.outputBudgetBytes = 22 << 20
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        let recorder = Recorder<Seen>()
        let (server, port) = try Self.startSendingServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        // The kernel takes at most a few MiB of each (its send and receive buffers): B holds
        // 8–12 MiB, A 16–20 MiB; each alone is within the budget, together they are over it.
        let smaller = try TestSocket(port: port)
        smaller.setReceiveBuffer(4096)
        try smaller.send(TestSocket.upgradeRequest(path: "/send/12582912"))
        #expect(try smaller.receiveHead().hasPrefix("HTTP/1.1 101"))
        #expect(server.connectionCount == 1)
        let larger = try TestSocket(port: port)
        larger.setReceiveBuffer(4096)
        try larger.send(TestSocket.upgradeRequest(path: "/send/20971520"))
        let closed = recorder.wait(seconds: 5) { !Self.closes($0, path: "/send/20971520").isEmpty }
        #expect(closed, "the connection with the fullest buffer should be closed")
        #expect(Self.closes(recorder.all, path: "/send/20971520").first?.code == .policyViolation, "with 1008")
        #expect(
            Self.closes(recorder.all, path: "/send/12582912").isEmpty,
            "the other connection stays open: the total is within the budget again")
        #expect(server.connectionCount == 1)
    }
}

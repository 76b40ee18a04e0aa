import Testing
import TickwireCodec
import TickwireFoundation
import TickwireIO

@testable import TickwireWebSocket

/// The WebSocket endpoints on a loop over `poll(2)` (``PortablePoller``, Darwin's mechanism),
/// which runs on Linux too, so that the Darwin path is known to work end to end.
@Suite("Event loop over poll(2)")
struct PortableEventLoopTests {
    @Test("a WebSocket server and client on a loop over poll(2) exchange text and a 70 KB binary message, compressed")
    func echoOverPoll() throws {
        let loop = EventLoop(poller: try PortablePoller())
        try loop.start()
        defer { loop.stop() }
        let recorder = Recorder<Seen>()
        var serverConfiguration = WebSocketServerConfiguration()
        serverConfiguration.compression = PerMessageDeflateConfiguration()
        let server = try WebSocketServer(configuration: serverConfiguration, loop: loop) { event in
            recorder.push(.server(event))
            if case .message(let connection, let message) = event { connection.send(message) }
        }
        let port = try server.start().port
        defer { server.shutdown(timeout: .seconds(1)) }
        var clientConfiguration = WebSocketClientConfiguration()
        clientConfiguration.compression = PerMessageDeflateConfiguration()
        let client = try WebSocketClient(
            url: WebSocketURL("ws://127.0.0.1:\(port)/poll"), configuration: clientConfiguration,
            loop: loop
        ) { event in recorder.push(.client(event)) }
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the client should open within 5 s")

        var random = SplitMix64(seed: 9)
        let binary = randomBytes(70_000, using: &random)
        #expect(client.send(text: "over poll(2)").isAccepted)
        #expect(client.send(binary: binary).isAccepted)
        let expected: [WebSocketMessage] = [.text("over poll(2)"), .binary(binary)]
        #expect(recorder.wait(seconds: 5) { $0.compactMap(\.clientMessage).count >= 2 }, "both echoes within 5 s")
        #expect(recorder.all.compactMap(\.clientMessage) == expected, "the echoes equal what was sent, in order")
    }
}

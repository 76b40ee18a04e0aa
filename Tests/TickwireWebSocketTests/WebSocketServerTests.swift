import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// Server and client events in one list, so a test can wait on either.
enum Seen: Sendable {
    case server(WebSocketServerEvent)
    case client(WebSocketClientEvent)

    var serverMessage: WebSocketMessage? {
        if case .server(.message(_, let message)) = self { return message }
        return nil
    }

    var clientMessage: WebSocketMessage? {
        if case .client(.message(let message)) = self { return message }
        return nil
    }

    var serverClose: WebSocketCloseFrame? {
        if case .server(.closed(_, let frame)) = self { return frame }
        return nil
    }

    var clientState: WebSocketClientState? {
        if case .client(.stateChanged(let state)) = self { return state }
        return nil
    }
}

/// An echo server that records what it sees.
func startEchoServer(
    _ configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(),
    recorder: Recorder<Seen>, echo: Bool = true
) throws -> (WebSocketServer, Int) {
    let server = try WebSocketServer(configuration: configuration) { event in
        recorder.push(.server(event))
        if echo, case .message(let connection, let message) = event { connection.send(message) }
    }
    let address = try server.start()
    return (server, address.port)
}

/// A client on 127.0.0.1:`port` that records its events.
func makeClient(
    port: Int, path: String = "/echo", configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(),
    recorder: Recorder<Seen>
) throws -> WebSocketClient {
    try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(port)\(path)"), configuration: configuration) { event in
        recorder.push(.client(event))
    }
}

func isOpen(_ seen: [Seen]) -> Bool { seen.contains { $0.clientState == .open } }

@Suite("WebSocket server and client over real sockets")
struct WebSocketServerTests {
    @Test("text and binary messages round-trip through the echo server, with and without compression", arguments: [false, true])
    func roundTrip(compressed: Bool) throws {
        let recorder = Recorder<Seen>()
        var serverConfiguration = WebSocketServerConfiguration()
        var clientConfiguration = WebSocketClientConfiguration()
        if compressed {
            serverConfiguration.compression = PerMessageDeflateConfiguration()
            clientConfiguration.compression = PerMessageDeflateConfiguration()
        }
        let (server, port) = try startEchoServer(serverConfiguration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeClient(port: port, configuration: clientConfiguration, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "the client should open within 5 s")
        #expect((client.connection?.compression != nil) == compressed, "compression should be negotiated exactly when both offer it")

        var random = SplitMix64(seed: 1)
        let binary = randomBytes(70_000, using: &random)
        #expect(client.send(text: "héllo, wörld").isAccepted)
        #expect(client.send(binary: binary).isAccepted)
        #expect(client.send(text: "").isAccepted)
        let expected: [WebSocketMessage] = [.text("héllo, wörld"), .binary(binary), .text("")]
        let echoed = recorder.wait(seconds: 5) { $0.compactMap(\.clientMessage).count >= 3 }
        #expect(echoed, "three echoes should come back within 5 s")
        #expect(recorder.all.compactMap(\.clientMessage) == expected, "echoes should equal what was sent, in order")
        #expect(recorder.all.compactMap(\.serverMessage) == expected, "the server should receive what was sent, in order")
    }

    @Test("a 16 MiB binary message round-trips")
    func largeMessage() throws {
        let recorder = Recorder<Seen>()
        var serverConfiguration = WebSocketServerConfiguration()
        serverConfiguration.protocolConfiguration = WebSocketConfiguration(
            limits: WebSocketLimits(
                maximumFramePayloadBytes: 16 << 20, maximumMessageBytes: 16 << 20))
        let (server, port) = try startEchoServer(serverConfiguration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try makeClient(port: port, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen))
        var random = SplitMix64(seed: 16)
        var payload = [UInt8](repeating: 0, count: 16 << 20)
        for index in stride(from: 0, to: payload.count, by: 8) {
            withUnsafeBytes(of: random.next()) { word in
                for offset in 0..<8 { payload[index + offset] = word[offset] }
            }
        }
        #expect(client.send(binary: payload).isAccepted)
        let arrived = recorder.wait(seconds: 30) { !$0.compactMap(\.clientMessage).isEmpty }
        #expect(arrived, "the 16 MiB echo should arrive within 30 s")
        #expect(recorder.all.compactMap(\.clientMessage).first == .binary(payload), "the echo should be byte-identical")
    }

    @Test("many clients on one server loop each get their own echoes")
    func manyConnections() throws {
        let recorder = Recorder<Seen>()
        // Every client comes from 127.0.0.1: lift the per-address limits, which would refuse most.
        var configuration = WebSocketServerConfiguration()
        configuration.maximumConnectionsPerAddress = .max
        configuration.maximumHandshakesPerAddress = .max
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(2)) }
        let count = 200
        let clientLoop = try EventLoop()
        try clientLoop.start()
        defer { clientLoop.stop() }
        let perClient = (0..<count).map { _ in Recorder<Seen>() }
        var clients: [WebSocketClient] = []
        for index in 0..<count {
            let client = try WebSocketClient(url: WebSocketURL("ws://127.0.0.1:\(port)/c\(index)"), loop: clientLoop) { event in
                perClient[index].push(.client(event))
            }
            client.send(text: "client \(index)")  // queued until open
            client.connect()
            clients.append(client)
        }
        defer { for client in clients { client.shutdown() } }
        for index in 0..<count {
            let got = perClient[index].wait(seconds: 10) { !$0.compactMap(\.clientMessage).isEmpty }
            #expect(got, "client \(index) should get its echo within 10 s")
            #expect(
                perClient[index].all.compactMap(\.clientMessage).first == .text("client \(index)"), "client \(index) got another's message")
        }
        #expect(server.connectionCount == count, "the server should count \(count) open connections")
    }

    @Test("IPv6 server and a client that resolves a name (localhost) both work")
    func ipv6AndNames() throws {
        let recorder = Recorder<Seen>()
        var configuration = WebSocketServerConfiguration(host: "::1", port: 0)
        configuration.subprotocols = ["tickwire.v1"]
        let (server, port) = try startEchoServer(configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        var clientConfiguration = WebSocketClientConfiguration()
        clientConfiguration.subprotocols = ["tickwire.v1"]
        let v6 = try WebSocketClient(url: WebSocketURL("ws://[::1]:\(port)/v6"), configuration: clientConfiguration) {
            recorder.push(.client($0))
        }
        defer { v6.shutdown() }
        v6.connect()
        #expect(recorder.wait(seconds: 5, until: isOpen), "a client should reach the IPv6 server")
        #expect(v6.connection?.subprotocol == "tickwire.v1", "the subprotocol both sides name should be chosen")
        #expect(v6.connection?.remoteAddress?.family == .ipv6)

        // `localhost` may resolve to ::1 and/or 127.0.0.1: the client tries each address in turn.
        let v4Recorder = Recorder<Seen>()
        let (v4Server, v4Port) = try startEchoServer(recorder: v4Recorder)
        defer { v4Server.shutdown(timeout: .seconds(1)) }
        let named = try WebSocketClient(url: WebSocketURL("ws://localhost:\(v4Port)/named")) { v4Recorder.push(.client($0)) }
        defer { named.shutdown() }
        named.connect()
        #expect(v4Recorder.wait(seconds: 5, until: isOpen), "a client given a name should resolve it and connect")
    }
}

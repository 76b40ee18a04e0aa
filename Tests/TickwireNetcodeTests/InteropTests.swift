import Foundation
import Testing

@testable import TickwireNetcode

/// Our sans-IO client and server against the independent Python peer, over UDP on 127.0.0.1.
/// Every wait is bounded; the peer is stopped by its PID.
@Suite(.serialized)
struct InteropTests {
    static let privateKeyHex = Fixture.privateKey.bytes.map { String(format: "%02x", $0) }.joined()
    static let protocolIDArgument = String(format: "0x%llx", Fixture.protocolID)

    @Test("the Python client connects to our server, its payloads are echoed, it disconnects", .timeLimit(.minutes(1)))
    func pythonClientToSwiftServer() throws {
        let socket = try TestOnlyUDPSocket()
        var server = try NetcodeServer(
            configuration: .init(
                protocolID: Fixture.protocolID, privateKey: Fixture.privateKey, publicAddresses: [socket.address], maxClients: 4))
        let peer = try PythonPeer(arguments: [
            "client", "--protocol-id", Self.protocolIDArgument, "--private-key", Self.privateKeyHex, "--server", socket.address.description,
            "--payloads", "5", "--timeout", "10",
        ])
        var events: [NetcodeServerEvent] = []
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let (bytes, from) = try socket.receive(waitingAtMost: 10) {
                server.receive(bytes, from: from, now: Date().timeIntervalSince1970)
            }
            server.update(now: Date().timeIntervalSince1970)
            for event in server.takeEvents() {
                events.append(event)
                if case .payload(let index, let bytes, _) = event {
                    try server.send(bytes, toClient: index, now: Date().timeIntervalSince1970)
                }
            }
            for datagram in server.takeOutgoing() { try socket.send(datagram.bytes, to: datagram.address) }
            if !peer.process.isRunning && server.connectedClientCount == 0 { break }
        }
        #expect(peer.waitForExit(seconds: 5), "the Python client did not finish:\n\(peer.output)")
        #expect(peer.process.terminationStatus == 0, "the Python client failed:\n\(peer.output)")
        #expect(events.contains { if case .connected(0, 0x5059, _, _) = $0 { true } else { false } }, "no connection: \(events)")
        let payloads = events.compactMap { if case .payload(_, let bytes, _) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
        #expect(payloads == (0..<5).map { "python payload \($0)" })
        #expect(events.contains { if case .disconnected(0, _, .clientDisconnected) = $0 { true } else { false } }, "\(events)")
    }

    @Test("our client connects to the Python server, its payloads are echoed, it disconnects", .timeLimit(.minutes(1)))
    func swiftClientToPythonServer() throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("netcode-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: portFile) }
        let peer = try PythonPeer(arguments: [
            "server", "--protocol-id", Self.protocolIDArgument, "--private-key", Self.privateKeyHex, "--port-file", portFile.path,
            "--duration", "20",
        ])
        defer { peer.stop() }
        var port: UInt16?
        let portDeadline = Date().addingTimeInterval(10)
        while port == nil && Date() < portDeadline && peer.process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap {
                UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if port == nil { usleep(20_000) }
        }
        let serverPort = try #require(port, "the Python server wrote no port within 10 s:\n\(peer.output)")
        let serverAddress = NetcodeAddress(ipv4: 127, 0, 0, 1, port: serverPort)
        let now = Date().timeIntervalSince1970
        let token = try ConnectToken.generate(
            try ConnectTokenPrivate(
                clientID: 77, timeoutSeconds: 5, serverAddresses: [serverAddress], clientToServerKey: .random(),
                serverToClientKey: .random(), userData: Fixture.userData),
            protocolID: Fixture.protocolID, createTimestamp: UInt64(now), expireTimestamp: UInt64(now) + 60, privateKey: Fixture.privateKey)
        let socket = try TestOnlyUDPSocket()
        var client = NetcodeClient()
        client.connect(token: token, now: now)
        let sent = (0..<5).map { Array("swift payload \($0)".utf8) }
        var received: [[UInt8]] = []
        var payloadsSent = false
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline && received.count < sent.count && (client.state.isConnecting || client.state == .connected) {
            if let (bytes, from) = try socket.receive(waitingAtMost: 10) {
                client.receive(bytes, from: from, now: Date().timeIntervalSince1970)
            }
            client.update(now: Date().timeIntervalSince1970)
            if client.state == .connected && !payloadsSent {
                for payload in sent { try client.send(payload, now: Date().timeIntervalSince1970) }
                payloadsSent = true
            }
            received += client.takeReceived()
            for datagram in client.takeOutgoing() { try socket.send(datagram.bytes, to: datagram.address) }
        }
        #expect(client.state == .connected, "our client ended in \(client.state):\n\(peer.output)")
        #expect(received == sent, "echoes differ:\n\(peer.output)")
        client.disconnect(now: Date().timeIntervalSince1970)
        for datagram in client.takeOutgoing() { try socket.send(datagram.bytes, to: datagram.address) }
        // The Python server logs the disconnect it received; wait for it (bounded), then stop it by PID.
        let logDeadline = Date().addingTimeInterval(5)
        while !peer.output.contains("client disconnected") && Date() < logDeadline { usleep(20_000) }
        #expect(peer.output.contains("server: disconnected 0: client disconnected"), "the Python server saw no disconnect:\n\(peer.output)")
    }

    @Test("the Python peer's own check of the vectors passes (check_vectors.py)", .timeLimit(.minutes(1)))
    func pythonVectorCheck() throws {
        let check = try PythonPeer(script: "check_vectors.py", arguments: [])
        #expect(check.waitForExit(seconds: 20), "check_vectors.py did not finish in 20 s:\n\(check.output)")
        #expect(check.process.terminationStatus == 0, "check_vectors.py failed:\n\(check.output)")
        // 11 valid vectors and 18 error vectors (NETCODE.md, "Reading and refusals").
        #expect(check.output.contains("29 vectors, 0 failed"), "\(check.output)")
    }
}

import Foundation
import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// wss:// against Python `websockets` over `ssl`, both ways, and a Python peer that cuts the
/// connection mid-record. Needs `TICKWIRE_PYTHON` like ``InteropTests``.
@Suite(
    "wss:// interop with Python websockets over ssl",
    .serialized,
    .enabled(
        if: InteropPeer.python != nil,
        "needs TICKWIRE_PYTHON, a Python with the websockets package (Tools/test sets it up)"))
struct TLSInteropTests {
    @Test(
        "Python's client passes its whole script (0 B to 16 MiB, fragments, pings, close codes) against our wss server",
        arguments: [false, true])
    func theirClientOurServer(compression: Bool) throws {
        let certificates = try TestCertificates.get()
        var configuration = WebSocketServerConfiguration()
        configuration.protocolConfiguration = WebSocketConfiguration(limits: InteropTests.limits)
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        if compression { configuration.compression = PerMessageDeflateConfiguration() }
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, configuration: configuration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let peer = try InteropPeer(
            ["client", "wss://localhost:\(port)/", "--ca", certificates.caFile] + (compression ? [] : ["--no-compression"]))
        let status = peer.waitForExit(timeout: 120)
        let checks = peer.output.split(separator: "\n").filter { $0.hasPrefix("ok:") || $0.hasPrefix("FAIL") }
        #expect(
            status == 0,
            "peer.py client over wss should pass every check; exit status \(status.map(String.init) ?? "none (timed out)"); its last output:\n\(peer.output.suffix(600))"
        )
        #expect(checks.contains { $0.contains("binary of 16777216 bytes") }, "the 16 MiB message should have made the round trip")
    }

    @Test("our client's messages from 0 B to 16 MiB come back intact from Python's wss server", arguments: [false, true])
    func ourClientTheirServer(compression: Bool) async throws {
        let certificates = try TestCertificates.get()
        let (peer, port) = try InteropPeer.server(
            ["--tls-cert", certificates.server.chain, "--tls-key", certificates.server.key] + (compression ? [] : ["--no-compression"]))
        defer { peer.stop() }
        var configuration = InteropTests.clientConfiguration(compression: compression)
        configuration.tls = TLSClientConfiguration(caFile: certificates.caFile)
        let recorder = Recorder<Seen>()
        let client = try WebSocketClient(url: WebSocketURL("wss://127.0.0.1:\(port)/"), configuration: configuration) {
            recorder.push(.client($0))
        }
        defer { client.shutdown() }
        try await client.open(timeout: .seconds(10))
        #expect((client.connection?.compression != nil) == compression)
        var random = SplitMix64(seed: 443)
        var expected: [WebSocketMessage] = [.text(""), .text("h\u{e9}llo \u{2713}")]
        expected += InteropTests.sizes.map { .binary(randomBytes($0, using: &random)) }
        for message in expected { #expect(await client.send(message).isAccepted) }
        let arrived = recorder.wait(seconds: 90) { $0.compactMap(\.clientMessage).count >= expected.count }
        let received = recorder.all.compactMap(\.clientMessage)
        #expect(arrived, "only \(received.count) of \(expected.count) echoes arrived; peer output: \(peer.output.suffix(500))")
        #expect(received == expected, "the echoes should equal what was sent, in order")
        _ = await client.close(timeout: .seconds(5))
    }

    @Test("a peer that cuts the connection mid-record ends the connection with 1006 and OpenSSL's reason")
    func cutMidRecord() throws {
        let certificates = try TestCertificates.get()
        let recorder = Recorder<Seen>()
        let (server, port) = try startTLSEchoServer(certificates.server, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        let peer = try InteropPeer(["cut", "wss://localhost:\(port)/", "--ca", certificates.caFile])
        #expect(peer.waitForExit(timeout: 30) == 0, "peer.py cut should upgrade and cut: \(peer.output.suffix(400))")
        let closed = recorder.wait(seconds: 5) { $0.contains { $0.serverClose != nil } }
        let frame = try #require(recorder.all.compactMap(\.serverClose).first, "the server should report the connection closed (\(closed))")
        #expect(frame.code == .abnormalClosure && frame.reason.contains("unexpected eof"), "closed with \(frame)")
        #expect(recorder.all.compactMap(\.serverMessage).isEmpty, "half a record is no message")
    }
}

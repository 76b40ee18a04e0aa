import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

/// A message at the size limit whose deflated form is larger than itself (random bytes), sent
/// with permessage-deflate at the default limits. Python `websockets` and our own client both
/// deflate such data (into stored blocks, a few bytes per 64 KiB larger); the receiver allows
/// deflate's expansion on the compressed side (``WebSocketLimits/deflateExpansion(of:)``), so
/// the message passes while its inflated size is still held to the limit.
@Suite("permessage-deflate at the message limit")
struct CompressedLimitTests {
    @Test("a 16 MiB incompressible message, deflated, is accepted at the default 16 MiB limits")
    func incompressibleAtLimit() throws {
        var serverConfiguration = WebSocketServerConfiguration()
        serverConfiguration.compression = PerMessageDeflateConfiguration()
        serverConfiguration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        let recorder = Recorder<Seen>()
        let (server, port) = try startEchoServer(serverConfiguration, recorder: recorder)
        defer { server.shutdown(timeout: .seconds(1)) }
        var configuration = WebSocketClientConfiguration()
        configuration.compression = PerMessageDeflateConfiguration()
        configuration.sendBuffer = SendBufferLimits(highWaterMark: 1 << 20, hardLimit: 64 << 20)
        configuration.reconnect = .disabled
        configuration.keepalive = nil
        let client = try makeClient(port: port, configuration: configuration, recorder: recorder)
        defer { client.shutdown() }
        client.connect()
        try #require(recorder.wait(seconds: 10, until: isOpen), "the client should connect")
        var random = SplitMix64(seed: 16)
        let message = WebSocketMessage.binary((0..<(16 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        client.send(message)
        let settled = recorder.wait(seconds: 60) { seen in
            seen.contains { $0.clientMessage != nil || $0.serverClose != nil }
        }
        #expect(settled, "either the echo or a close should come within 60 s")
        let closes = recorder.all.compactMap(\.serverClose)
        #expect(closes.isEmpty, "the server closed with \(closes) instead of echoing")
        #expect(recorder.all.contains { $0.clientMessage == message }, "the 16 MiB echo should arrive")
    }
}

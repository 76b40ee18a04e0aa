import Dispatch
import Testing
import Tickwire

@testable import ArenaGame

/// A headless `arena join udp://… --script … --dump` client against a real `ArenaServer` on
/// 127.0.0.1: the figures come from the UDP connection's own statistics.
@Suite("The dump's net graph figures over UDP")
struct ArenaUDPDumpFiguresTests {
    @Test("over udp:// the dump says `transport udp` and carries the packet layer's loss, link-rtt and link-jitter")
    func figuresOverUDP() throws {
        var options = ArenaServer.Options()
        options.port = 0
        options.udpPort = 0
        options.bots = 1
        options.tickThreads = 1
        options.servesWebClient = false
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        let udpPort = try #require(running.server.udpPort, "the server should bind a UDP port")
        var url = try ArenaUDPURL("udp://127.0.0.1:\(udpPort)/main")
        url.tokenPort = running.server.port
        var clientOptions = ArenaClient.Options(url: try WebSocketURL(url.webSocketURL), name: "uma")
        clientOptions.udp = url
        let client = ArenaClient(options: clientOptions)
        defer { client.leave() }
        var frames: [String] = []
        ArenaPlayLoop.playScript(client, script: try ArenaScript("d10 _20"), frames: 60) { frames.append($0) }
        try #require(frames.count == 60)
        #expect(client.connection.connection is UDPClientTransportConnection, "the session plays over UDP")

        let header = try #require(frames.last?.split(separator: "\n").first.map(String.init))
        let pairs = try #require(NetGraphLine.pairs(inHeader: header), "no net figures in: \(header)")
        #expect(pairs["transport"] == "udp", "the connection names its transport: \(header)")
        let loss = try #require(pairs["loss"].flatMap(Double.init), "2 s in, the UDP layer knows its loss: \(header)")
        #expect(loss >= 0 && loss <= 100, "the loss is a percentage: \(loss)")
        let linkRoundTrip = try #require(pairs["link-rtt"].flatMap(Double.init), "the UDP layer's round trip: \(header)")
        #expect(linkRoundTrip >= 0 && linkRoundTrip < 1000, "on loopback the UDP round trip is under a second: \(linkRoundTrip) ms")
        #expect(pairs["link-jitter"].flatMap(Double.init) != nil, "the UDP layer's jitter: \(header)")
        #expect(pairs["ping"].flatMap(Double.init) != nil, "the session's own ping is there too: \(header)")
        let lines = client.netGraphLines
        #expect(lines.contains { $0.hasPrefix("udp  connected") && $0.contains("  link rtt ") }, "the interactive net graph: \(lines)")
        #expect(lines.first?.contains("  loss ") == true, "the interactive net graph shows the loss: \(lines)")
    }
}

import Testing
import Tickwire

@testable import ArenaGame

@Suite("ArenaClient")
struct ArenaClientTests {
    @Test("--lag, --jitter and --loss impair both ways alike; over ws:// and wss:// loss is TCP's, nothing dropped")
    func badNetworkOverWebSocket() throws {
        for url in ["ws://127.0.0.1:7777/main", "wss://example.com/duel"] {
            var options = ArenaClient.Options(url: try WebSocketURL(url), name: "ann")
            options.setBadNetwork(lag: .milliseconds(50), jitter: .milliseconds(10), loss: 0.02)
            let expected = LinkConditions(latency: .milliseconds(50), jitter: .milliseconds(10), delivery: .reliable, lossRate: 0.02)
            #expect(options.downstream == expected, "\(url): snapshots cross a TCP connection")
            #expect(options.upstream == expected, "\(url): inputs cross the same TCP connection")
            #expect(options.isImpaired)
        }
    }

    @Test("over udp:// the same options drop datagrams: loss is UDP's, not TCP's, though the room's URL is a WebSocket one")
    func badNetworkOverUDP() throws {
        let udp = try ArenaUDPURL("udp://127.0.0.1:7778/main")
        let expected = LinkConditions(latency: .milliseconds(50), delivery: .unreliable, lossRate: 0.02)
        for udpFirst in [true, false] {
            var options = ArenaClient.Options(url: try WebSocketURL(udp.webSocketURL), name: "ann")
            if udpFirst { options.udp = udp }
            options.setBadNetwork(lag: .milliseconds(50), jitter: .zero, loss: 0.02)
            if !udpFirst { options.udp = udp }
            #expect(
                options.downstream == expected && options.upstream == expected,
                "udp set \(udpFirst ? "before" : "after") the bad network: \(options.downstream)")
        }
        var clean = ArenaClient.Options(url: try WebSocketURL(udp.webSocketURL), name: "ann")
        clean.udp = udp
        clean.setBadNetwork(lag: .zero, jitter: .zero, loss: 0)
        #expect(!clean.isImpaired, "no bad network over UDP either: the connection is left alone")
    }

    @Test("no bad network asked for leaves the connection alone")
    func noBadNetwork() throws {
        var options = ArenaClient.Options(url: try WebSocketURL("ws://127.0.0.1:7777/main"), name: "ann")
        options.setBadNetwork(lag: .zero, jitter: .zero, loss: 0)
        #expect(!options.isImpaired)
    }
}

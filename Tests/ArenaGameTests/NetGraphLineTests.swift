import Testing
import Tickwire

@testable import ArenaGame

@Suite("NetGraphLine: the dump's net graph figures as key value pairs")
struct NetGraphLineTests {
    static var figures: NetGraphFigures {
        var figures = NetGraphFigures()
        figures.time = Timestamp(nanoseconds: 13_533_000_000)
        figures.transport = "ws"
        figures.roundTrip = 0.0424
        figures.worstRoundTrip = 0.266
        figures.roundTripJitter = 0.003
        figures.interpolationDelay = 0.1
        figures.bufferDepth = 2
        figures.framesRendered = 1800
        figures.extrapolatedFrames = 12
        figures.snapshotsReceived = 900
        figures.predictionCorrections = 3
        figures.newestTick = 3770
        figures.newestSnapshotAge = 0.1334
        figures.timeSinceLastSnapshot = 0.101
        figures.inputDelay = 0.0712
        figures.worstInputDelay = 0.102
        return figures
    }

    @Test("the segment names every figure, times in whole milliseconds, totals as part/whole")
    func text() {
        #expect(
            NetGraphLine.text(Self.figures, since: Timestamp(nanoseconds: 1_000_000_000))
                == "net time 12.533 transport ws ping 42 ping-worst 266 jitter 3 interp 100 buffer 2 extrapolated 12/1800"
                + " corrections 3/900 tick 3770 age 133 since-snapshot 101 input 71 input-worst 102")
    }

    @Test("a figure not known yet is '-', and the loss appears only when known, in percent")
    func unknownAndLoss() throws {
        let fresh = NetGraphLine.text(NetGraphFigures(), since: .zero)
        #expect(
            fresh
                == "net time 0.000 transport - ping - ping-worst - jitter 0 interp 0 buffer 0 extrapolated 0/0 corrections 0/0 tick - age - since-snapshot - input - input-worst -"
        )
        var lossy = Self.figures
        lossy.loss = 0.015
        let pairs = try #require(
            NetGraphLine.pairs(inHeader: "--- frame 1 · " + NetGraphLine.text(lossy, since: .zero) + " · connected ---"))
        #expect(pairs["loss"] == "1.5")
        #expect(pairs.count == 15)
    }

    @Test("the link's round trip and jitter appear only when the transport measures them, after the loss, in ms")
    func linkFigures() throws {
        var udp = Self.figures
        udp.transport = "udp"
        udp.loss = 0.0
        udp.linkRoundTrip = 0.0123
        udp.linkJitter = 0.0021
        let text = NetGraphLine.text(udp, since: .zero)
        #expect(text.hasSuffix(" input 71 input-worst 102 loss 0.0 link-rtt 12 link-jitter 2"), "got: \(text)")
        let pairs = try #require(NetGraphLine.pairs(inHeader: "--- frame 1 · " + text + " · connected ---"))
        #expect(pairs["transport"] == "udp" && pairs["link-rtt"] == "12" && pairs["link-jitter"] == "2")
        let tcp = NetGraphLine.text(Self.figures, since: .zero)
        #expect(!tcp.contains("link-"), "a transport that measures no link shows no link figures: \(tcp)")
    }

    @Test("the parser reads the pairs back from a whole header, whose status stays the last segment")
    func parseHeader() throws {
        var scene = ArenaScene(map: Arena().map)
        scene.connectionStatus = "reconnecting in 2.0 s (attempt 3)"
        let header = ArenaPlayLoop.header(frame: 7, scene: scene, figures: NetGraphLine.text(Self.figures, since: .zero))
        #expect(header.hasPrefix("--- frame 7 · you - · "))
        #expect(
            header.hasSuffix(
                " · net time 13.533 transport ws ping 42 ping-worst 266 jitter 3 interp 100 buffer 2 extrapolated 12/1800"
                    + " corrections 3/900 tick 3770 age 133 since-snapshot 101 input 71 input-worst 102 · reconnecting in 2.0 s (attempt 3) ---"
            ))
        let pairs = try #require(NetGraphLine.pairs(inHeader: header))
        #expect(pairs["time"] == "13.533" && pairs["ping"] == "42" && pairs["ping-worst"] == "266")
        #expect(pairs["extrapolated"] == "12/1800" && pairs["corrections"] == "3/900")
        #expect(pairs["tick"] == "3770" && pairs["age"] == "133" && pairs["since-snapshot"] == "101")
        #expect(pairs["input"] == "71" && pairs["input-worst"] == "102")
        #expect(pairs["transport"] == "ws" && pairs["loss"] == nil)
    }

    @Test(
        "a header without a well-formed net segment gives no pairs",
        arguments: [
            "--- frame 1 · you - · players 0 (bots 0) · connected ---",
            "--- frame 1 · net time 1.000 ping · connected ---",
            "--- frame 1 · net time 1.000 time 2.000 · connected ---",
            "--- frame 1 · net · connected ---",
        ])
    func malformed(header: String) {
        #expect(NetGraphLine.pairs(inHeader: header) == nil, "'\(header)' should not parse")
    }
}

import Dispatch
import Testing
import Tickwire

@testable import ArenaGame

/// A headless `arena join --script … --dump` client against a real `ArenaServer` on 127.0.0.1:
/// every dumped header carries the net graph's figures, and they read as a player's session.
@Suite("The dump's net graph figures over loopback")
struct ArenaDumpFiguresTests {
    /// Runs `frames` of a scripted client against a server of its own; returns each dumped frame
    /// and the client's interactive net graph lines at the end.
    func dump(frames: Int) throws -> (frames: [String], netGraph: [String]) {
        var options = ArenaServer.Options()
        options.port = 0
        options.bots = 2
        options.tickThreads = 1
        options.servesWebClient = false
        let running = try RunningArenaServer(options)
        defer { running.stop() }
        let client = ArenaClient(
            options: ArenaClient.Options(url: try WebSocketURL("ws://127.0.0.1:\(running.server.port)/main"), name: "ann"))
        defer { client.leave() }
        var output: [String] = []
        ArenaPlayLoop.playScript(client, script: try ArenaScript("d10 _20 a10"), frames: frames) { output.append($0) }
        return (output, client.netGraphLines)
    }

    /// The figure `key` of `pairs` as a number, or `nil` when unknown (`-`).
    func number(_ pairs: [String: String], _ key: String) -> Double? {
        pairs[key].flatMap(Double.init)
    }

    /// The two sides of a `part/whole` figure.
    func fraction(_ pairs: [String: String], _ key: String) throws -> (part: Int, whole: Int) {
        let sides = try #require(pairs[key]?.split(separator: "/").compactMap { Int($0) }, "no '\(key)' figure")
        try #require(sides.count == 2, "'\(key)' should read part/whole, reads \(pairs[key] ?? "")")
        return (sides[0], sides[1])
    }

    @Test("every header carries the figures; time, totals and ticks never go back; ping and the newest tick become known")
    func figuresOfAPlayer() throws {
        let frames = try dump(frames: 75).frames
        try #require(frames.count == 75)
        let required = [
            "time", "transport", "ping", "ping-worst", "jitter", "interp", "buffer", "extrapolated", "corrections", "tick", "age",
            "since-snapshot", "input", "input-worst",
        ]
        var previous: [String: String]?
        var fresh = 0
        for frame in frames {
            let lines = frame.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let pairs = try #require(NetGraphLine.pairs(inHeader: lines[0]), "no net figures in: \(lines[0])")
            #expect(Set(pairs.keys) == Set(required), "the figures' keys in: \(lines[0])")
            #expect(pairs["transport"] == "ws")
            let (corrections, snapshots) = try fraction(pairs, "corrections")
            #expect(corrections <= snapshots)
            #expect(
                lines[1].hasSuffix(" \(snapshots) snapshots ---"), "the header and the players line count the same snapshots: \(lines[1])")
            let (extrapolated, drawn) = try fraction(pairs, "extrapolated")
            #expect(extrapolated <= drawn)
            if let since = number(pairs, "since-snapshot"), since <= 100 { fresh += 1 }
            if let previous {
                // A client running late plays its frames back to back: two may share a millisecond.
                #expect(try #require(number(pairs, "time")) >= (try #require(number(previous, "time"))), "time never goes back")
                #expect(try fraction(pairs, "extrapolated").whole >= (try fraction(previous, "extrapolated").whole))
                #expect(snapshots >= (try fraction(previous, "corrections").whole))
                if let tick = number(previous, "tick") {
                    #expect(try #require(number(pairs, "tick"), "a known tick stays known") >= tick)
                }
            }
            previous = pairs
        }
        let last = try #require(previous)
        #expect(try #require(number(last, "time")) >= 74.0 / 30, "75 frames at 30 Hz take 2.5 s")
        let ping = try #require(number(last, "ping"), "2.5 s in, pongs have come back")
        #expect(try #require(number(last, "ping-worst")) >= ping)
        #expect(number(last, "tick") != nil && number(last, "age") != nil)
        // The script moves for its first 10 frames; the snapshots of the ticks that applied those
        // inputs say so, and the client timed each from its send.
        let input = try #require(number(last, "input"), "the applied inputs were timed")
        #expect(try #require(number(last, "input-worst")) >= input)
        #expect(try fraction(last, "extrapolated").whole > 30, "most frames drew a view")
        #expect(fresh > 30, "on loopback most frames show a snapshot under 100 ms old, \(fresh) of 75 did")
    }

    @Test("the interactive net graph shows the worst ping beside the median, and the newest tick, its age and the last arrival")
    func netGraphShowsStallFigures() throws {
        let lines = try dump(frames: 45).netGraph
        let ping = try #require(lines.first, "the net graph has lines")
        #expect(ping.hasPrefix("ping ") && ping.contains(" ms  worst ") && ping.contains("  jitter "), "\(ping)")
        let newest = try #require(lines.first { $0.hasPrefix("newest ") }, "a line of the newest snapshot in \(lines)")
        let words = newest.split(separator: " ")
        #expect(words.count == 9 && UInt32(words[1]) != nil, "the newest tick is known after 1.5 s: \(newest)")
        #expect(newest.contains("  age ") && newest.hasSuffix(" ms ago"), "\(newest)")
        #expect(
            lines.contains {
                $0.hasPrefix("corrections ") && $0.contains("  extrapolated ") && $0.contains("/") && $0.contains("  input ")
            },
            "\(lines)")
        #expect(lines.contains { $0.hasPrefix("ws  connected") }, "the transport beside the status: \(lines)")
    }
}

extension ArenaDumpFiguresTests {
    @Test("the transport bench reads a real client's dump: every frame, snapshots flowing, ages and pings known")
    func transportBenchReadsTheDump() throws {
        let dump = try dump(frames: 90)
        let frames = try TransportDump.frames(in: dump.frames.joined(separator: "\n"))
        #expect(frames.count == 90, "one frame per header")
        #expect(frames.allSatisfy { $0.transport == "ws" && $0.bytesReceived != nil })
        let figures = try TransportFigures(frames: frames, warmUp: 1)
        #expect(figures.snapshotsPerSecond > 15, "snapshots flow at about 30 Hz over loopback: \(figures.snapshotsPerSecond)")
        #expect(figures.snapshotAgeMedian > 0 && figures.snapshotAgeMedian <= figures.snapshotAgeP99)
        #expect(figures.snapshotAgeP99 <= figures.snapshotAgeMax && figures.payloadBytesDownPerSecond > 0)
    }
}

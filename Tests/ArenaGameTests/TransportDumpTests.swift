import Testing

@testable import ArenaGame

/// ``TransportDump`` reads the frames of a headless client's dump: the header's `net` figures and
/// the players line's byte total, skipping the screens; a header it cannot read is named by line.
@Suite("The transport bench's dump reader")
struct TransportDumpTests {
    static let header =
        "--- frame 7 · you 3.00,4.00 hp 100 kills 0 id 2 · players 3 (bots 2) · bullets 0 · min-other-hp 100 · net time 0.233 transport ws ping 104 ping-worst 150 jitter 3 interp 100 buffer 2 extrapolated 1/8 corrections 0/6 tick 120 age 61 since-snapshot 20 input 48 input-worst 70 · connected ---"
    static let players =
        "--- players · 1 ~bot1 1.00,2.00 hp 100 kills 0 · 2 bench 3.00,4.00 hp 100 kills 0 · in 2400 B/s, 5123 B in all, 6 snapshots ---"

    @Test("a frame's figures and its byte total; the screen lines are skipped")
    func oneFrame() throws {
        let text = [Self.header, Self.players, "|....  @  ....|", "", ""].joined(separator: "\n")
        let frames = try TransportDump.frames(in: text)
        #expect(
            frames == [
                TransportDumpFrame(
                    time: 0.233, transport: "ws", ping: 104, worstPing: 150, framesRendered: 8, extrapolatedFrames: 1, snapshotsReceived: 6,
                    snapshotAge: 61, sinceSnapshot: 20, inputDelay: 48, bytesReceived: 5123)
            ])
    }

    @Test("a figure not known yet (`-`) is nil, not zero")
    func unknownFigures() throws {
        let header =
            "--- frame 0 · you - · players 0 (bots 0) · bullets 0 · min-other-hp -1 · net time 0.000 transport ws ping - ping-worst - jitter 0 interp 100 buffer 0 extrapolated 0/0 corrections 0/0 tick - age - since-snapshot - input - input-worst - · connecting ---"
        let frame = try #require(try TransportDump.frames(in: header).first)
        #expect(
            frame.ping == nil && frame.worstPing == nil && frame.snapshotAge == nil && frame.sinceSnapshot == nil && frame.inputDelay == nil
        )
        #expect(frame.bytesReceived == nil, "no players line, no byte total")
    }

    @Test("the players line's byte total, or nil when the line has another shape")
    func byteTotal() {
        #expect(TransportDump.bytesReceived(playersLine: Substring(Self.players)) == 5123)
        #expect(TransportDump.bytesReceived(playersLine: "--- players · in 10 B/s ---") == nil)
    }

    @Test(
        "a header without figures, without a figure, or with a figure that is no number is an error naming its line",
        arguments: [
            ("--- frame 0 · you - · players 0 (bots 0) · connecting ---", "without a well-formed `net` segment"),
            ("--- frame 0 · net time 1.0 transport ws · connecting ---", "no `ping` figure"),
            (header.replacingOccurrences(of: "age 61", with: "age sixty"), "the figure `age` reads 'sixty'"),
            (header.replacingOccurrences(of: "extrapolated 1/8", with: "extrapolated 1"), "the figure `extrapolated` reads '1'"),
        ])
    func unreadable(header: String, expected: String) {
        do {
            _ = try TransportDump.frames(in: "screen\n" + header)
            Issue.record("a header that cannot be read was read: \(header)")
        } catch {
            #expect(error.line == 2, "the error names the header's line, 2")
            #expect(error.description.contains(expected), "the error says '\(expected)': \(error)")
        }
    }
}

import Testing

@testable import ArenaGame

/// ``TransportFigures`` from frames of known figures: the window after the warm-up, percentiles,
/// starved frames, the longest freeze, rates from totals, and the input delay.
@Suite("The transport bench's figures")
struct TransportFiguresTests {
    /// 30 Hz frames for `seconds`: ages 60 ms but every `spikeEvery`-th 200 ms, one snapshot a
    /// frame, one extrapolated frame in 100, 100 bytes a frame, ping 100 and worst ping 140, input
    /// delay 55 ms but 120 at the spikes.
    static func frames(seconds: Int, spikeEvery: Int = 100) -> [TransportDumpFrame] {
        (0..<(seconds * 30)).map { index in
            TransportDumpFrame(
                time: Double(index) / 30, transport: "ws", ping: index < 3 ? nil : 100, worstPing: index < 3 ? nil : 140,
                framesRendered: index + 1, extrapolatedFrames: (index + 1) / 100, snapshotsReceived: index < 3 ? 0 : index - 2,
                snapshotAge: index < 3 ? nil : (index % spikeEvery == 0 ? 200 : 60),
                sinceSnapshot: index < 3 ? nil : (index % spikeEvery == 0 ? 90 : 20),
                inputDelay: index < 3 ? nil : (index % spikeEvery == 0 ? 120 : 55), bytesReceived: index * 100)
        }
    }

    @Test("nearest-rank percentiles")
    func percentiles() {
        let values = (1...100).map(Double.init)
        #expect(TransportFigures.percentile(values, 0.99) == 99)
        #expect(TransportFigures.percentile(values, 0.5) == 50)
        #expect(TransportFigures.percentile(values, 1) == 100)
        #expect(TransportFigures.percentile([7], 0.99) == 7)
        #expect(TransportFigures.percentile([], 0.99) == nil)
    }

    @Test("the window opens warm-up seconds after the first snapshot; rates and shares are over it")
    func window() throws {
        let figures = try TransportFigures(frames: Self.frames(seconds: 20, spikeEvery: 50), warmUp: 2)
        // The first snapshot is at frame 3 (0.1 s): the window opens at 2.1 s, frame 63, with frame 62 as the base.
        #expect(figures.frames == 600 - 63)
        #expect(abs(figures.seconds - Double(599 - 62) / 30) < 1e-9)
        #expect(figures.snapshotAgeMedian == 60)
        #expect(figures.snapshotAgeMax == 200)
        #expect(figures.longestFreeze == 90)
        // Frames 100, 150, … 550 are spikes: 10 of 537 (1.9%), more than 1%, so the p99 is a spike…
        #expect(figures.snapshotAgeP99 == 200)
        #expect(abs(figures.snapshotsPerSecond - 30) < 1e-9)
        #expect(abs(figures.payloadBytesDownPerSecond - 3000) < 1e-9)
        // Frames drawn 63 → 600, extrapolated 0 → 6 (at 100, 200, … 600).
        #expect(abs(figures.starvedShare - 6.0 / 537) < 1e-12)
        #expect(figures.pingMedian == 100 && figures.worstPingP99 == 140 && figures.inputToServerP99 == 120)
    }

    @Test("…and with 2 spikes in 537 frames, under 1%, the p99 is the ordinary age")
    func rareSpikes() throws {
        let figures = try TransportFigures(frames: Self.frames(seconds: 20, spikeEvery: 200), warmUp: 2)
        #expect(figures.snapshotAgeP99 == 60)
        #expect(figures.snapshotAgeMax == 200)
    }

    @Test("no snapshot, or too short a play for the warm-up, is an error that says so")
    func errors() {
        let starved = Self.frames(seconds: 5).map { frame in
            var frame = frame
            frame.snapshotAge = nil
            return frame
        }
        #expect(throws: TransportFiguresError.self) { try TransportFigures(frames: starved, warmUp: 1) }
        do {
            _ = try TransportFigures(frames: Self.frames(seconds: 5), warmUp: 10)
            Issue.record("a 5 s play with a 10 s warm-up gave figures")
        } catch {
            #expect(error.description.contains("--duration"), "the error names the flag that fixes it: \(error)")
        }
    }
}

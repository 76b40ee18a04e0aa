import Testing
import TickwireSimTestSupport

@testable import TickwireSim

/// What a player sees over a lossy path, on each kind of transport: a headless client session
/// over the simulated network, at the lab's conditions (100 ms round trip, 2% loss, 30 Hz).
@Suite("Play over a lossy path")
struct LossyPathSimulationTests {
    /// What one run measured.
    struct Figures: CustomStringConvertible {
        var extrapolatedShare = 0.0
        var renderedFrames = 0
        var longestGap = Duration.zero
        var snapshotAgeP99 = 0.0
        var interpolationDelays: ClosedRange<Double> = 0...0
        var retransmitted = 0
        var lost = 0

        var description: String {
            let share = (extrapolatedShare * 1000).rounded() / 10
            let delays =
                "\(Int((interpolationDelays.lowerBound * 1000).rounded()))–\(Int((interpolationDelays.upperBound * 1000).rounded())) ms"
            return
                "extrapolated \(share)% of \(renderedFrames) frames, interpolation delay \(delays), longest gap \(gapText), p99 snapshot age \(Int((snapshotAgeP99 * 1000).rounded())) ms, \(retransmitted) segments retransmitted, \(lost) frames lost"
        }

        private var gapText: String {
            "\(longestGap.components.seconds * 1000 + longestGap.components.attoseconds / 1_000_000_000_000_000) ms"
        }
    }

    /// Plays `seconds` of a 30 Hz game (after 5 s to settle) through 50 ms each way and `loss`, over
    /// the transport `delivery` stands for, and measures what the client saw.
    static func play(delivery: LinkConditions.Delivery, loss: Double, seconds: Int, seed: UInt64) -> Figures {
        let simulation = Simulation(game: DotsGame(orbCount: 12), seed: seed) { $0.tickRate = 30 }
        let link = LinkConditions(latency: .milliseconds(50), delivery: delivery, lossRate: loss)
        let index = simulation.addClient(upstream: link, downstream: link) { configuration in
            if delivery == .unreliable { configuration.compressionModes = [.perFrame] }
        }
        let client = simulation.clients[index]
        simulation.run(for: .seconds(5))
        let before = client.metrics
        _ = client.takeSnapshotAges()
        var figures = Figures()
        var received = before.snapshotsReceived
        var lastArrival = simulation.clock.now
        var lowest = Double.infinity, highest = 0.0
        var ages: [Double] = []
        simulation.onStep = {
            let metrics = client.metrics
            if metrics.snapshotsReceived > received {
                received = metrics.snapshotsReceived
                figures.longestGap = max(figures.longestGap, simulation.clock.now - lastArrival)
                lastArrival = simulation.clock.now
            }
            lowest = min(lowest, metrics.interpolationDelay)
            highest = max(highest, metrics.interpolationDelay)
            ages += client.takeSnapshotAges()
        }
        simulation.run(for: .seconds(Int64(seconds)))
        let after = client.metrics
        figures.renderedFrames = after.renderedFrames - before.renderedFrames
        figures.extrapolatedShare = Double(after.extrapolatedFrames - before.extrapolatedFrames) / Double(max(figures.renderedFrames, 1))
        figures.interpolationDelays = lowest...highest
        ages.sort()
        figures.snapshotAgeP99 = ages.isEmpty ? 0 : ages[min(ages.count - 1, ages.count * 99 / 100)]
        let connection = simulation.connections[index]
        let downstream = connection.pipe.links.withLock { ($0.downstream.segmentsRetransmitted, $0.downstream.framesLost) }
        figures.retransmitted = connection.segmentsRetransmitted + downstream.0
        figures.lost = connection.framesLost + downstream.1
        #expect(client.status == .connected, "the client should stay connected through the loss")
        return figures
    }

    @Test("over TCP, 2% loss at 100 ms round trip extrapolates about as many frames as the lab's WebSocket (3.4–3.8%)")
    func reliable() {
        let figures = Self.play(delivery: .reliable, loss: 0.02, seconds: 120, seed: 3)
        print("reliable (WebSocket over TCP), 2% loss, 100 ms RTT, 30 Hz: \(figures)")
        #expect(figures.lost == 0, "TCP loses nothing")
        #expect(figures.retransmitted > 50, "about 2% of some 7200 segments each way should be resent: \(figures.retransmitted)")
        #expect(
            (0.015...0.08).contains(figures.extrapolatedShare),
            "the lab measured 3.4–3.8% extrapolated frames over a real path like this one; the model gives \(figures)")
        #expect(
            figures.longestGap >= .milliseconds(150),
            "a retransmission should leave a gap of over a round trip without snapshots: \(figures)")
    }

    @Test("with no loss nothing is extrapolated, whatever the transport")
    func lossless() {
        for delivery in [LinkConditions.Delivery.reliable, .unreliable] {
            let figures = Self.play(delivery: delivery, loss: 0, seconds: 20, seed: 3)
            print("\(delivery), no loss, 100 ms RTT, 30 Hz: \(figures)")
            #expect(figures.extrapolatedShare < 0.002, "\(delivery): \(figures)")
            #expect(figures.retransmitted == 0 && figures.lost == 0)
        }
    }

    @Test("over datagrams the same loss drops snapshots instead, and holds none of the others back")
    func datagram() {
        let figures = Self.play(delivery: .unreliable, loss: 0.02, seconds: 60, seed: 3)
        print("unreliable (datagrams), 2% loss, 100 ms RTT, 30 Hz: \(figures)")
        #expect(figures.lost > 10, "about 2% of 1800 snapshots should be dropped: \(figures)")
        #expect(figures.retransmitted == 0)
        #expect(figures.longestGap < .milliseconds(150), "a lost datagram leaves a gap of a snapshot or two: \(figures)")
    }
}

import Testing
import TickwireFoundation

@testable import TickwireSim

/// TCP's retransmissions on a reliable link: when the sender resends a lost segment, and what
/// the frames behind it do meanwhile.
@Suite("Retransmissions on a reliable link")
struct RetransmissionModelTests {
    static let ms: Int64 = 1_000_000

    /// 50 ms each way, no jitter: a round trip of 100 ms, a reorder window of 25 ms, and a timer of
    /// 100 + 200 ms (Linux's floor under the variance term).
    static let timing = RetransmissionModel.Timing(LinkConditions(latency: .milliseconds(50)))

    @Test("the timing follows the link: round trip, acknowledgement delay, reorder window, timer")
    func timing() {
        #expect(Self.timing.roundTrip == 100 * Self.ms)
        #expect(Self.timing.acknowledgementDelay == 50 * Self.ms)
        #expect(Self.timing.reorderWindow == 25 * Self.ms)
        #expect(Self.timing.timeout == 300 * Self.ms, "RTO = SRTT + max(4·RTTVAR, 200 ms)")
        let jittery = RetransmissionModel.Timing(LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(400)))
        #expect(jittery.timeout == (200 + 400 + 400) * Self.ms, "a jitter over 200 ms sets the variance term")
    }

    @Test("one later acknowledgement retransmits a round trip and the reorder window after the loss, no sooner than it comes")
    func timeBasedDetection() {
        var model = RetransmissionModel()
        model.lose(order: 0, sentAt: 0, timing: Self.timing, lostRetransmissions: 0, oneWayDelay: 50 * Self.ms)
        // The next frame leaves 33 ms later, arrives at 83 ms; its acknowledgement is back at 133 ms.
        model.acknowledge(at: 133 * Self.ms)
        #expect(model.settle(now: 132 * Self.ms).isEmpty, "not before the acknowledgement is back")
        #expect(model.settle(now: 133 * Self.ms).map(\.arrivesAt) == [183 * Self.ms], "resent at 133 ms, there 50 ms later")

        var early = RetransmissionModel()
        early.lose(order: 0, sentAt: 0, timing: Self.timing, lostRetransmissions: 0, oneWayDelay: 50 * Self.ms)
        early.acknowledge(at: 101 * Self.ms)
        #expect(early.settle(now: 124 * Self.ms).isEmpty, "an acknowledgement at 101 ms waits for the reorder window")
        #expect(early.settle(now: 125 * Self.ms).map(\.arrivesAt) == [175 * Self.ms])
    }

    @Test("the third later acknowledgement retransmits at once (fast retransmit)")
    func fastRetransmit() {
        var model = RetransmissionModel()
        model.lose(order: 7, sentAt: 0, timing: Self.timing, lostRetransmissions: 0, oneWayDelay: 50 * Self.ms)
        // Later segments of the same large frame, acknowledged at once: three of them.
        for _ in 0..<3 { model.acknowledge(at: 100 * Self.ms) }
        let settled = model.settle(now: 100 * Self.ms)
        #expect(settled.map(\.order) == [7])
        #expect(settled.map(\.arrivesAt) == [150 * Self.ms], "resent one round trip after the loss")
    }

    @Test("with nothing sent after it, the timer resends; a lost retransmission doubles it each time")
    func timeout() {
        var model = RetransmissionModel()
        model.lose(order: 0, sentAt: 0, timing: Self.timing, lostRetransmissions: 0, oneWayDelay: 50 * Self.ms)
        #expect(model.settle(now: 299 * Self.ms).isEmpty)
        #expect(model.settle(now: 300 * Self.ms).map(\.arrivesAt) == [350 * Self.ms])

        var twice = RetransmissionModel()
        twice.lose(order: 0, sentAt: 0, timing: Self.timing, lostRetransmissions: 2, oneWayDelay: 50 * Self.ms)
        // Timer at 300 ms (lost), 300 + 600 (lost), 900 + 1200: arrives at 2100 + 50 ms.
        #expect(twice.settle(now: 300 * Self.ms).map(\.arrivesAt) == [2150 * Self.ms])
        #expect(twice.segmentsLost == 3)

        var fastThenTimer = RetransmissionModel()
        fastThenTimer.lose(order: 0, sentAt: 0, timing: Self.timing, lostRetransmissions: 1, oneWayDelay: 50 * Self.ms)
        for _ in 0..<3 { fastThenTimer.acknowledge(at: 100 * Self.ms) }
        #expect(
            fastThenTimer.settle(now: 100 * Self.ms).map(\.arrivesAt) == [450 * Self.ms],
            "a lost fast retransmission waits one timer (300 ms) before the next")
    }

    /// A link of 50 ms each way without jitter, small frames every 30 ms, all sent at a loss rate
    /// of 0 but frame `lostFrame`, sent at `lossRate`.
    ///
    /// - Returns: When each frame arrived, in milliseconds, in arrival order, with its number.
    static func arrivals(seed: UInt64, lostFrame: Int, lossRate: Double) -> [(number: Int, at: Int64)] {
        var link = SimulatedLink(conditions: LinkConditions(latency: .milliseconds(50)), seed: seed)
        var arrived: [(number: Int, at: Int64)] = []
        for now in stride(from: Int64(0), through: 1000 * ms, by: Int(ms)) {
            if now % (30 * ms) == 0, now / (30 * ms) < 20 {
                let number = Int(now / (30 * ms))
                link.conditions.lossRate = number == lostFrame ? lossRate : 0
                link.send([UInt8(number)], now: now)
            }
            for packet in link.takeArrived(now: now) {
                #expect(packet.arrivesAt == now, "frame \(packet.bytes[0]) is delivered when it arrives")
                arrived.append((Int(packet.bytes[0]), now / ms))
            }
        }
        return arrived
    }

    /// A seed whose generator's first two draws are a loss and then no loss at `rate`: the link
    /// draws nothing for frames sent at a loss rate of 0 and nothing for jitter when there is
    /// none, so these are the lost frame's draws (lost, its retransmission not lost).
    static func seedLosingOnce(at rate: Double) -> UInt64 {
        for seed in UInt64(1)... {
            var random = SplitMix64(seed: seed)
            let first = Double(random.next() >> 11) / Double(UInt64(1) << 53)
            let second = Double(random.next() >> 11) / Double(UInt64(1) << 53)
            if first < rate && second >= rate { return seed }
        }
        return 0
    }

    @Test("a lost segment delays exactly the frames behind it, by the retransmission delay, in order")
    func headOfLineBlocking() throws {
        let seed = Self.seedLosingOnce(at: 0.5)
        let lossless = Self.arrivals(seed: seed, lostFrame: 5, lossRate: 0)
        let lossy = Self.arrivals(seed: seed, lostFrame: 5, lossRate: 0.5)
        #expect(lossless.map(\.number) == Array(0..<20))
        #expect(lossy.map(\.number) == Array(0..<20), "every frame arrives once, in order")
        #expect(lossless.map(\.at) == (0..<20).map { Int64($0) * 30 + 50 }, "without loss each frame takes the latency")
        // Frame 5 leaves at 150 ms and is lost; frame 6 (180 ms) is acknowledged at 280 ms, past
        // 150 + 100 + 25 ms: resent at 280, it arrives at 330 ms. Frames 6...9 (own arrivals 230...320)
        // wait for it; frame 10 (350 ms) does not.
        let expected = (0..<20).map { number -> Int64 in
            let own = Int64(number) * 30 + 50
            return (5...9).contains(number) ? 330 : own
        }
        #expect(lossy.map(\.at) == expected, "frames 5...9 arrive together at 330 ms, the rest on time")
    }

    @Test("reliable mode with loss: every frame arrives once and in order, some late, on a simulated network")
    func reliableWithLoss() throws {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 21)
        let conditions = LinkConditions(latency: .milliseconds(50), jitter: .milliseconds(10), lossRate: 0.05)
        let client = network.connect(upstream: conditions, downstream: conditions)
        let server = try #require(network.acceptPending().first as? SimulatedConnection)
        var down: [Int] = [], up: [Int] = [], late = 0
        for step in 0..<4000 {
            if step < 3000, step % 10 == 0 {
                // Every fifth frame spans three segments.
                let size = step % 50 == 0 ? 4000 : 40
                server.send(
                    [UInt8(truncatingIfNeeded: step / 10), UInt8(truncatingIfNeeded: step / 2560)] + Array(repeating: 0, count: size))
                client.send([UInt8(truncatingIfNeeded: step / 10), UInt8(truncatingIfNeeded: step / 2560)])
            }
            for case .frame(let bytes) in client.drain() {
                let number = Int(bytes[0]) | Int(bytes[1]) << 8
                if step - number * 10 > 60 + 1 { late += 1 }
                down.append(number)
            }
            for case .frame(let bytes) in server.drain() { up.append(Int(bytes[0]) | Int(bytes[1]) << 8) }
            clock.advance(by: .milliseconds(1))
        }
        #expect(down == Array(0..<300), "downstream: none lost, duplicated or reordered")
        #expect(up == Array(0..<300), "upstream: none lost, duplicated or reordered")
        #expect(server.framesLost == 0 && client.framesLost == 0)
        #expect(server.segmentsRetransmitted > 10, "about 5% of 420 segments were lost and resent: \(server.segmentsRetransmitted)")
        #expect(client.segmentsRetransmitted > 5, "about 5% of 300 segments were lost and resent: \(client.segmentsRetransmitted)")
        #expect(late > 15, "lost segments should hold frames back past latency + jitter: \(late) late")
    }
}

import Testing
import TickwireCodec

@testable import TickwireSim

@Suite("SimulatedNetwork")
struct SimulatedNetworkTests {
    /// Sends `count` numbered frames client → server, one every `interval`, and drains
    /// the server end every millisecond until `horizon`; returns (arrival ms, frame number) pairs.
    static func run(
        seed: UInt64, upstream: LinkConditions, count: Int, interval: Duration = .milliseconds(5),
        horizon: Duration = .seconds(5), frameSize: Int = 4
    ) -> (arrivals: [(Int64, Int)], network: SimulatedNetwork) {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: seed)
        let client = network.connect(upstream: upstream)
        let server = network.acceptPending()[0]
        var arrivals: [(Int64, Int)] = []
        var sent = 0
        var nextSend = Timestamp.zero
        while clock.now < .zero + horizon {
            if sent < count, clock.now >= nextSend {
                var frame = [UInt8](repeating: 0, count: frameSize)
                frame[0] = UInt8(truncatingIfNeeded: sent)
                frame[1] = UInt8(truncatingIfNeeded: sent >> 8)
                client.send(frame)
                sent += 1
                nextSend = nextSend + interval
            }
            for case .frame(let bytes) in server.drain() {
                arrivals.append((clock.now.nanoseconds / 1_000_000, Int(bytes[0]) | Int(bytes[1]) << 8))
            }
            clock.advance(by: .milliseconds(1))
        }
        return (arrivals, network)
    }

    @Test("a frame arrives after exactly the latency, not before")
    func latency() {
        let (arrivals, _) = Self.run(seed: 1, upstream: LinkConditions(latency: .milliseconds(40)), count: 3)
        #expect(arrivals.map(\.0) == [40, 45, 50], "frames sent at 0, 5, 10 ms with 40 ms latency arrive at 40, 45, 50 ms")
    }

    @Test("reliable mode: jitter delays frames but never reorders or duplicates them")
    func reliableKeepsOrder() {
        // Loss in reliable mode is TCP's, retransmitted late (RetransmissionModelTests); none here.
        let conditions = LinkConditions(latency: .milliseconds(50), jitter: .milliseconds(30), duplicationRate: 0.5)
        let (arrivals, _) = Self.run(seed: 2, upstream: conditions, count: 500)
        #expect(arrivals.map(\.1) == Array(0..<500), "reliable delivery must be exactly frames 0..<500 in order")
        let delays = arrivals.map { $0.0 - Int64($0.1 * 5) }
        #expect(delays.allSatisfy { $0 >= 50 && $0 <= 80 + 5 }, "every delay is latency plus at most jitter (plus head-of-line wait)")
        #expect(Set(delays).count > 10, "jitter should spread the delays")
    }

    @Test("unreliable mode: frames are lost, duplicated and reordered at about the configured rates")
    func unreliable() {
        let conditions = LinkConditions(
            latency: .milliseconds(20), jitter: .milliseconds(20), delivery: .unreliable,
            lossRate: 0.1, duplicationRate: 0.05, reorderRate: 0.05)
        let (arrivals, network) = Self.run(seed: 3, upstream: conditions, count: 800)
        let numbers = arrivals.map(\.1)
        let distinct = Set(numbers)
        let lost = 800 - distinct.count
        let duplicates = numbers.count - distinct.count
        let inversions = zip(numbers, numbers.dropFirst()).filter { $0.0 > $0.1 }.count
        #expect((40...120).contains(lost), "about 10% of 800 frames should be lost, \(lost) were")
        #expect((15...70).contains(duplicates), "about 5% should be duplicated, \(duplicates) were")
        #expect(inversions > 20, "jitter and hold-backs should reorder frames, found \(inversions) inversions")
        #expect(network.deliveredFrames == numbers.count)
    }

    @Test("the same seed gives the same traffic; another seed does not")
    func determinism() {
        let conditions = LinkConditions(
            latency: .milliseconds(20), jitter: .milliseconds(20), delivery: .unreliable,
            lossRate: 0.1, duplicationRate: 0.05, reorderRate: 0.05)
        let first = Self.run(seed: 9, upstream: conditions, count: 300)
        let second = Self.run(seed: 9, upstream: conditions, count: 300)
        let third = Self.run(seed: 10, upstream: conditions, count: 300)
        #expect(first.network.wireDigest == second.network.wireDigest, "equal seeds must give equal wire digests")
        #expect(first.arrivals.map(\.1) == second.arrivals.map(\.1))
        #expect(first.network.wireDigest != third.network.wireDigest, "a different seed should change the traffic")
    }

    @Test("a bandwidth cap serializes frames and shows up as buffered bytes")
    func bandwidth() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 4)
        let client = network.connect(downstream: LinkConditions(latency: .milliseconds(10), bandwidth: 10_000))
        let server = network.acceptPending()[0]
        for _ in 0..<10 { server.send([UInt8](repeating: 7, count: 1000)) }
        #expect(server.bufferedBytes == 10_000, "all ten frames wait behind the 10 kB/s cap")
        clock.advance(by: .milliseconds(500))
        #expect(server.bufferedBytes == 5_000, "after 0.5 s half of the bytes have left")
        #expect(client.drain().count == 4, "frames 1–4 left by 0.4 s and arrived 10 ms later")
        clock.advance(by: .milliseconds(510))
        #expect(server.bufferedBytes == 0)
        #expect(client.drain().count == 6)
        // Lifting the cap: the next frame goes straight through.
        client.setConditions(downstream: LinkConditions(latency: .milliseconds(10)))
        server.send([1, 2, 3])
        #expect(server.bufferedBytes == 0)
    }

    @Test("a stall holds frames until it ends, then releases them in order")
    func stall() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 5)
        let client = network.connect(downstream: LinkConditions(latency: .milliseconds(20)))
        let server = network.acceptPending()[0]
        server.send([1])
        clock.advance(by: .milliseconds(10))
        client.stall(for: .milliseconds(300))
        server.send([2])
        #expect(
            server.bufferedBytes == 2, "nothing leaves during a stall, and the held frame counts as unsent, as unacknowledged TCP data does"
        )
        clock.advance(by: .milliseconds(250))
        #expect(client.drain().isEmpty, "frame 1 was in flight when the stall began and is held")
        clock.advance(by: .milliseconds(50))
        #expect(client.drain() == [.frame([1])])
        clock.advance(by: .milliseconds(20))
        #expect(client.drain() == [.frame([2])])
    }

    @Test("close delivers what was sent, then closed-by-peer; disconnect cuts both ways at once")
    func closing() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 6)
        let client = network.connect(
            upstream: LinkConditions(latency: .milliseconds(5)), downstream: LinkConditions(latency: .milliseconds(5)))
        let server = network.acceptPending()[0]
        client.send([9])
        client.close()
        #expect(client.isClosed)
        clock.advance(by: .milliseconds(5))
        #expect(server.drain() == [.frame([9]), .closed(.closedByPeer(code: .normalClosure))], "a plain close carries code 1000")
        #expect(server.isClosed)
        server.send([1])
        #expect(server.drain().isEmpty, "a closed end delivers nothing more")

        let second = network.connect(downstream: LinkConditions(latency: .milliseconds(5)))
        let secondServer = network.acceptPending()[0]
        secondServer.send([1])
        second.disconnect()
        #expect(second.drain() == [.closed(.connectionLost)], "the frame in flight is lost with the connection")
        #expect(secondServer.drain() == [.closed(.connectionLost)])
    }

    @Test("a close with a code and a reason hands both to the peer's closed event, the reason cut to 123 bytes")
    func closingWithCode() {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 6)
        let client = network.connect(downstream: LinkConditions(latency: .milliseconds(5)))
        let server = network.acceptPending()[0]
        server.close(code: .roomFull, reason: "room 'x' is full " + String(repeating: "é", count: 100))
        clock.advance(by: .milliseconds(5))
        let events = client.drain()
        guard case .closed(let reason)? = events.last else {
            Issue.record("the client should see the close, got \(events)")
            return
        }
        #expect(reason.code == .roomFull, "the close code travels to the peer, got \(String(describing: reason.code))")
        #expect(reason.text.hasPrefix("room 'x' is full "))
        #expect(
            reason.text.utf8.count <= 123 && reason.text.utf8.count >= 122,
            "cut at a character boundary to fit 123 bytes, got \(reason.text.utf8.count)")
    }
}

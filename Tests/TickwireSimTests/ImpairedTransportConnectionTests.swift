import Testing
import TickwireCodec

@testable import TickwireSim

@Suite("ImpairedTransportConnection")
struct ImpairedTransportConnectionTests {
    /// A perfect simulated connection (standing in for a real transport), its client end wrapped.
    static func pair(upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect, seed: UInt64 = 5)
        -> (clock: VirtualClock, wrapper: ImpairedTransportConnection, server: any TransportConnection)
    {
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let client = network.connect()
        let server = network.acceptPending()[0]
        let wrapper = ImpairedTransportConnection(wrapping: client, upstream: upstream, downstream: downstream, clock: clock, seed: seed)
        return (clock, wrapper, server)
    }

    static func frame(_ type: MessageType, _ number: Int) -> [UInt8] {
        [type.rawValue, UInt8(truncatingIfNeeded: number), UInt8(truncatingIfNeeded: number >> 8)]
    }

    static func number(of frame: [UInt8]) -> Int { Int(frame[1]) | Int(frame[2]) << 8 }

    /// Sends 200 frames each way, `spacing` apart, through a link of 100 ms + 0...40 ms jitter.
    ///
    /// - Returns: Per direction, each arriving frame's number and delay.
    static func exchange(spacing: Int) -> (down: [(number: Int, delay: Duration)], up: [(number: Int, delay: Duration)]) {
        let link = LinkConditions(latency: .milliseconds(100), jitter: .milliseconds(40))
        let (clock, wrapper, server) = pair(upstream: link, downstream: link)
        var sentAt: [Int: Timestamp] = [:]
        var down: [(number: Int, delay: Duration)] = [], up: [(number: Int, delay: Duration)] = []
        for step in 0..<(200 * spacing + 500) {
            if step < 200 * spacing, step % spacing == 0 {
                let number = step / spacing
                sentAt[number] = clock.now
                server.send(frame(.pong, number))
                wrapper.send(frame(.input, number))
            }
            for case .frame(let bytes) in wrapper.drain() {
                down.append((number(of: bytes), clock.now - (sentAt[number(of: bytes)] ?? clock.now)))
            }
            for case .frame(let bytes) in server.drain() {
                up.append((number(of: bytes), clock.now - (sentAt[number(of: bytes)] ?? clock.now)))
            }
            clock.advance(by: .milliseconds(1))
        }
        #expect(wrapper.incomingFramesLost == 0 && wrapper.outgoingFramesLost == 0, "a reliable link loses nothing")
        return (down, up)
    }

    @Test("each frame is delayed by latency plus 0...jitter, both ways")
    func delay() {
        let (down, up) = Self.exchange(spacing: 50)
        for (name, arrivals) in [("downstream", down), ("upstream", up)] {
            #expect(arrivals.count == 200, "\(name): every frame arrives once")
            #expect(
                arrivals.allSatisfy { (Duration.milliseconds(100)...Duration.milliseconds(140)).contains($0.delay) },
                "\(name): delays outside 100...140 ms: \(arrivals.filter { $0.delay < .milliseconds(100) || $0.delay > .milliseconds(140) }.map(\.delay))"
            )
            #expect(
                arrivals.contains { $0.delay <= .milliseconds(110) } && arrivals.contains { $0.delay >= .milliseconds(130) },
                "\(name): delays spread over the jitter range")
        }
    }

    @Test("a frame received is delayed from when it arrived on the real connection, not from the drain that found it")
    func delayFromArrival() throws {
        let (clock, wrapper, server) = Self.pair(downstream: LinkConditions(latency: .milliseconds(50)))
        server.send(Self.frame(.pong, 1))
        // The real connection has it at once; the client drains 20 ms later, then every 20 ms.
        clock.advance(by: .milliseconds(20))
        #expect(wrapper.drainArrivals().isEmpty, "at 20 ms the 50 ms link still holds it")
        clock.advance(by: .milliseconds(20))
        #expect(wrapper.drainArrivals().isEmpty, "and at 40 ms")
        clock.advance(by: .milliseconds(20))
        let arrivals = wrapper.drainArrivals()
        try #require(arrivals.count == 1, "at 60 ms it has arrived: 50 ms after the real arrival, not 70 ms after the drain at 20")
        #expect(arrivals[0].waited == .milliseconds(10), "it arrived at 50 ms, 10 ms before this drain")
    }

    @Test("reliable mode keeps the order: jitter becomes head-of-line delay")
    func order() {
        let (down, up) = Self.exchange(spacing: 2)
        for (name, arrivals) in [("downstream", down), ("upstream", up)] {
            #expect(arrivals.map(\.number) == Array(0..<200), "\(name): every frame arrives once, in order")
            #expect(arrivals.allSatisfy { $0.delay >= .milliseconds(100) }, "\(name): none faster than the latency")
        }
    }

    @Test("unreliable mode loses the share of snapshots asked for and never another frame")
    func snapshotLoss() {
        let downstream = LinkConditions(latency: .milliseconds(30), jitter: .milliseconds(10), delivery: .unreliable, lossRate: 0.25)
        let (clock, wrapper, server) = Self.pair(downstream: downstream, seed: 11)
        var snapshots = 0, others: [Int] = []
        for step in 0..<2200 {
            if step < 2000 {
                server.send(Self.frame(.snapshot, step))
                if step % 10 == 0 { server.send(Self.frame(.pong, step / 10)) }
            }
            for case .frame(let bytes) in wrapper.drain() {
                if ImpairedTransportConnection.isSnapshotFrame(bytes) { snapshots += 1 } else { others.append(Self.number(of: bytes)) }
            }
            clock.advance(by: .milliseconds(1))
        }
        #expect(others == Array(0..<200), "frames that are not snapshots all arrive, in order")
        let lost = 2000 - snapshots
        #expect(wrapper.incomingFramesLost == lost)
        #expect(abs(Double(lost) / 2000 - 0.25) < 0.04, "lost \(lost) of 2000 snapshots, not about 25%")
        #expect(ImpairedTransportConnection.isSnapshotFrame([MessageType.snapshot.rawValue | Frame.compressedFlag, 0]))
        #expect(!ImpairedTransportConnection.isSnapshotFrame([]))
    }

    @Test("reliable mode with loss: both ways, every frame arrives once and in order, some after a retransmission")
    func reliableLoss() {
        let link = LinkConditions(latency: .milliseconds(50), lossRate: 0.05)
        let (clock, wrapper, server) = Self.pair(upstream: link, downstream: link, seed: 13)
        var down: [Int] = [], up: [Int] = []
        var lateDown = 0
        var sentAt: [Int: Timestamp] = [:]
        for step in 0..<12_500 {
            if step < 12_000, step % 30 == 0 {
                let number = step / 30
                sentAt[number] = clock.now
                server.send(Self.frame(.snapshot, number))
                wrapper.send(Self.frame(.input, number))
            }
            for case .frame(let bytes) in wrapper.drain() {
                down.append(Self.number(of: bytes))
                if let sent = sentAt[Self.number(of: bytes)], clock.now - sent > .milliseconds(50) { lateDown += 1 }
            }
            for case .frame(let bytes) in server.drain() { up.append(Self.number(of: bytes)) }
            clock.advance(by: .milliseconds(1))
        }
        #expect(down == Array(0..<400), "snapshots: none lost, none out of order")
        #expect(up == Array(0..<400), "inputs: none lost, none out of order")
        #expect(wrapper.incomingFramesLost == 0 && wrapper.outgoingFramesLost == 0, "a reliable link loses nothing")
        #expect(wrapper.incomingSegmentsRetransmitted > 5, "about 5% of 400 snapshots' segments: \(wrapper.incomingSegmentsRetransmitted)")
        #expect(wrapper.outgoingSegmentsRetransmitted > 5, "about 5% of 400 inputs' segments: \(wrapper.outgoingSegmentsRetransmitted)")
        #expect(
            lateDown >= wrapper.incomingSegmentsRetransmitted,
            "each retransmitted snapshot, and any behind it, arrives late: \(lateDown) late for \(wrapper.incomingSegmentsRetransmitted)")
    }

    @Test("datagram mode: what the UDP transport sends unreliably is lost both ways and may arrive out of order")
    func datagramLoss() {
        let link = LinkConditions(
            latency: .milliseconds(40), jitter: .milliseconds(30), delivery: .unreliable, lossRate: 0.1, reorderRate: 0.1)
        let clock = VirtualClock()
        let network = SimulatedNetwork(clock: clock, seed: 1)
        let client = network.connect()
        let server = network.acceptPending()[0]
        let wrapper = ImpairedTransportConnection(
            wrapping: client, upstream: link, downstream: link, clock: clock, seed: 17,
            droppable: ImpairedTransportConnection.isUnreliableOverUDP)
        var snapshots: [Int] = [], inputs: [Int] = [], reliable: [Int] = []
        // The last frames leave at 995 ms; a held-back one arrives by 995 + 2 × (40 + 30) ms.
        for step in 0..<1200 {
            if step < 1000, step % 5 == 0 {
                server.send(Self.frame(.snapshot, step / 5))
                wrapper.send(Self.frame(.input, step / 5))
                if step % 50 == 0 { server.send(Self.frame(.welcome, step / 50)) }
            }
            for case .frame(let bytes) in wrapper.drain() {
                if ImpairedTransportConnection.isSnapshotFrame(bytes) {
                    snapshots.append(Self.number(of: bytes))
                } else {
                    reliable.append(Self.number(of: bytes))
                }
            }
            for case .frame(let bytes) in server.drain() { inputs.append(Self.number(of: bytes)) }
            clock.advance(by: .milliseconds(1))
        }
        #expect(reliable == Array(0..<20), "frames the UDP transport sends reliably all arrive, in order")
        #expect(wrapper.incomingFramesLost == 200 - snapshots.count && wrapper.outgoingFramesLost == 200 - inputs.count)
        #expect((8...35).contains(200 - snapshots.count), "about 10% of 200 snapshots lost: \(200 - snapshots.count)")
        #expect((8...35).contains(200 - inputs.count), "about 10% of 200 inputs lost: \(200 - inputs.count)")
        #expect(snapshots != snapshots.sorted() && inputs != inputs.sorted(), "jitter and hold-backs reorder datagrams")
        #expect(wrapper.incomingSegmentsRetransmitted == 0, "datagrams are never retransmitted")
        #expect(ImpairedTransportConnection.isUnreliableOverUDP(Self.frame(.pong, 1)))
        #expect(
            !ImpairedTransportConnection.isUnreliableOverUDP(Self.frame(.welcome, 1))
                && !ImpairedTransportConnection.isUnreliableOverUDP([]))
    }

    @Test("the same seed loses the same frames")
    func determinism() {
        func lostNumbers(seed: UInt64) -> [Int] {
            let downstream = LinkConditions(delivery: .unreliable, lossRate: 0.3)
            let (_, wrapper, server) = Self.pair(downstream: downstream, seed: seed)
            for number in 0..<200 { server.send(Self.frame(.snapshot, number)) }
            let arrived = Set(
                wrapper.drain().compactMap { event -> Int? in
                    if case .frame(let bytes) = event { return Self.number(of: bytes) }
                    return nil
                })
            return (0..<200).filter { !arrived.contains($0) }
        }
        #expect(lostNumbers(seed: 3) == lostNumbers(seed: 3))
        #expect(lostNumbers(seed: 3) != lostNumbers(seed: 4))
    }

    @Test("a peer's close comes after the delayed frames; a local close sends the delayed ones first")
    func closing() {
        let link = LinkConditions(latency: .milliseconds(50))
        let (clock, wrapper, server) = Self.pair(upstream: link, downstream: link)
        server.send(Self.frame(.pong, 1))
        server.close()
        clock.advance(by: .milliseconds(10))
        #expect(wrapper.drain().isEmpty && !wrapper.isClosed, "the frame is still on its way")
        clock.advance(by: .milliseconds(50))
        #expect(wrapper.drain() == [.frame(Self.frame(.pong, 1)), .closed(.closedByPeer(code: .normalClosure))])
        #expect(wrapper.isClosed)

        let (_, leaving, peer) = Self.pair(upstream: link, downstream: link)
        leaving.send(Self.frame(.disconnect, 7))
        #expect(leaving.bufferedBytes == 3, "the frame waits in the wrapper")
        leaving.close()
        #expect(
            peer.drain() == [.frame(Self.frame(.disconnect, 7)), .closed(.closedByPeer(code: .normalClosure))],
            "the last words reach the peer")
    }
}

import Testing
import TickwireFoundation
import TickwirePacket

@Suite("Packet endpoint over a simulated link")
struct PacketEndpointTests {
    @Test("every reliable message arrives once and in order over 30% loss, duplication and reordering")
    func reliableOverHeavyLoss() throws {
        var link = try LinkSimulation(seed: 31, conditions: LinkConditions(loss: 0.3, duplication: 0.1, delay: 0.03, jitter: 0.04))
        var sizes = SplitMix64(seed: 7)
        var sent: [[UInt8]] = []
        var index = 0
        while index < 300 {
            // Respect the send queue's bound, as a transport must: wait while it is nearly full.
            guard link.a.pendingReliableMessages < 200 else {
                try link.advance(by: 1.0 / 60)
                continue
            }
            defer { index += 1 }
            // Mostly small messages, some a little over one packet, a few of several fragments.
            let roll = Int.random(in: 0..<100, using: &sizes)
            let size = roll < 80 ? Int.random(in: 4...200, using: &sizes) : roll < 95 ? Int.random(in: 1100...2500, using: &sizes) : 9000
            let message = numberedMessage(index, size: size)
            sent.append(message)
            try link.send(message, on: .reliableOrdered)
            try link.send(numberedMessage(100_000 + index, size: 40), on: .unreliable, fromA: false)  // traffic the other way
            try link.advance(by: 1.0 / 60)
        }
        var steps = 0
        while link.receivedByB.count < sent.count && steps < 60 * 120 {
            try link.advance(by: 1.0 / 60)
            steps += 1
        }
        let received = link.receivedByB.map(\.bytes)
        #expect(received.count == sent.count, "B received \(received.count) of \(sent.count) reliable messages within two minutes")
        #expect(received.map(messageNumber) == Array(0..<received.count), "the reliable messages arrived out of order or repeated")
        #expect(received == Array(sent.prefix(received.count)), "a reliable message arrived altered")
        #expect(link.receivedByB.allSatisfy { $0.channel == .reliableOrdered })
        #expect(link.a.counters.reliableResends > 0, "30% loss should have forced resends")
        #expect(link.b.counters.packetsDuplicate > 0, "10% duplication should have produced duplicate packets")
        // Once everything is acknowledged, nothing stays queued.
        for _ in 0..<120 { try link.advance(by: 1.0 / 60) }
        #expect(link.a.pendingReliableMessages == 0, "\(link.a.pendingReliableMessages) reliable messages still unacknowledged")
        #expect(link.a.pendingReliableBytes == 0)
    }

    @Test("unreliable messages arrive at most once under heavy duplication")
    func unreliableAtMostOnce() throws {
        var link = try LinkSimulation(seed: 5, conditions: LinkConditions(loss: 0.2, duplication: 0.5, delay: 0.02, jitter: 0.05))
        for index in 0..<500 {
            let size = index % 10 == 0 ? 3000 : 60  // every tenth in three fragments
            try link.send(numberedMessage(index, size: size), on: .unreliable)
            try link.send(numberedMessage(index, size: 20), on: .unreliable, fromA: false)
            try link.advance(by: 0.01)
        }
        for _ in 0..<100 { try link.advance(by: 0.01) }
        let numbers = link.receivedByB.map { messageNumber($0.bytes) }
        #expect(Set(numbers).count == numbers.count, "an unreliable message was delivered twice")
        #expect(numbers.allSatisfy { (0..<500).contains($0) })
        #expect(numbers.count > 300, "only \(numbers.count) of 500 arrived over 20% loss")
        #expect(numbers.count < 500, "20% loss and no resends cannot deliver every unreliable message")
        for message in link.receivedByB {
            let number = messageNumber(message.bytes)
            #expect(message.bytes == numberedMessage(number, size: number % 10 == 0 ? 3000 : 60), "message \(number) was altered")
        }
    }

    @Test("a reliable message resent after its first four transmissions are lost arrives once")
    func reliableOverSeveralLosses() throws {
        var link = try LinkSimulation(seed: 1, conditions: LinkConditions(delay: 0.02))
        var dropped = 0
        link.dropFilter = { toB, packet in
            // Drop the first four packets A sends that carry the reliable message (flags 0x05 or 0x0d).
            guard toB, packet[0] & 0x07 == 0x05, dropped < 4 else { return false }
            dropped += 1
            return true
        }
        try link.send(Array("welcome".utf8), on: .reliableOrdered)
        for _ in 0..<200 { try link.advance(by: 0.01) }
        #expect(dropped == 4)
        #expect(link.receivedByB == [ReceivedMessage(channel: .reliableOrdered, bytes: Array("welcome".utf8))])
        // Before any ack the resend interval is 200 ms; the fifth transmission is acknowledged
        // (ack-only after 50 ms, 20 ms each way) well before a sixth would go.
        #expect(link.a.counters.reliableResends == 4, "one resend per lost transmission, no more")
        #expect(link.a.pendingReliableMessages == 0, "the fifth transmission's ack should have emptied the queue")
        #expect(link.b.counters.reliableDuplicates == 0)
    }

    @Test("sequences and message ids wrap past 65535 without losing a message")
    func sequenceWraparound() throws {
        var link = try LinkSimulation(seed: 9, conditions: LinkConditions(loss: 0.05, delay: 0.01, jitter: 0.01))
        var reliable: [[UInt8]] = []
        for index in 0..<70_000 {
            try link.send(numberedMessage(index, size: 8), on: .unreliable)
            if index % 100 == 0 {
                let message = numberedMessage(index, size: 12)
                reliable.append(message)
                try link.send(message, on: .reliableOrdered, fromA: false)
            }
            try link.advance(by: 0.002)
        }
        for _ in 0..<500 { try link.advance(by: 0.01) }
        #expect(link.a.counters.packetsSent > 70_000, "the test must send past sequence 65535")
        #expect(link.receivedByA.map(\.bytes) == reliable, "reliable messages across the wrap arrived out of order or not at all")
        let lateAcks = Double(link.a.counters.packetsAcked) / Double(link.a.counters.packetsSent)
        #expect(lateAcks > 0.9, "only \(lateAcks) of A's packets were acknowledged: acks broke at the wrap")
        let numbers = link.receivedByB.map { messageNumber($0.bytes) }
        #expect(Set(numbers).count == numbers.count, "an unreliable message was delivered twice across the wrap")
    }

    @Test("RTT, jitter and packet loss converge to the link's values", arguments: [(0.05, 0.0, 0.0), (0.05, 0.02, 0.1), (0.1, 0.01, 0.25)])
    func estimatesConverge(delay: Double, jitter: Double, loss: Double) throws {
        var link = try LinkSimulation(seed: 77, conditions: LinkConditions(loss: loss, delay: delay, jitter: jitter))
        let tick = 0.005
        for index in 0..<4000 {
            try link.send(numberedMessage(index, size: 30), on: .unreliable)
            try link.send(numberedMessage(index, size: 30), on: .unreliable, fromA: false)
            try link.advance(by: tick)
        }
        // A packet's ack leaves with the peer's next packet, at most a tick after arrival: the
        // round trip is two one-way delays (base + uniform jitter) plus that wait, between
        // `fastest` and `slowest`, `mean` on average. Only the newest sequence acknowledged is
        // sampled, and under reordering the newest is more often a fast packet, so the estimate
        // sits a little under the mean.
        let fastest = 2 * delay
        let slowest = 2 * (delay + jitter) + tick
        let mean = 2 * (delay + jitter / 2) + tick / 2
        #expect(
            link.a.roundTripTime >= fastest && link.a.roundTripTime <= slowest,
            "RTT \(link.a.roundTripTime) outside the link's \(fastest)...\(slowest)")
        #expect(abs(link.a.roundTripTime - mean) < 0.08 * mean, "RTT \(link.a.roundTripTime), the link's mean round trip is \(mean)")
        // Jitter: none on a steady link; on a jittery one, more than nothing and less than the
        // spread of the one-way jitter.
        if jitter == 0 {
            #expect(link.a.jitter < 0.001, "jitter \(link.a.jitter) on a link without jitter")
        } else {
            #expect(link.a.jitter > jitter / 10 && link.a.jitter < jitter, "jitter \(link.a.jitter) on a link with \(jitter) of jitter")
        }
        // A packet counts as acknowledged only when both it and a later ack survive; ack bits
        // repeat every ack 33 times, so almost every delivered packet is acknowledged.
        #expect(abs(link.a.packetLoss - loss) < 0.06, "packet loss \(link.a.packetLoss), link loss \(loss)")
        #expect(link.a.counters.packetsLost > 0 || loss == 0)
    }

    @Test("an ack-only packet goes when something was received and nothing was sent for the ack interval")
    func ackOnlyPacket() throws {
        var a = try PacketEndpoint()
        var b = try PacketEndpoint()
        let packets = try a.send([1, 2, 3], on: .unreliable, now: 0)
        #expect(try b.receive(packets[0], now: 0.01) == [ReceivedMessage(channel: .unreliable, bytes: [1, 2, 3])])
        #expect(b.update(now: 0.02).isEmpty, "no ack-only packet before the ack interval")
        let acks = b.update(now: 0.07)
        let ackBytes = try #require(acks.first, "no ack-only packet 60 ms after a packet arrived")
        #expect(acks.count == 1)
        let ackPacket = try Packet.decode(ackBytes)
        #expect(ackPacket.content == .ackOnly)
        #expect(ackPacket.acks == PacketAcks(ack: 0, ackBits: 0))
        #expect(b.update(now: 0.2).isEmpty, "nothing new received, so no second ack-only packet")
        _ = try a.receive(ackBytes, now: 0.08)
        #expect(a.counters.packetsAcked == 1)
        #expect(abs(a.roundTripTime - 0.08) < 1e-9)
    }

    @Test("stale and duplicate packets are counted and deliver nothing")
    func staleAndDuplicate() throws {
        var a = try PacketEndpoint()
        var b = try PacketEndpoint()
        var packets: [[UInt8]] = []
        for index in 0..<300 { packets += try a.send([UInt8(index & 0xFF)], on: .unreliable, now: 0) }
        #expect(try b.receive(packets[299], now: 0).count == 1)
        #expect(try b.receive(packets[299], now: 0).isEmpty)
        #expect(b.counters.packetsDuplicate == 1)
        // 299 − 256 = 43 is the first stale sequence; 44 is still within the history.
        #expect(try b.receive(packets[43], now: 0).isEmpty)
        #expect(b.counters.packetsStale == 1)
        #expect(try b.receive(packets[44], now: 0).count == 1)
    }
}

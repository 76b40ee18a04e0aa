import Testing
import TickwirePacket

@Suite("Fragments lost, repeated and superseded")
struct FragmentTests {
    @Test("an unreliable message missing one fragment is never delivered, and its reassembly is dropped")
    func lostFragment() throws {
        var a = try PacketEndpoint()
        var b = try PacketEndpoint()
        let packets = try a.send(Array(repeating: 9, count: 3000), on: .unreliable, now: 0)
        #expect(packets.count == 3)
        #expect(try b.receive(packets[0], now: 0).isEmpty)
        #expect(try b.receive(packets[2], now: 0).isEmpty)
        #expect(b.reassemblyBytes == 3 * 1024)
        _ = b.update(now: 2)
        #expect(b.reassemblyBytes == 0)
        #expect(b.counters.reassembliesDropped == 1)
        #expect(try b.receive(packets[1], now: 2).isEmpty, "the late fragment starts a new reassembly, never a delivery")
    }

    @Test("a fragment received twice (in two packets) is stored once and the message delivered once")
    func repeatedFragment() throws {
        var b = try PacketEndpoint()
        _ = try b.receive(fragmentPacket(sequence: 0, messageID: 4, index: 0, count: 2, fill: 1), now: 0)
        _ = try b.receive(fragmentPacket(sequence: 1, messageID: 4, index: 0, count: 2, fill: 1), now: 0)
        #expect(b.counters.fragmentsDropped == 1)
        let delivered = try b.receive(fragmentPacket(sequence: 2, messageID: 4, index: 1, count: 2, size: 3, fill: 2), now: 0)
        #expect(delivered == [ReceivedMessage(channel: .unreliable, bytes: Array(repeating: 1, count: 1024) + [2, 2, 2])])
        #expect(try b.receive(fragmentPacket(sequence: 3, messageID: 4, index: 1, count: 2, size: 3, fill: 2), now: 0).isEmpty)
        #expect(b.counters.fragmentsDropped == 2, "a fragment of a completed message is dropped, not reassembled again")
    }

    @Test("a newer unreliable message completing drops the older partial ones")
    func superseded() throws {
        var b = try PacketEndpoint()
        _ = try b.receive(fragmentPacket(sequence: 0, messageID: 1, index: 0, count: 2), now: 0)
        _ = try b.receive(fragmentPacket(sequence: 1, messageID: 2, index: 0, count: 2), now: 0)
        let delivered = try b.receive(fragmentPacket(sequence: 2, messageID: 2, index: 1, count: 2, size: 1), now: 0)
        #expect(delivered.count == 1)
        #expect(b.unreliableReassemblyCount == 0)
        #expect(b.counters.reassembliesDropped == 1)
        #expect(try b.receive(fragmentPacket(sequence: 3, messageID: 1, index: 1, count: 2, size: 1), now: 0).isEmpty)
        #expect(b.counters.fragmentsDropped == 1, "message 1 is older than the newest completed, so its fragment is dropped")
    }

    @Test("a reliable fragmented message survives lost and repeated fragments and arrives once, whole")
    func reliableFragments() throws {
        var link = try LinkSimulation(seed: 3, conditions: LinkConditions(loss: 0.4, duplication: 0.3, delay: 0.02, jitter: 0.02))
        let message = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try link.send(message, on: .reliableOrdered)
        try link.send([1, 2, 3], on: .reliableOrdered)
        for _ in 0..<1000 { try link.advance(by: 0.01) }
        #expect(link.receivedByB.map(\.bytes) == [message, [1, 2, 3]], "B received \(link.receivedByB.map(\.bytes.count)) byte counts")
        #expect(link.a.pendingReliableMessages == 0)
        #expect(link.b.reassemblyBytes == 0)
    }
}

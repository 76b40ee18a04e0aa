import Testing
import TickwireFoundation
import TickwirePacket

@Suite("Garbage packets")
struct GarbageTests {
    @Test("seeded random and mutated packets never crash, leave every buffer within its limit, and the endpoint still works")
    func garbage() throws {
        var random = SplitMix64(seed: 0x7E57)
        var limits = PacketLimits()
        limits.maximumReassemblyBytes = 1 << 19
        var sender = try PacketEndpoint(limits: limits)
        var victim = try PacketEndpoint(limits: limits)
        var valid: [[UInt8]] = []
        for index in 0..<50 {
            valid += try sender.send(
                Array(repeating: UInt8(index), count: index * 97 + 1), on: index % 2 == 0 ? .unreliable : .reliableOrdered, now: 0)
        }
        var refused = 0
        for round in 0..<20_000 {
            var packet: [UInt8]
            if round % 2 == 0 {
                let length = Int.random(in: 0...1300, using: &random)
                packet = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                if length > 0 && round % 4 == 0 { packet[0] &= 0x0F }  // reach past the flags check more often
            } else {
                packet = valid[Int.random(in: 0..<valid.count, using: &random)]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    packet[Int.random(in: 0..<packet.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                if Bool.random(using: &random) { packet.removeLast(Int.random(in: 0..<packet.count, using: &random)) }
            }
            do {
                _ = try victim.receive(packet, now: Double(round) * 0.001)
            } catch {
                refused += 1
            }
            _ = victim.update(now: Double(round) * 0.001)
            #expect(victim.reassemblyBytes <= limits.maximumReassemblyBytes)
            #expect(victim.unreliableReassemblyCount <= limits.maximumUnreliableReassemblies)
            #expect(victim.heldReliableMessages < limits.reliableReceiveWindow)
        }
        #expect(refused > 0)
        #expect(victim.counters.packetsRefused == refused, "every refusal is counted as well as thrown")
        // The endpoint still takes well-formed packets. Of 64 spread 1024 apart over the sequence
        // space, those behind the newest it has seen are stale; the first one ahead of it is taken,
        // and so is every one after it (each 1024 ahead of the one before).
        var taken: [Bool] = []
        for step in 0..<64 {
            let packet = Packet(
                sequence: UInt16(step * 1024), acks: nil, content: .message(channel: .unreliable, messageID: nil, bytes: [42]))
            taken.append(try victim.receive(packet.encode(), now: 100) == [ReceivedMessage(channel: .unreliable, bytes: [42])])
        }
        let first = try #require(taken.firstIndex(of: true), "no well-formed packet was taken after the garbage")
        #expect(taken[first...].allSatisfy { $0 }, "a well-formed packet ahead of the newest was refused: \(taken)")
        #expect(taken.count(where: { $0 }) >= 31, "fewer than half the sequence space was taken")
    }
}

import Testing
import TickwirePacket

/// A fragment packet built by hand, as a peer (honest or not) might send it.
func fragmentPacket(
    sequence: UInt16, channel: PacketChannel = .unreliable, messageID: UInt16, index: Int, count: Int, size: Int = 1024, fill: UInt8 = 0
) -> [UInt8] {
    Packet(
        sequence: sequence, acks: nil,
        content: .fragment(channel: channel, messageID: messageID, index: index, count: count, bytes: Array(repeating: fill, count: size))
    ).encode()
}

/// A reliable message packet built by hand.
func reliablePacket(sequence: UInt16, messageID: UInt16, bytes: [UInt8]) -> [UInt8] {
    Packet(sequence: sequence, acks: nil, content: .message(channel: .reliableOrdered, messageID: messageID, bytes: bytes)).encode()
}

/// Expects `body` to throw a ``PacketError`` with `code`.
func expectPacketError<T>(_ code: PacketError.Code, _ what: String, _ body: () throws -> T) {
    do {
        _ = try body()
        Issue.record("\(what): expected \(code), nothing was thrown")
    } catch let error as PacketError {
        #expect(error.code == code, "\(what): expected \(code), got \(error)")
    } catch {
        Issue.record("\(what): expected \(code), got \(error)")
    }
}

@Suite("Packet limits, at the limit and one past")
struct PacketLimitsTests {
    static var small: PacketLimits {
        var limits = PacketLimits()
        limits.maximumMessageBytes = 4096
        limits.maximumFragmentsPerMessage = 4
        limits.maximumReassemblyBytes = 8192
        limits.reliableSendQueueBytes = 4096
        return limits
    }

    @Test("a message of maximumMessageBytes goes and arrives; one byte more is refused")
    func messageSize() throws {
        var a = try PacketEndpoint(limits: Self.small)
        var b = try PacketEndpoint(limits: Self.small)
        let message = (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let packets = try a.send(message, on: .unreliable, now: 0)
        #expect(packets.count == 4)
        var delivered: [ReceivedMessage] = []
        for packet in packets { delivered += try b.receive(packet, now: 0) }
        #expect(delivered == [ReceivedMessage(channel: .unreliable, bytes: message)])
        expectPacketError(.messageTooLarge, "send of 4097 bytes") { try a.send(message + [0], on: .unreliable, now: 0) }
        expectPacketError(.messageTooLarge, "reliable send of 4097 bytes") { try a.send(message + [0], on: .reliableOrdered, now: 0) }
        expectPacketError(.emptyMessage, "send of an empty message") { try a.send([], on: .unreliable, now: 0) }
    }

    @Test("fragment counts: maximumFragmentsPerMessage decodes, one more is refused; a message over the size limit is refused")
    func fragmentCount() throws {
        var limits = Self.small
        limits.maximumMessageBytes = 3073  // three whole fragments and one byte
        var b = try PacketEndpoint(limits: limits)
        #expect(throws: Never.self) {
            try Packet.decode(fragmentPacket(sequence: 0, messageID: 1, index: 3, count: 4, size: 1), limits: limits)
        }
        expectPacketError(.fragmentCountExceeded, "a fragment of 5") {
            try b.receive(fragmentPacket(sequence: 1, messageID: 1, index: 0, count: 5), now: 0)
        }
        // Count 4 with a last fragment of 1 byte makes 3073 bytes: at the limit; 2 bytes is one past.
        for index in 0..<3 {
            #expect(try b.receive(fragmentPacket(sequence: UInt16(2 + index), messageID: 1, index: index, count: 4), now: 0).isEmpty)
        }
        expectPacketError(.messageTooLarge, "a last fragment making 3074 bytes") {
            try b.receive(fragmentPacket(sequence: 5, messageID: 1, index: 3, count: 4, size: 2), now: 0)
        }
        let delivered = try b.receive(fragmentPacket(sequence: 6, messageID: 1, index: 3, count: 4, size: 1), now: 0)
        #expect(delivered.map(\.bytes.count) == [3073])
        #expect(b.counters.packetsRefused == 2)
    }

    @Test("reliableSendQueueMessages unacknowledged messages are taken; one more is a typed error until acks arrive")
    func reliableQueueMessages() throws {
        var limits = PacketLimits()
        limits.reliableSendQueueMessages = 8
        var a = try PacketEndpoint(limits: limits)
        var b = try PacketEndpoint(limits: limits)
        var packets: [[UInt8]] = []
        for index in 0..<8 { packets += try a.send([UInt8(index)], on: .reliableOrdered, now: 0) }
        #expect(a.pendingReliableMessages == 8)
        expectPacketError(.reliableQueueFull, "the ninth reliable message") { try a.send([8], on: .reliableOrdered, now: 0) }
        var delivered: [ReceivedMessage] = []
        for packet in packets { delivered += try b.receive(packet, now: 0.01) }
        #expect(delivered.map(\.bytes) == (0..<8).map { [UInt8($0)] })
        for packet in b.update(now: 0.1) { _ = try a.receive(packet, now: 0.1) }
        #expect(a.pendingReliableMessages == 0, "the ack-only packet acknowledges all eight")
        #expect(try a.send([8], on: .reliableOrdered, now: 0.1).count == 1)
    }

    @Test("reliableSendQueueBytes unacknowledged bytes are taken; one byte more is a typed error")
    func reliableQueueBytes() throws {
        var a = try PacketEndpoint(limits: Self.small)
        _ = try a.send(Array(repeating: 1, count: 4000), on: .reliableOrdered, now: 0)
        _ = try a.send(Array(repeating: 2, count: 96), on: .reliableOrdered, now: 0)
        #expect(a.pendingReliableBytes == 4096)
        expectPacketError(.reliableQueueFull, "one byte over the queue's bytes") { try a.send([3], on: .reliableOrdered, now: 0) }
    }

    @Test("maximumUnreliableReassemblies messages reassemble at once; one more evicts the oldest, counted")
    func unreliableReassemblies() throws {
        var limits = Self.small
        limits.maximumUnreliableReassemblies = 2
        var b = try PacketEndpoint(limits: limits)
        _ = try b.receive(fragmentPacket(sequence: 0, messageID: 10, index: 0, count: 2), now: 0)
        _ = try b.receive(fragmentPacket(sequence: 1, messageID: 11, index: 0, count: 2), now: 0)
        #expect(b.unreliableReassemblyCount == 2)
        #expect(b.counters.reassembliesDropped == 0)
        _ = try b.receive(fragmentPacket(sequence: 2, messageID: 12, index: 0, count: 2), now: 0)
        #expect(b.unreliableReassemblyCount == 2)
        #expect(b.counters.reassembliesDropped == 1)
        // Message 10 was evicted: its last fragment starts it again rather than completing it.
        #expect(try b.receive(fragmentPacket(sequence: 3, messageID: 11, index: 1, count: 2, size: 5), now: 0).map(\.bytes.count) == [1029])
    }

    @Test("maximumReassemblyBytes are reserved at most; a reassembly one past it evicts the oldest, counted")
    func reassemblyBytes() throws {
        var b = try PacketEndpoint(limits: Self.small)  // 8192 bytes: two messages of four fragments
        _ = try b.receive(fragmentPacket(sequence: 0, messageID: 1, index: 0, count: 4), now: 0)
        _ = try b.receive(fragmentPacket(sequence: 1, messageID: 2, index: 0, count: 4), now: 0)
        #expect(b.reassemblyBytes == 8192)
        #expect(b.counters.reassembliesDropped == 0)
        _ = try b.receive(fragmentPacket(sequence: 2, messageID: 3, index: 0, count: 2), now: 0)
        #expect(b.reassemblyBytes == 6144, "message 1 (4096 reserved) gave way to message 3 (2048)")
        #expect(b.counters.reassembliesDropped == 1)
    }

    @Test("an incomplete unreliable message is kept for unreliableReassemblyTimeout and dropped just after")
    func reassemblyTimeout() throws {
        var b = try PacketEndpoint()
        _ = try b.receive(fragmentPacket(sequence: 0, messageID: 1, index: 0, count: 3), now: 10)
        _ = b.update(now: 11)
        #expect(b.unreliableReassemblyCount == 1, "at exactly the timeout the message still waits")
        _ = b.update(now: 11.001)
        #expect(b.unreliableReassemblyCount == 0)
        #expect(b.reassemblyBytes == 0)
        #expect(b.counters.reassembliesDropped == 1)
    }

    @Test("a reliable message reliableReceiveWindow − 1 ahead is held; one further is a protocol violation")
    func reliableReceiveWindow() throws {
        var limits = PacketLimits()
        limits.reliableReceiveWindow = 4
        var b = try PacketEndpoint(limits: limits)
        #expect(try b.receive(reliablePacket(sequence: 0, messageID: 3, bytes: [3]), now: 0).isEmpty)
        #expect(b.heldReliableMessages == 1)
        expectPacketError(.reliableProtocolViolation, "message 4 with message 0 due and a window of 4") {
            try b.receive(reliablePacket(sequence: 1, messageID: 4, bytes: [4]), now: 0)
        }
        var delivered: [ReceivedMessage] = []
        for id in [2, 0, 1] as [UInt16] {
            delivered += try b.receive(reliablePacket(sequence: 2 + id, messageID: id, bytes: [UInt8(id)]), now: 0)
        }
        #expect(delivered.map(\.bytes) == [[0], [1], [2], [3]])
        #expect(b.heldReliableMessages == 0)
        // Already delivered: a duplicate, dropped and counted, not an error.
        #expect(try b.receive(reliablePacket(sequence: 9, messageID: 1, bytes: [1]), now: 0).isEmpty)
        #expect(b.counters.reliableDuplicates == 1)
    }

    @Test("a reliable fragment of a message not yet due breaks the channel's rules")
    func reliableFragmentOutOfTurn() throws {
        var b = try PacketEndpoint()
        expectPacketError(.reliableProtocolViolation, "a fragment of message 1 while 0 is due") {
            try b.receive(fragmentPacket(sequence: 0, channel: .reliableOrdered, messageID: 1, index: 0, count: 2), now: 0)
        }
        _ = try b.receive(fragmentPacket(sequence: 1, channel: .reliableOrdered, messageID: 0, index: 0, count: 2), now: 0)
        expectPacketError(.fragmentCountMismatch, "a fragment of message 0 saying 3 after one saying 2") {
            try b.receive(fragmentPacket(sequence: 2, channel: .reliableOrdered, messageID: 0, index: 1, count: 3), now: 0)
        }
        let delivered = try b.receive(
            fragmentPacket(sequence: 3, channel: .reliableOrdered, messageID: 0, index: 1, count: 2, size: 1), now: 0)
        #expect(delivered.map(\.bytes.count) == [1025])
    }

    @Test("sentPacketHistory packets wait for acks; the one that pushes out an unacknowledged packet counts it lost")
    func sentHistory() throws {
        var limits = PacketLimits()
        limits.sentPacketHistory = 64
        var a = try PacketEndpoint(limits: limits)
        for _ in 0..<64 { _ = try a.send([1], on: .unreliable, now: 0) }
        #expect(a.counters.packetsLost == 0)
        _ = try a.send([1], on: .unreliable, now: 0)
        #expect(a.counters.packetsLost == 1)
        #expect(a.packetLoss == 1)
    }

    @Test("receivedPacketHistory − 1 behind the newest is accepted; receivedPacketHistory behind is stale")
    func receivedHistory() throws {
        var limits = PacketLimits()
        limits.receivedPacketHistory = 64
        var b = try PacketEndpoint(limits: limits)
        func packet(_ sequence: UInt16) -> [UInt8] {
            Packet(sequence: sequence, acks: nil, content: .message(channel: .unreliable, messageID: nil, bytes: [1])).encode()
        }
        #expect(try b.receive(packet(100), now: 0).count == 1)
        #expect(try b.receive(packet(37), now: 0).count == 1)
        #expect(try b.receive(packet(36), now: 0).isEmpty)
        #expect(b.counters.packetsStale == 1)
    }

    @Test("maximumPacketsPerUpdate bounds a burst; the rest go on the next update")
    func packetsPerUpdate() throws {
        var limits = PacketLimits()
        limits.maximumPacketsPerUpdate = 2
        var a = try PacketEndpoint(limits: limits)
        #expect(try a.send(Array(repeating: 7, count: 5 * 1024), on: .reliableOrdered, now: 0).count == 2)
        #expect(a.update(now: 0.001).count == 2)
        #expect(a.update(now: 0.002).count == 1)
        #expect(a.update(now: 0.003).isEmpty, "every fragment sent once, none due again yet")
    }

    @Test("packetLossWindow bounds the loss estimate to the most recent packets")
    func lossWindow() throws {
        var limits = PacketLimits()
        limits.packetLossWindow = 4
        var a = try PacketEndpoint(limits: limits)
        var b = try PacketEndpoint(limits: limits)
        // Four packets lost (never delivered), then four acknowledged: the window forgets the losses.
        for _ in 0..<4 { _ = try a.send([1], on: .unreliable, now: 0) }
        _ = a.update(now: 1)
        #expect(a.packetLoss == 1)
        for _ in 0..<4 {
            for packet in try a.send([2], on: .unreliable, now: 1) { _ = try b.receive(packet, now: 1) }
        }
        for packet in b.update(now: 1.1) { _ = try a.receive(packet, now: 1.1) }
        #expect(a.packetLoss == 0, "the last four packets were all acknowledged")
        #expect(a.counters.packetsLost == 4)
    }

    @Test(
        "limits out of range are refused with the limit's name",
        arguments: [
            { (l: inout PacketLimits) in l.reliableSendQueueMessages = 32_769 },
            { (l: inout PacketLimits) in l.reliableReceiveWindow = 0 },
            { (l: inout PacketLimits) in l.sentPacketHistory = 100 },
            { (l: inout PacketLimits) in l.receivedPacketHistory = 32 },
            { (l: inout PacketLimits) in l.maximumFragmentsPerMessage = 1 },
            { (l: inout PacketLimits) in l.maximumMessageBytes = 256 * 1024 + 1 },
            { (l: inout PacketLimits) in l.maximumReassemblyBytes = 1000 },
            { (l: inout PacketLimits) in l.ackInterval = 0 },
            { (l: inout PacketLimits) in l.unreliableReassemblyTimeout = .nan },
        ] as [@Sendable (inout PacketLimits) -> Void])
    func invalidLimits(change: @Sendable (inout PacketLimits) -> Void) {
        var limits = PacketLimits()
        change(&limits)
        expectPacketError(.invalidLimits, "limits \(limits)") { try PacketEndpoint(limits: limits) }
    }

    @Test("the largest valid limits are accepted")
    func largestLimits() throws {
        var limits = PacketLimits()
        limits.reliableSendQueueMessages = 32_768
        limits.reliableReceiveWindow = 32_768
        limits.sentPacketHistory = 32_768
        limits.receivedPacketHistory = 64
        _ = try PacketEndpoint(limits: limits)
    }
}

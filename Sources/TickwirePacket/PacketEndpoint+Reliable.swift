/// A reliable message waiting for its acks: whole (one unit) or in fragments (one unit each).
struct OutgoingReliableMessage: Sendable {
    let id: UInt16
    let bytes: [UInt8]
    /// 0 for a message sent whole, else its fragment count.
    let fragmentCount: Int
    var acked: [Bool]
    var lastSent: [Double?]
    var unackedUnits: Int
    var isDone: Bool { unackedUnits == 0 }
}

extension PacketEndpoint {
    mutating func enqueueReliable(_ message: [UInt8]) throws(PacketError) {
        if let oldest = reliableQueue.first {
            let span = Int(nextReliableID &- oldest.id)  // Ids wrap modulo 2^16 by design.
            guard span < limits.reliableSendQueueMessages else {
                throw .reliableQueueFull("messages", value: span, limit: limits.reliableSendQueueMessages)
            }
        }
        guard reliableQueueBytes + message.count <= limits.reliableSendQueueBytes else {
            throw .reliableQueueFull("bytes", value: reliableQueueBytes + message.count, limit: limits.reliableSendQueueBytes)
        }
        let fragmentCount = message.count <= PacketFormat.maximumUnfragmentedReliableBytes ? 0 : Self.fragmentCount(message.count)
        let units = max(1, fragmentCount)
        reliableQueue.append(
            OutgoingReliableMessage(
                id: nextReliableID, bytes: message, fragmentCount: fragmentCount, acked: Array(repeating: false, count: units),
                lastSent: Array(repeating: nil, count: units), unackedUnits: units))
        nextReliableID &+= 1  // Ids wrap modulo 2^16 by design.
        reliableQueueBytes += message.count
    }

    /// Sends every reliable unit due: never sent, or sent longer than the resend interval ago.
    ///
    /// Messages go in id order. A fragmented message goes only when it is the oldest
    /// unacknowledged one, and nothing after it goes until it is acknowledged whole (yojimbo's
    /// rule), so the peer reassembles at most one reliable message at a time.
    mutating func transmitReliable(now: Double) -> [[UInt8]] {
        let interval = resendInterval
        var packets: [[UInt8]] = []
        for position in reliableQueue.indices {
            let message = reliableQueue[position]
            if message.isDone { continue }
            if message.fragmentCount > 0 && position != 0 { break }
            for unit in 0..<message.acked.count where !reliableQueue[position].acked[unit] {
                if let last = reliableQueue[position].lastSent[unit], now - last < interval { continue }
                guard packets.count < limits.maximumPacketsPerUpdate else { return packets }
                if reliableQueue[position].lastSent[unit] != nil { counters.reliableResends += 1 }
                let content: PacketContent =
                    message.fragmentCount == 0
                    ? .message(channel: .reliableOrdered, messageID: message.id, bytes: message.bytes)
                    : .fragment(
                        channel: .reliableOrdered, messageID: message.id, index: unit, count: message.fragmentCount,
                        bytes: Self.fragment(unit, of: message.bytes))
                packets.append(makePacket(content, now: now, reliable: ReliableUnit(messageID: message.id, unit: unit)))
                reliableQueue[position].lastSent[unit] = now
            }
            if message.fragmentCount > 0 { break }
        }
        return packets
    }

    /// Marks one unit acknowledged and drops the acknowledged messages at the queue's front.
    mutating func acknowledgeReliable(_ unit: ReliableUnit) {
        guard let oldest = reliableQueue.first else { return }
        let position = Int(unit.messageID &- oldest.id)  // Ids wrap modulo 2^16 by design.
        guard position < reliableQueue.count, reliableQueue[position].id == unit.messageID,
            !reliableQueue[position].acked[unit.unit]
        else { return }
        reliableQueue[position].acked[unit.unit] = true
        reliableQueue[position].unackedUnits -= 1
        if reliableQueue[position].isDone { reliableQueueBytes -= reliableQueue[position].bytes.count }
        var done = 0
        while done < reliableQueue.count && reliableQueue[done].isDone { done += 1 }
        if done > 0 { reliableQueue.removeFirst(done) }
    }

    /// How far `id` is ahead of the next reliable message due; `nil` when it is behind (already delivered).
    private func reliableDistance(_ id: UInt16) throws(PacketError) -> Int? {
        let distance = Int(id &- nextReliableDue)  // Ids wrap modulo 2^16 by design.
        if distance >= 32_768 { return nil }
        guard distance < limits.reliableReceiveWindow else {
            throw .reliableProtocolViolation(
                "message \(id) is \(distance) ahead of message \(nextReliableDue), the receive window is \(limits.reliableReceiveWindow)")
        }
        return distance
    }

    mutating func receiveReliable(id: UInt16, bytes: [UInt8], into delivered: inout [ReceivedMessage]) throws(PacketError) {
        guard let distance = try reliableDistance(id), heldReliable[id] == nil else {
            counters.reliableDuplicates += 1
            return
        }
        if distance > 0 {
            heldReliable[id] = bytes
            return
        }
        deliverReliable(bytes, into: &delivered)
    }

    mutating func receiveReliableFragment(
        id: UInt16, index: Int, count: Int, bytes: [UInt8], now: Double, into delivered: inout [ReceivedMessage]
    ) throws(PacketError) {
        guard let distance = try reliableDistance(id) else {
            counters.reliableDuplicates += 1
            counters.fragmentsDropped += 1
            return
        }
        guard distance == 0 else {
            throw .reliableProtocolViolation("a fragment of message \(id) arrived while message \(nextReliableDue) is due")
        }
        try checkFragmentedSize(count: count, index: index, size: bytes.count)
        if let current = reliableReassembly, current.messageID != id { reliableReassembly = nil }
        if reliableReassembly == nil {
            makeRoom(for: count * PacketFormat.fragmentBytes)
            reliableReassembly = Reassembly(messageID: id, count: count, started: now)
        }
        guard var reassembly = reliableReassembly else { return }
        guard reassembly.count == count else { throw .fragmentCountMismatch(messageID: id, count: count, expected: reassembly.count) }
        guard reassembly.store(index: index, bytes: bytes) else {
            counters.fragmentsDropped += 1
            return
        }
        if reassembly.isComplete {
            reliableReassembly = nil
            deliverReliable(reassembly.message, into: &delivered)
        } else {
            reliableReassembly = reassembly
        }
    }

    /// Delivers the message due, then every held message that follows it without a gap.
    private mutating func deliverReliable(_ bytes: [UInt8], into delivered: inout [ReceivedMessage]) {
        delivered.append(ReceivedMessage(channel: .reliableOrdered, bytes: bytes))
        nextReliableDue &+= 1  // Ids wrap modulo 2^16 by design.
        while let next = heldReliable.removeValue(forKey: nextReliableDue) {
            delivered.append(ReceivedMessage(channel: .reliableOrdered, bytes: next))
            nextReliableDue &+= 1
        }
    }
}

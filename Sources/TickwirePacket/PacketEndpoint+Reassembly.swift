extension PacketEndpoint {
    /// Refuses a fragmented message whose size, as its count and this fragment tell, is over the limit.
    func checkFragmentedSize(count: Int, index: Int, size: Int) throws(PacketError) {
        let smallest = (count - 1) * PacketFormat.fragmentBytes + (index == count - 1 ? size : 1)
        guard smallest <= limits.maximumMessageBytes else { throw .messageTooLarge(size: smallest, limit: limits.maximumMessageBytes) }
    }

    /// Evicts unreliable reassemblies, oldest first, until `bytes` more fit in the reassembly budget.
    mutating func makeRoom(for bytes: Int) {
        while !unreliableReassemblies.isEmpty && reassemblyBytes + bytes > limits.maximumReassemblyBytes {
            unreliableReassemblies.removeFirst()
            counters.reassembliesDropped += 1
        }
    }

    /// Drops unreliable reassemblies older than the timeout.
    mutating func expireReassemblies(now: Double) {
        let before = unreliableReassemblies.count
        unreliableReassemblies.removeAll { now - $0.started > limits.unreliableReassemblyTimeout }
        counters.reassembliesDropped += before - unreliableReassemblies.count
    }

    mutating func receiveUnreliableFragment(
        id: UInt16, index: Int, count: Int, bytes: [UInt8], now: Double, into delivered: inout [ReceivedMessage]
    ) throws(PacketError) {
        try checkFragmentedSize(count: count, index: index, size: bytes.count)
        var position = unreliableReassemblies.firstIndex { $0.messageID == id }
        if position == nil {
            if let newest = newestCompletedUnreliable, !sequenceGreaterThan(id, newest) {
                counters.fragmentsDropped += 1  // Its message completed, or a newer one did.
                return
            }
            while unreliableReassemblies.count >= limits.maximumUnreliableReassemblies {
                unreliableReassemblies.removeFirst()
                counters.reassembliesDropped += 1
            }
            makeRoom(for: count * PacketFormat.fragmentBytes)
            guard reassemblyBytes + count * PacketFormat.fragmentBytes <= limits.maximumReassemblyBytes else {
                counters.fragmentsDropped += 1  // The reliable message in reassembly holds the room.
                return
            }
            unreliableReassemblies.append(Reassembly(messageID: id, count: count, started: now))
            position = unreliableReassemblies.count - 1
        }
        guard let position else { return }
        let expected = unreliableReassemblies[position].count
        guard expected == count else { throw .fragmentCountMismatch(messageID: id, count: count, expected: expected) }
        guard unreliableReassemblies[position].store(index: index, bytes: bytes) else {
            counters.fragmentsDropped += 1
            return
        }
        guard unreliableReassemblies[position].isComplete else { return }
        delivered.append(ReceivedMessage(channel: .unreliable, bytes: unreliableReassemblies[position].message))
        unreliableReassemblies.remove(at: position)
        newestCompletedUnreliable = id
        let before = unreliableReassemblies.count
        unreliableReassemblies.removeAll { sequenceLessThan($0.messageID, id) }
        counters.reassembliesDropped += before - unreliableReassemblies.count
    }
}

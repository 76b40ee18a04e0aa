/// One message being put back together from its fragments, with room reserved for all of them.
struct Reassembly: Sendable {
    let messageID: UInt16
    let count: Int
    let started: Double
    private(set) var received: [Bool]
    private(set) var receivedCount = 0
    private(set) var buffer: [UInt8]
    private(set) var totalBytes = 0

    /// The bytes this reassembly holds reserved: its fragment count × 1024.
    var reservedBytes: Int { count * PacketFormat.fragmentBytes }
    var isComplete: Bool { receivedCount == count }

    init(messageID: UInt16, count: Int, started: Double) {
        self.messageID = messageID
        self.count = count
        self.started = started
        received = Array(repeating: false, count: count)
        buffer = Array(repeating: 0, count: count * PacketFormat.fragmentBytes)
    }

    /// Stores fragment `index` (whose size the decoder has checked); `false` when it was already held.
    mutating func store(index: Int, bytes: [UInt8]) -> Bool {
        guard !received[index] else { return false }
        received[index] = true
        receivedCount += 1
        let start = index * PacketFormat.fragmentBytes
        buffer.replaceSubrange(start..<(start + bytes.count), with: bytes)
        if index == count - 1 { totalBytes = start + bytes.count }
        return true
    }

    /// The whole message, once complete.
    var message: [UInt8] { Array(buffer[0..<totalBytes]) }
}

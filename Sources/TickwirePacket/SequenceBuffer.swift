/// A fixed-capacity ring indexed by 16-bit sequence number (reliable.io's sequence buffer):
/// entry `s` lives at slot `s mod capacity` and counts only while its stored sequence is `s`.
struct SequenceBuffer<Element: Sendable>: Sendable {
    let capacity: Int
    /// The newest sequence inserted; meaningful once `hasNewest`.
    private(set) var newest: UInt16 = 0
    private(set) var hasNewest = false
    private var sequences: [Int32]
    private var values: [Element?]

    init(capacity: Int) {
        self.capacity = capacity
        sequences = Array(repeating: -1, count: capacity)
        values = Array(repeating: nil, count: capacity)
    }

    /// Whether `sequence` is too old to be held: `capacity` or more behind the newest.
    func isStale(_ sequence: UInt16) -> Bool {
        guard hasNewest, !sequenceGreaterThan(sequence, newest) else { return false }
        return Int(newest &- sequence) >= capacity  // Wrapping distance, by design.
    }

    /// The entry for `sequence`, if held.
    func entry(_ sequence: UInt16) -> Element? {
        let slot = Int(sequence) % capacity
        return sequences[slot] == Int32(sequence) ? values[slot] : nil
    }

    func contains(_ sequence: UInt16) -> Bool { sequences[Int(sequence) % capacity] == Int32(sequence) }

    /// The entry that inserting `sequence` would overwrite (another sequence in the same slot).
    func displaced(by sequence: UInt16) -> (sequence: UInt16, value: Element)? {
        let slot = Int(sequence) % capacity
        guard sequences[slot] >= 0, sequences[slot] != Int32(sequence), let value = values[slot] else { return nil }
        return (UInt16(truncatingIfNeeded: sequences[slot]), value)
    }

    /// Stores `value` for `sequence`, clearing slots skipped since the newest; refuses stale sequences.
    @discardableResult
    mutating func insert(_ sequence: UInt16, _ value: Element) -> Bool {
        guard !isStale(sequence) else { return false }
        if !hasNewest {
            hasNewest = true
            newest = sequence
        } else if sequenceGreaterThan(sequence, newest) {
            let gap = Int(sequence &- newest)  // Wrapping distance, by design.
            if gap >= capacity {
                for slot in 0..<capacity { sequences[slot] = -1; values[slot] = nil }
            } else {
                var skipped = newest &+ 1
                while skipped != sequence {
                    let slot = Int(skipped) % capacity
                    sequences[slot] = -1
                    values[slot] = nil
                    skipped &+= 1
                }
            }
            newest = sequence
        }
        let slot = Int(sequence) % capacity
        sequences[slot] = Int32(sequence)
        values[slot] = value
        return true
    }

    /// Replaces the entry for `sequence` when it is held.
    mutating func update(_ sequence: UInt16, _ body: (inout Element) -> Void) {
        let slot = Int(sequence) % capacity
        guard sequences[slot] == Int32(sequence), var value = values[slot] else { return }
        body(&value)
        values[slot] = value
    }
}

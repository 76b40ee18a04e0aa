/// The replay protection window of one direction of one connection (256 entries, as the standard advises).
///
/// A sequence older than the most recent minus the window size is refused; within the window a
/// sequence is accepted once. ``advance(to:)`` runs only after the packet decrypted, so forged
/// packets cannot move the window. The comparison is written subtraction-side, so sequences near
/// `UInt64.max` are never misjudged (the reference's overflow erratum, `IMPLEMENTERS.md` §1).
public struct ReplayProtection: Hashable, Sendable {
    /// The most recent sequence received (0 before any).
    public private(set) var mostRecentSequence: UInt64 = 0
    /// The sequence held by each slot of the window, `UInt64.max` when empty.
    private var received: [UInt64] = Array(repeating: .max, count: Netcode.replayWindowSize)

    /// An empty window.
    public init() {}

    /// Whether `sequence` must be refused: too old, or already received.
    ///
    /// - Parameter sequence: The packet's sequence number.
    /// - Returns: true when the packet is a replay.
    public func isAlreadyReceived(_ sequence: UInt64) -> Bool {
        let size = UInt64(Netcode.replayWindowSize)
        if mostRecentSequence >= size && sequence <= mostRecentSequence - size { return true }
        let entry = received[Int(sequence % size)]
        if entry == .max { return false }
        return entry >= sequence
    }

    /// Records `sequence` as received (after its packet decrypted).
    ///
    /// - Parameter sequence: The packet's sequence number.
    public mutating func advance(to sequence: UInt64) {
        if sequence > mostRecentSequence { mostRecentSequence = sequence }
        received[Int(sequence % UInt64(Netcode.replayWindowSize))] = sequence
    }
}

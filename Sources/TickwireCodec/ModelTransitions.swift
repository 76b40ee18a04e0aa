/// Every adaptive model's successor, tabulated: entry `model << 1 | bit` is
/// ``RangeEncoder/adapted(_:_:)`` of `model` after coding `bit`, for all 2^16 models.
///
/// The range coder adapts a model per coded bit; one load from this table replaces the
/// arithmetic (the count's adaptation shift, the move, the count's advance), and the load is off
/// the coder's critical path (the next use of a model comes bits later). It is built once per
/// process, on first use, and is 256 KiB; it never changes or goes away after that.
final class ModelTransitions: @unchecked Sendable {
    // @unchecked: the entries are written only in `init`, before the instance is published
    // through the `shared` global's one-time initialization, and are only read afterwards.

    /// The table every range coder reads.
    static let shared = ModelTransitions()

    /// The `2 × 2^16` successors.
    let entries: UnsafePointer<UInt16>

    private init() {
        let count = 1 << 17
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: count)
        for model in 0..<(1 << 16) {
            table[model << 1] = RangeEncoder.adapted(UInt16(model), false)
            table[model << 1 | 1] = RangeEncoder.adapted(UInt16(model), true)
        }
        entries = UnsafePointer(table)
    }

    /// The model after coding `bit` with `model`.
    @inline(__always)
    static func next(_ model: UInt16, _ bit: Bool, in entries: UnsafePointer<UInt16>) -> UInt16 {
        entries[Int(model) &<< 1 | (bit ? 1 : 0)]
    }
}

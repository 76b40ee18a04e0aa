/// The memory one entropy-coded encode or decode works in: the snapshot's model table
/// (``EntropyModels``) and the motion builder's slots (``MotionBuilder``), in one heap
/// allocation per snapshot, never per entity.
///
/// A heap allocation, not a temporary one: a temporary allocation lives only inside a closure,
/// and the closures copied the snapshots and the codec (tens of reference counts per snapshot,
/// which a small room feels). The owner frees it with ``deallocate()`` when the call ends.
struct EntropyScratch {
    /// ``EntropyModels/tableSize(_:)`` probabilities.
    let table: UnsafeMutablePointer<UInt16>
    /// `slotCount` motion slots (at least one).
    let slots: UnsafeMutablePointer<Int64>
    /// How many motion slots ``slots`` holds.
    let slotCount: Int
    private let memory: UnsafeMutableRawPointer

    /// Allocates room for a table of `tableSize` probabilities and `slotCount` motion slots (at least one).
    init(tableSize: Int, slotCount: Int) {
        self.slotCount = max(1, slotCount)
        let slotBytes = self.slotCount * MemoryLayout<Int64>.stride
        memory = .allocate(byteCount: slotBytes + tableSize * MemoryLayout<UInt16>.stride, alignment: MemoryLayout<Int64>.alignment)
        slots = memory.bindMemory(to: Int64.self, capacity: self.slotCount)
        table = (memory + slotBytes).bindMemory(to: UInt16.self, capacity: tableSize)
    }

    /// Frees the memory; nothing may use ``table`` or ``slots`` after.
    func deallocate() {
        memory.deallocate()
    }
}

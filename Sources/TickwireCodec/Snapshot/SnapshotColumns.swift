/// A snapshot's four columns as buffer pointers, valid only inside ``Snapshot/withColumns(_:)``:
/// the coders' per-entity loops read them without an array's checks on every read.
struct SnapshotColumns {
    /// Entity ids, increasing.
    let ids: UnsafeBufferPointer<UInt32>
    /// Each entity's type index.
    let types: UnsafeBufferPointer<UInt8>
    /// Where each entity's values start in ``values``.
    let offsets: UnsafeBufferPointer<UInt32>
    /// The value pool.
    let values: UnsafeBufferPointer<UInt64>

    /// The number of entities.
    var count: Int { ids.count }
}

extension Snapshot {
    /// Runs `body` with this snapshot's columns as buffers, valid for the call only.
    func withColumns<Result, Failure: Error>(
        _ body: (SnapshotColumns) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try ids.withUnsafeBufferPointer { ids throws(Failure) in
            try types.withUnsafeBufferPointer { types throws(Failure) in
                try offsets.withUnsafeBufferPointer { offsets throws(Failure) in
                    try values.withUnsafeBufferPointer { values throws(Failure) in
                        try body(SnapshotColumns(ids: ids, types: types, offsets: offsets, values: values))
                    }
                }
            }
        }
    }
}

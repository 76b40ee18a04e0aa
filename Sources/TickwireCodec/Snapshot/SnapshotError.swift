/// Why an entity could not be added to a ``Snapshot``.
public struct SnapshotError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case duplicateEntity(UInt32)
        case unknownEntityType(Int, typeCount: Int)
        case tooManyEntities(limit: Int)
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// What was refused, naming the id, type or limit.
    public var description: String {
        switch reason {
        case let .duplicateEntity(id):
            "the snapshot already holds entity \(id)"
        case let .unknownEntityType(index, typeCount):
            "entity type index \(index) but the schema has \(typeCount) types"
        case let .tooManyEntities(limit):
            "a snapshot holds at most \(limit) entities"
        }
    }
}

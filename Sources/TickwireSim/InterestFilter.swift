import TickwireCodec

/// Decides, per client, which entities of a snapshot it sees.
///
/// The host calls it once per client per snapshot sent, with the room's snapshot and the
/// client's own entity (if the game gave it one), and delta-encodes the result against
/// what it sent that client before: an entity entering the view arrives as a creation,
/// one leaving it as a destruction.
public struct InterestFilter: Sendable {
    /// Returns the entity ids of `snapshot` the viewer sees, as a predicate on entity index.
    let includes: @Sendable (_ snapshot: Snapshot, _ viewer: Int?) -> (Int) -> Bool

    /// Creates a filter from a predicate factory.
    ///
    /// - Parameter includes: Given the snapshot and the index of the viewer's entity in it
    ///   (or `nil`), returns whether the entity at an index is visible.
    public init(includes: @escaping @Sendable (_ snapshot: Snapshot, _ viewer: Int?) -> (Int) -> Bool) {
        self.includes = includes
    }

    /// Entities within `radius` of the viewer's entity, measured on two fields (by name)
    /// that every type carrying them shares. Entities of types without those fields are
    /// always visible; a client without an entity sees everything.
    ///
    /// - Parameters:
    ///   - radius: The view radius, in the fields' units.
    ///   - xField: The name of the first coordinate field.
    ///   - yField: The name of the second coordinate field.
    ///   - schema: The game's schema (to resolve the field names).
    /// - Returns: The filter.
    public static func radius(_ radius: Double, xField: String = "x", yField: String = "y", schema: Schema) -> InterestFilter {
        let columns: [(Int, Int)?] = schema.entityTypes.map { type in
            guard let x = type.fieldIndex(named: xField), let y = type.fieldIndex(named: yField) else { return nil }
            return (x, y)
        }
        let radiusSquared = radius * radius
        return InterestFilter { snapshot, viewer in
            guard let viewer, let viewerColumns = columns[snapshot.typeIndex(at: viewer)] else { return { _ in true } }
            let cx = snapshot.double(at: viewer, field: viewerColumns.0)
            let cy = snapshot.double(at: viewer, field: viewerColumns.1)
            return { index in
                guard let own = columns[snapshot.typeIndex(at: index)] else { return true }
                let dx = snapshot.double(at: index, field: own.0) - cx
                let dy = snapshot.double(at: index, field: own.1) - cy
                return dx * dx + dy * dy <= radiusSquared
            }
        }
    }

    /// Applies the filter: a snapshot holding only the visible entities.
    ///
    /// - Parameters:
    ///   - snapshot: The room's snapshot.
    ///   - viewerEntity: The viewing client's entity id, if any.
    /// - Returns: The filtered snapshot (same tick and schema).
    public func apply(to snapshot: Snapshot, viewerEntity: UInt32?) -> Snapshot {
        let viewer = viewerEntity.flatMap { snapshot.index(of: $0) }
        let visible = includes(snapshot, viewer)
        var filtered = Snapshot(schema: snapshot.schema, tick: snapshot.tick)
        let types = snapshot.schema.entityTypes
        for index in snapshot.indices where index == viewer || visible(index) {
            let type = snapshot.typeIndex(at: index)
            // Insertion in ascending id order cannot fail: the ids come from a valid snapshot.
            guard let position = try? filtered.insert(id: snapshot.id(at: index), type: type) else { continue }
            for field in types[type].fields.indices {
                filtered.setValue(snapshot.value(at: index, field: field), at: position, field: field)
            }
        }
        return filtered
    }
}

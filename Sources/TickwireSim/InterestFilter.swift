import TickwireCodec

/// Decides, per client, which entities of a snapshot it sees.
///
/// The host prepares the filter once per tick on the room's snapshot
/// (``prepare(_:)``), then applies it once per client due a snapshot, with the client's
/// own entity (if the game gave it one), and delta-encodes the result against what it sent
/// that client before: an entity entering the view arrives as a creation, one leaving it
/// as a destruction.
public struct InterestFilter: Sendable {
    enum Rule: Sendable {
        case custom(@Sendable (_ snapshot: Snapshot, _ viewer: Int?, _ candidate: Int) -> Bool)
        case radius(Double, columns: [(Int, Int)?])
    }

    let rule: Rule

    /// A filter from a predicate: whether the entity at index `candidate` of `snapshot` is
    /// visible to the client whose entity is at index `viewer` (or who has none). The
    /// viewer's own entity is always visible.
    ///
    /// - Parameter isVisible: The predicate.
    public init(isVisible: @escaping @Sendable (_ snapshot: Snapshot, _ viewer: Int?, _ candidate: Int) -> Bool) {
        rule = .custom(isVisible)
    }

    private init(rule: Rule) { self.rule = rule }

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
        return InterestFilter(rule: .radius(radius, columns: columns))
    }

    /// Does the per-snapshot work once (for a radius: every entity's position).
    ///
    /// - Parameter snapshot: The room's snapshot of this tick.
    /// - Returns: The filter bound to that snapshot.
    public func prepare(_ snapshot: Snapshot) -> PreparedInterest {
        PreparedInterest(filter: self, snapshot: snapshot)
    }

    /// Applies the filter to one snapshot for one viewer (prepare and apply in one step).
    ///
    /// - Parameters:
    ///   - snapshot: The room's snapshot.
    ///   - viewerEntity: The viewing client's entity id, if any.
    /// - Returns: The filtered snapshot (same tick and schema).
    public func apply(to snapshot: Snapshot, viewerEntity: UInt32?) -> Snapshot {
        prepare(snapshot).view(for: viewerEntity)
    }
}

/// An ``InterestFilter`` bound to one snapshot, ready to cut per-client views from it.
public struct PreparedInterest: Sendable {
    let filter: InterestFilter
    /// The snapshot being filtered.
    public let snapshot: Snapshot
    private var xs: [Double] = []
    private var ys: [Double] = []
    private var positioned: [Bool] = []

    init(filter: InterestFilter, snapshot: Snapshot) {
        self.filter = filter
        self.snapshot = snapshot
        if case .radius(_, let columns) = filter.rule {
            xs.reserveCapacity(snapshot.count)
            ys.reserveCapacity(snapshot.count)
            positioned.reserveCapacity(snapshot.count)
            for index in snapshot.indices {
                if let (x, y) = columns[snapshot.typeIndex(at: index)] {
                    xs.append(snapshot.double(at: index, field: x))
                    ys.append(snapshot.double(at: index, field: y))
                    positioned.append(true)
                } else {
                    xs.append(0)
                    ys.append(0)
                    positioned.append(false)
                }
            }
        }
    }

    /// The snapshot as the client whose entity is `viewerEntity` sees it.
    ///
    /// - Parameter viewerEntity: The viewer's entity id, or `nil`.
    /// - Returns: The filtered snapshot (same tick and schema).
    public func view(for viewerEntity: UInt32?) -> Snapshot {
        let viewer = viewerEntity.flatMap { snapshot.index(of: $0) }
        var visible: [Int] = []
        switch filter.rule {
        case .custom(let isVisible):
            for index in snapshot.indices where index == viewer || isVisible(snapshot, viewer, index) { visible.append(index) }
        case .radius(let radius, _):
            guard let viewer, positioned[viewer] else { return snapshot }
            let cx = xs[viewer], cy = ys[viewer], limit = radius * radius
            xs.withUnsafeBufferPointer { xs in
                ys.withUnsafeBufferPointer { ys in
                    for index in 0..<xs.count {
                        let dx = xs[index] - cx, dy = ys[index] - cy
                        if dx * dx + dy * dy <= limit || !positioned[index] { visible.append(index) }
                    }
                }
            }
        }
        var filtered = Snapshot(schema: snapshot.schema, tick: snapshot.tick, capacity: visible.count)
        let types = snapshot.schema.entityTypes
        for index in visible {
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

import TickwireCodec

/// Decides, per client, which entities of a snapshot it sees.
///
/// The host prepares the filter once per tick on the room's snapshot
/// (`prepare(_:)`), then applies it once per client due a snapshot, with the client's
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
    func prepare(_ snapshot: Snapshot) -> PreparedInterest {
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
struct PreparedInterest: Sendable {
    let filter: InterestFilter
    /// The snapshot being filtered.
    let snapshot: Snapshot
    private var xs: [Double] = []
    private var ys: [Double] = []
    private var positioned: [Bool] = []
    /// Radius filters: entity indices bucketed in square cells at least one radius wide (a
    /// compressed-row grid: `cellStart[c] ..< cellStart[c + 1]` in `cellItems`), so a viewer
    /// checks only the 3 × 3 cells around it instead of every entity.
    private var cellSize = 0.0
    private var originX = 0.0
    private var originY = 0.0
    private var columns = 0
    private var rows = 0
    private var cellStart: [Int32] = []
    private var cellItems: [Int32] = []
    private var unpositioned: [Int] = []
    /// The most grid cells built per snapshot; a larger world gets wider cells.
    static var maximumCells: Int { 4096 }

    init(filter: InterestFilter, snapshot: Snapshot) {
        self.filter = filter
        self.snapshot = snapshot
        if case .radius(let radius, let columns) = filter.rule {
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
                    unpositioned.append(index)
                }
            }
            if radius > 0 { buildGrid(radius: radius) }
        }
    }

    private mutating func buildGrid(radius: Double) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for index in xs.indices where positioned[index] {
            minX = min(minX, xs[index]); maxX = max(maxX, xs[index])
            minY = min(minY, ys[index]); maxY = max(maxY, ys[index])
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return }
        var size = radius
        while ((maxX - minX) / size + 1) * ((maxY - minY) / size + 1) > Double(Self.maximumCells) { size *= 2 }
        cellSize = size
        originX = minX
        originY = minY
        columns = Int((maxX - minX) / size) + 1
        rows = Int((maxY - minY) / size) + 1
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        for index in xs.indices where positioned[index] { counts[cellIndex(xs[index], ys[index]) + 1] += 1 }
        for cell in 1..<counts.count { counts[cell] += counts[cell - 1] }
        cellStart = counts
        var fill = counts
        cellItems = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for index in xs.indices where positioned[index] {
            let cell = cellIndex(xs[index], ys[index])
            cellItems[Int(fill[cell])] = Int32(index)
            fill[cell] += 1
        }
    }

    private func cellIndex(_ x: Double, _ y: Double) -> Int {
        let column = min(max(Int((x - originX) / cellSize), 0), columns - 1)
        let row = min(max(Int((y - originY) / cellSize), 0), rows - 1)
        return row * columns + column
    }

    /// The snapshot as the client whose entity is `viewerEntity` sees it.
    ///
    /// - Parameter viewerEntity: The viewer's entity id, or `nil`.
    /// - Returns: The filtered snapshot (same tick and schema).
    func view(for viewerEntity: UInt32?) -> Snapshot {
        let viewer = viewerEntity.flatMap { snapshot.index(of: $0) }
        var visible: [Int] = []
        switch filter.rule {
        case .custom(let isVisible):
            for index in snapshot.indices where index == viewer || isVisible(snapshot, viewer, index) { visible.append(index) }
        case .radius(let radius, _):
            guard let viewer, positioned[viewer] else { return snapshot }
            let cx = xs[viewer], cy = ys[viewer], limit = radius * radius
            guard radius > 0, columns > 0 else { return snapshot }
            visible = unpositioned
            let centre = cellIndex(cx, cy)
            let column = centre % columns, row = centre / columns
            for cellRow in max(0, row - 1)...min(rows - 1, row + 1) {
                for cellColumn in max(0, column - 1)...min(columns - 1, column + 1) {
                    let cell = cellRow * columns + cellColumn
                    for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                        let index = Int(cellItems[slot])
                        let ex = xs[index] - cx, ey = ys[index] - cy
                        if ex * ex + ey * ey <= limit { visible.append(index) }
                    }
                }
            }
            // Snapshots keep entities in id order, which is index order.
            visible.sort()
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

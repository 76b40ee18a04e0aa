import TickwireCodec

/// A bounded, time-ordered buffer of received snapshots that a client samples at its
/// render time, interpolating each field by its kind.
///
/// Between two snapshots a field moves linearly (integers and floats), along the shorter
/// arc (angles) or steps at the later snapshot (booleans and enumerations), as its
/// ``FieldKind`` says. An entity is shown while the older bracketing snapshot holds it: one
/// created in the newer snapshot appears when the render time reaches it, one destroyed
/// there disappears then. Past the newest snapshot the buffer extrapolates from the last
/// two for at most ``maximumExtrapolation`` seconds, then holds.
struct InterpolationBuffer: Sendable {
    /// The most snapshots kept; older ones are dropped first.
    let capacity: Int
    /// The longest time past the newest snapshot the buffer extrapolates (seconds).
    var maximumExtrapolation: Double

    // A ring of `capacity` slots holding the `count` snapshots oldest first from `head`, so
    // that adding one to a full buffer or dropping old ones moves nothing. A dropped
    // snapshot's slot is emptied at once, so the buffer never keeps one alive.
    private var times: [Double]
    private var slots: [Snapshot?]
    private var head = 0
    /// How many snapshots the buffer holds.
    private(set) var count = 0

    /// Creates an empty buffer, with its `capacity` slots allocated up front.
    ///
    /// - Parameters:
    ///   - capacity: The most snapshots kept (at least 2).
    ///   - maximumExtrapolation: The longest extrapolation, in seconds.
    init(capacity: Int = 32, maximumExtrapolation: Double = 0.1) {
        self.capacity = max(2, capacity)
        self.maximumExtrapolation = maximumExtrapolation
        times = [Double](repeating: 0, count: self.capacity)
        slots = [Snapshot?](repeating: nil, count: self.capacity)
    }

    /// The slot of the `index`th snapshot, oldest first.
    private func slot(_ index: Int) -> Int {
        let slot = head + index
        return slot < capacity ? slot : slot - capacity
    }

    /// The server time of the `index`th snapshot, oldest first.
    private func time(_ index: Int) -> Double { times[slot(index)] }

    /// The `index`th snapshot, oldest first (`index` below ``count``).
    ///
    /// The `count` slots from `head` always hold a snapshot (``insert(_:serverTime:)`` fills a
    /// slot as it counts it, `dropOldest()` empties only the slot it counts out), so an empty
    /// one is a broken invariant of this type, never a caller's input: it stops the program.
    private func snapshot(_ index: Int) -> Snapshot {
        guard let snapshot = slots[slot(index)] else {
            preconditionFailure("interpolation buffer slot \(index) of \(count) is empty")
        }
        return snapshot
    }

    /// Empties the oldest slot.
    private mutating func dropOldest() {
        slots[head] = nil
        head = head + 1 == capacity ? 0 : head + 1
        count -= 1
    }

    /// The server time of the newest snapshot, if any.
    var newestTime: Double? { count > 0 ? time(count - 1) : nil }

    /// How many snapshots lie ahead of `renderTime`: the buffer depth a client tries to hold steady.
    ///
    /// - Parameter renderTime: The render time.
    /// - Returns: The number of snapshots newer than it.
    func depth(after renderTime: Double) -> Int {
        var depth = 0
        for index in 0..<count where time(index) > renderTime { depth += 1 }
        return depth
    }

    /// Adds a snapshot stamped with its server time. A snapshot older than or as old as the
    /// newest one held is ignored (they arrive in order on a reliable transport).
    ///
    /// - Parameters:
    ///   - snapshot: The full (decoded) snapshot.
    ///   - serverTime: Its server time, in seconds.
    /// - Returns: Whether it was added.
    @discardableResult
    mutating func insert(_ snapshot: Snapshot, serverTime: Double) -> Bool {
        if let newest = newestTime, serverTime <= newest { return false }
        if count == capacity { dropOldest() }
        let slot = slot(count)
        times[slot] = serverTime
        slots[slot] = snapshot
        count += 1
        return true
    }

    /// Drops snapshots no longer needed at `renderTime`, keeping the one just before it
    /// and always the newest two (so a starved buffer can still extrapolate).
    ///
    /// - Parameter renderTime: The current render time.
    mutating func discard(before renderTime: Double) {
        var keepFrom = 0
        while keepFrom + 2 < count, time(keepFrom + 1) <= renderTime { keepFrom += 1 }
        for _ in 0..<keepFrom { dropOldest() }
    }

    /// Empties the buffer (after a reconnect).
    mutating func removeAll() {
        for index in slots.indices { slots[index] = nil }
        head = 0
        count = 0
    }

    /// The world at `renderTime`, or `nil` when the buffer is empty.
    ///
    /// - Parameter renderTime: The time to sample, on the server's timeline (seconds).
    /// - Returns: The interpolated (or briefly extrapolated) view.
    func sample(at renderTime: Double) -> WorldView? {
        guard let newest = newestTime else { return nil }
        let oldest = time(0)
        if renderTime <= oldest || count == 1 && renderTime >= newest {
            let index = renderTime <= oldest ? 0 : count - 1
            return WorldView(snapshot: snapshot(index), time: renderTime)
        }
        if renderTime >= newest {
            let previous = count - 2
            let interval = newest - time(previous)
            let ahead = min(renderTime - newest, maximumExtrapolation)
            let fraction = 1 + (interval > 0 ? ahead / interval : 0)
            var view = Self.blend(snapshot(previous), snapshot(previous + 1), fraction: fraction, time: renderTime, extrapolating: true)
            view.isExtrapolated = renderTime > newest
            return view
        }
        var upper = 1
        while time(upper) <= renderTime { upper += 1 }
        let fraction = (renderTime - time(upper - 1)) / (time(upper) - time(upper - 1))
        return Self.blend(snapshot(upper - 1), snapshot(upper), fraction: fraction, time: renderTime, extrapolating: false)
    }

    /// Interpolates from `older` toward `newer` by `fraction` (above 1 extrapolates).
    /// When extrapolating, the entity set is the newer snapshot's; otherwise the older's.
    static func blend(_ older: Snapshot, _ newer: Snapshot, fraction: Double, time: Double, extrapolating: Bool) -> WorldView {
        let base = extrapolating ? newer : older
        let other = extrapolating ? older : newer
        var entities: [EntityView] = []
        entities.reserveCapacity(base.count)
        let types = base.schema.entityTypes
        for index in base.indices {
            let id = base.id(at: index)
            let type = base.typeIndex(at: index)
            let fields = types[type].fields
            var values = [Double](repeating: 0, count: fields.count)
            if let match = other.index(of: id), other.typeIndex(at: match) == type {
                let from = extrapolating ? match : index
                let to = extrapolating ? index : match
                for field in fields.indices {
                    values[field] = fields[field].kind.interpolate(
                        from: older.double(at: from, field: field), to: newer.double(at: to, field: field), fraction: fraction)
                }
            } else {
                for field in fields.indices { values[field] = base.double(at: index, field: field) }
            }
            entities.append(EntityView(id: id, typeIndex: type, values: values))
        }
        return WorldView(time: time, entities: entities)
    }
}

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
///
/// The host's lag-compensation history (``LagHistory``) is one of these keyed by tick instead
/// of server time, so that the server rewinds with exactly the client's rules; it passes a
/// `jumps` test so that an entity that teleported between two snapshots is never placed between
/// them (it stays where the older one has it, as a stepped field does).
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

    /// The time of the oldest snapshot held, if any.
    var oldestTime: Double? { count > 0 ? time(0) : nil }

    /// Where `renderTime` falls on the snapshots' tick numbers: the tick of the older bracketing
    /// snapshot plus the fraction of the way to the newer one's (past the newest, extrapolated as
    /// ``sample(at:jumps:)`` does). What a client tells a lag-compensating server it showed.
    ///
    /// - Parameter renderTime: The render time, on the server's timeline (seconds).
    /// - Returns: The render time in ticks, or `nil` when the buffer is empty.
    func ticks(at renderTime: Double) -> Double? {
        guard let newest = newestTime else { return nil }
        if renderTime <= time(0) || count == 1 { return Double(snapshot(renderTime <= time(0) ? 0 : count - 1).tick) }
        if renderTime >= newest {
            let previous = count - 2
            let interval = newest - time(previous)
            let ahead = min(renderTime - newest, maximumExtrapolation)
            let span = Double(snapshot(count - 1).tick &- snapshot(previous).tick)
            return Double(snapshot(count - 1).tick) + (interval > 0 ? ahead / interval * span : 0)
        }
        var upper = 1
        while time(upper) <= renderTime { upper += 1 }
        let fraction = (renderTime - time(upper - 1)) / (time(upper) - time(upper - 1))
        let older = snapshot(upper - 1).tick
        return Double(older) + fraction * Double(snapshot(upper).tick &- older)
    }

    /// The world at `renderTime`, or `nil` when the buffer is empty.
    ///
    /// - Parameters:
    ///   - renderTime: The time to sample, on the server's timeline (seconds).
    ///   - jumps: Whether an entity (id, older snapshot, its index there, newer snapshot, its
    ///     index there) jumped between two snapshots, so must not be interpolated; `nil` for none.
    /// - Returns: The interpolated (or briefly extrapolated) view.
    func sample(at renderTime: Double, jumps: Jumps? = nil) -> WorldView? {
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
            var view = Self.blend(
                snapshot(previous), snapshot(previous + 1), fraction: fraction, time: renderTime, extrapolating: true, jumps: jumps)
            view.isExtrapolated = renderTime > newest
            return view
        }
        var upper = 1
        while time(upper) <= renderTime { upper += 1 }
        let fraction = (renderTime - time(upper - 1)) / (time(upper) - time(upper - 1))
        return Self.blend(snapshot(upper - 1), snapshot(upper), fraction: fraction, time: renderTime, extrapolating: false, jumps: jumps)
    }

    /// Whether an entity jumped between two snapshots: its id, the older snapshot and its index
    /// there, the newer snapshot and its index there.
    typealias Jumps = (UInt32, Snapshot, Int, Snapshot, Int) -> Bool

    /// Interpolates from `older` toward `newer` by `fraction` (above 1 extrapolates).
    /// When extrapolating, the entity set is the newer snapshot's; otherwise the older's. An
    /// entity that `jumps` says jumped is not blended: it keeps the base snapshot's values.
    static func blend(
        _ older: Snapshot, _ newer: Snapshot, fraction: Double, time: Double, extrapolating: Bool, jumps: Jumps? = nil
    ) -> WorldView {
        let base = extrapolating ? newer : older
        let other = extrapolating ? older : newer
        var entities: [EntityView] = []
        entities.reserveCapacity(base.count)
        let types = base.schema.entityTypes
        let hasTexts = base.schema.needsTextFields
        for index in base.indices {
            let id = base.id(at: index)
            let type = base.typeIndex(at: index)
            let fields = types[type].fields
            var values = [Double](repeating: 0, count: fields.count)
            // Texts step (protocol 1.2): the older snapshot's until the newer one is reached.
            var texts: [Int: String] = [:]
            if let match = other.index(of: id), other.typeIndex(at: match) == type,
                !(jumps?(id, older, extrapolating ? match : index, newer, extrapolating ? index : match) ?? false)
            {
                let from = extrapolating ? match : index
                let to = extrapolating ? index : match
                for field in fields.indices {
                    values[field] = fields[field].kind.interpolate(
                        from: older.double(at: from, field: field), to: newer.double(at: to, field: field), fraction: fraction)
                }
                if hasTexts { texts = fraction < 1 ? EntityView.texts(of: older, at: from) : EntityView.texts(of: newer, at: to) }
            } else {
                for field in fields.indices { values[field] = base.double(at: index, field: field) }
                if hasTexts { texts = EntityView.texts(of: base, at: index) }
            }
            entities.append(EntityView(id: id, typeIndex: type, values: values, texts: texts))
        }
        return WorldView(time: time, entities: entities)
    }
}

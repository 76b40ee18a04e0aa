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
public struct InterpolationBuffer: Sendable {
    /// The most snapshots kept; older ones are dropped first.
    public let capacity: Int
    /// The longest time past the newest snapshot the buffer extrapolates (seconds).
    public var maximumExtrapolation: Double

    private var times: [Double] = []
    private var snapshots: [Snapshot] = []

    /// Creates an empty buffer.
    ///
    /// - Parameters:
    ///   - capacity: The most snapshots kept (at least 2).
    ///   - maximumExtrapolation: The longest extrapolation, in seconds.
    public init(capacity: Int = 32, maximumExtrapolation: Double = 0.1) {
        self.capacity = max(2, capacity)
        self.maximumExtrapolation = maximumExtrapolation
    }

    /// How many snapshots the buffer holds.
    public var count: Int { times.count }

    /// The server time of the newest snapshot, if any.
    public var newestTime: Double? { times.last }

    /// How many snapshots lie ahead of `renderTime`: the buffer depth a client tries to hold steady.
    ///
    /// - Parameter renderTime: The render time.
    /// - Returns: The number of snapshots newer than it.
    public func depth(after renderTime: Double) -> Int {
        times.reduce(0) { $0 + ($1 > renderTime ? 1 : 0) }
    }

    /// Adds a snapshot stamped with its server time. A snapshot older than or as old as the
    /// newest one held is ignored (they arrive in order on a reliable transport).
    ///
    /// - Parameters:
    ///   - snapshot: The full (decoded) snapshot.
    ///   - serverTime: Its server time, in seconds.
    /// - Returns: Whether it was added.
    @discardableResult
    public mutating func insert(_ snapshot: Snapshot, serverTime: Double) -> Bool {
        if let newest = times.last, serverTime <= newest { return false }
        times.append(serverTime)
        snapshots.append(snapshot)
        if times.count > capacity {
            times.removeFirst(times.count - capacity)
            snapshots.removeFirst(snapshots.count - capacity)
        }
        return true
    }

    /// Drops snapshots no longer needed at `renderTime`, keeping the one just before it
    /// and always the newest two (so a starved buffer can still extrapolate).
    ///
    /// - Parameter renderTime: The current render time.
    public mutating func discard(before renderTime: Double) {
        var keepFrom = 0
        while keepFrom + 2 < times.count, times[keepFrom + 1] <= renderTime { keepFrom += 1 }
        if keepFrom > 0 {
            times.removeFirst(keepFrom)
            snapshots.removeFirst(keepFrom)
        }
    }

    /// Empties the buffer (after a reconnect).
    public mutating func removeAll() {
        times.removeAll()
        snapshots.removeAll()
    }

    /// The world at `renderTime`, or `nil` when the buffer is empty.
    ///
    /// - Parameter renderTime: The time to sample, on the server's timeline (seconds).
    /// - Returns: The interpolated (or briefly extrapolated) view.
    public func sample(at renderTime: Double) -> WorldView? {
        guard let newest = times.last else { return nil }
        if renderTime <= times[0] || times.count == 1 && renderTime >= newest {
            let index = renderTime <= times[0] ? 0 : times.count - 1
            return WorldView(snapshot: snapshots[index], time: renderTime)
        }
        if renderTime >= newest {
            let previous = times.count - 2
            let interval = newest - times[previous]
            let ahead = min(renderTime - newest, maximumExtrapolation)
            let fraction = 1 + (interval > 0 ? ahead / interval : 0)
            var view = Self.blend(snapshots[previous], snapshots[previous + 1], fraction: fraction, time: renderTime, extrapolating: true)
            view.isExtrapolated = renderTime > newest
            return view
        }
        var upper = 1
        while times[upper] <= renderTime { upper += 1 }
        let fraction = (renderTime - times[upper - 1]) / (times[upper] - times[upper - 1])
        return Self.blend(snapshots[upper - 1], snapshots[upper], fraction: fraction, time: renderTime, extrapolating: false)
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

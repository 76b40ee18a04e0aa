import TickwireCodec

/// A room's captured snapshots of the last ``LagCompensationConfiguration/window``, for lag
/// compensation: an ``InterpolationBuffer`` keyed by tick rather than server time, so that a
/// rewound view follows the client's interpolation rules exactly, plus which entities teleported
/// at which tick, so that no view places one between its two places.
///
/// Kept only for a game that asks (``Game/compensatesLag``). Bounded: about `window × tick rate`
/// snapshots (each shared with the room's delta history while both hold it), and the teleports
/// of those ticks only.
struct LagHistory: Sendable {
    /// The settings it follows.
    let settings: LagCompensationConfiguration
    /// The room's ticks per second.
    let tickRate: Double
    /// The window in ticks.
    let windowTicks: Double
    private var buffer: InterpolationBuffer
    /// The entities the game marked as teleported, by the tick whose step moved them; only ticks
    /// that have some, oldest first, none older than the oldest snapshot held.
    private var teleports: [(tick: UInt32, ids: [UInt32])] = []
    /// When the newest snapshot was captured.
    private(set) var newestCaptureTime: Timestamp?

    /// Creates an empty history.
    ///
    /// - Parameters:
    ///   - settings: The window, tolerance and teleport rules.
    ///   - tickRate: The room's ticks per second.
    init(settings: LagCompensationConfiguration, tickRate: Int) {
        self.settings = settings
        self.tickRate = Double(max(1, tickRate))
        windowTicks = max(0, settings.window.secondsValue) * self.tickRate
        // The window's ticks, the present one, and one more so that the oldest tick of the
        // window still has its older bracketing snapshot after a rounding.
        let capacity = Int(min(windowTicks, 1_048_576).rounded(.up)) + 2
        buffer = InterpolationBuffer(capacity: capacity, maximumExtrapolation: 0)
    }

    /// How many snapshots the history holds.
    var count: Int { buffer.count }
    /// The most snapshots the history holds.
    var capacity: Int { buffer.capacity }
    /// The newest captured tick, if any.
    var newestTick: Double? { buffer.newestTime }
    /// The oldest tick a view may be rewound to: the oldest held, no older than the window.
    var oldestTick: Double? {
        guard let newest = buffer.newestTime, let oldest = buffer.oldestTime else { return nil }
        return max(oldest, newest - windowTicks)
    }

    /// Adds the snapshot a tick captured.
    ///
    /// - Parameters:
    ///   - snapshot: The room's full, unfiltered snapshot.
    ///   - time: When it was captured.
    ///   - teleported: The entities that jumped in the step that made it (``Game/teleportedEntities(in:)``).
    mutating func record(_ snapshot: Snapshot, at time: Timestamp, teleported: [UInt32]) {
        let tick = Double(snapshot.tick)
        if let newest = buffer.newestTime, tick <= newest {
            // The tick counter wrapped (after 2^32 ticks): start again.
            buffer.removeAll()
            teleports.removeAll()
        }
        buffer.insert(snapshot, serverTime: tick)
        buffer.discard(before: tick - windowTicks)
        newestCaptureTime = time
        if !teleported.isEmpty { teleports.append((snapshot.tick, teleported.sorted())) }
        if let oldest = buffer.oldestTime {
            var drop = 0
            while drop < teleports.count, Double(teleports[drop].tick) <= oldest { drop += 1 }
            if drop > 0 { teleports.removeFirst(drop) }
        }
    }

    /// The render time, in ticks, to rewind an input's view to.
    ///
    /// The estimate puts the client's render time at the input's arrival − half its round trip
    /// − ``LagCompensationConfiguration/assumedInterpolationDelay``. A claim further than the
    /// tolerance from it is replaced by it; the result is clamped to the window.
    ///
    /// - Parameters:
    ///   - claim: The client's render time for the input, in ticks, if it sent one.
    ///   - arrival: When the input arrived.
    ///   - roundTrip: The client's round trip, in seconds (0 when unknown).
    /// - Returns: The tick to rewind to, or `nil` before the first snapshot.
    func resolve(claim: Double?, arrival: Timestamp, roundTrip: Double) -> Double? {
        guard let newest = buffer.newestTime, let oldest = oldestTick, let captured = newestCaptureTime else { return nil }
        let estimatedTime = arrival.seconds - max(0, roundTrip) / 2 - settings.assumedInterpolationDelay.secondsValue
        let estimate = newest - (captured.seconds - estimatedTime) * tickRate
        var ticks = claim ?? estimate
        if let tolerance = settings.tolerance, !(abs(ticks - estimate) <= tolerance.secondsValue * tickRate) { ticks = estimate }
        return min(max(ticks, oldest), newest)
    }

    /// The world at `tick` (a tick with a fraction, within the history), interpolated with the
    /// client's rules, an entity that teleported between the bracketing snapshots held at the
    /// older one's place.
    ///
    /// - Parameter tick: The render time in ticks.
    /// - Returns: The view, or `nil` when the history is empty.
    func world(atTick tick: Double) -> WorldView? {
        let teleports = self.teleports
        let snapDistance = settings.snapDistance
        if teleports.isEmpty && snapDistance == nil { return buffer.sample(at: tick) }
        return buffer.sample(at: tick) { id, older, olderIndex, newer, newerIndex in
            for entry in teleports where entry.tick &- older.tick &- 1 < newer.tick &- older.tick {
                if entry.ids.contains(id) { return true }
            }
            guard let snapDistance else { return false }
            let fields = older.schema.entityTypes[older.typeIndex(at: olderIndex)].fields
            for field in fields.indices where fields[field].kind.interpolation == .linear {
                let moved = abs(newer.double(at: newerIndex, field: field) - older.double(at: olderIndex, field: field))
                if moved > snapDistance { return true }
            }
            return false
        }
    }
}

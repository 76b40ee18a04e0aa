import TickwireCodec

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hides small prediction corrections: when reconciliation moves the local player, the
/// displayed values keep the old position as an offset that decays exponentially, instead
/// of snapping; a correction larger than ``snapDistance`` (in any field) snaps.
///
/// Offsets apply to fields that interpolate linearly or along the shortest arc; step fields
/// (booleans, enumerations) always show the predicted value.
struct CorrectionSmoother: Sendable {
    /// The time for an offset to shrink to half (seconds).
    var halfLife: Double
    /// A correction larger than this in any field snaps instead of being smoothed.
    var snapDistance: Double

    private var offsets: [Double] = []
    /// The number of corrections observed (non-zero changes on reconciliation).
    private(set) var corrections = 0
    /// The largest correction observed, in field units.
    private(set) var largestCorrection = 0.0

    /// Creates a smoother.
    ///
    /// - Parameters:
    ///   - halfLife: Seconds for an offset to halve.
    ///   - snapDistance: Corrections larger than this snap.
    init(halfLife: Double = 0.05, snapDistance: Double = 2) {
        self.halfLife = halfLife
        self.snapDistance = snapDistance
    }

    /// Records a correction from `before` (what was predicted) to `after` (the reconciled
    /// prediction); the display keeps showing `before` and glides to `after`.
    ///
    /// - Parameters:
    ///   - before: The values predicted before the snapshot.
    ///   - after: The values predicted after reconciling.
    ///   - kinds: Each field's kind.
    ///   - threshold: Differences at or below this are not counted as corrections.
    mutating func correct(from before: [Double], to after: [Double], kinds: [FieldKind], threshold: Double = 1e-9) {
        guard before.count == after.count, after.count == kinds.count else { return }
        if offsets.count != after.count { offsets = [Double](repeating: 0, count: after.count) }
        var largest = 0.0
        var differences = [Double](repeating: 0, count: after.count)
        for field in after.indices {
            differences[field] = Self.difference(from: after[field], to: before[field], kind: kinds[field])
            largest = max(largest, abs(differences[field]))
        }
        guard largest > threshold else { return }
        corrections += 1
        largestCorrection = max(largestCorrection, largest)
        if largest > snapDistance {
            offsets = [Double](repeating: 0, count: after.count)
            return
        }
        for field in after.indices { offsets[field] += differences[field] }
    }

    /// Lets the offsets decay over `elapsed` seconds.
    ///
    /// - Parameter elapsed: Seconds since the last call.
    mutating func decay(by elapsed: Double) {
        guard elapsed > 0, halfLife > 0 else { return }
        let factor = pow(2, -elapsed / halfLife)
        for index in offsets.indices {
            offsets[index] *= factor
            if abs(offsets[index]) < 1e-9 { offsets[index] = 0 }
        }
    }

    /// The values to display: the prediction plus the remaining offsets.
    ///
    /// - Parameters:
    ///   - predicted: The predicted values.
    ///   - kinds: Each field's kind.
    /// - Returns: The displayed values.
    func display(_ predicted: [Double], kinds: [FieldKind]) -> [Double] {
        var shown = predicted
        display(&shown, kinds: kinds)
        return shown
    }

    /// Adds the remaining offsets to predicted values in place (no allocation, for every frame).
    ///
    /// - Parameters:
    ///   - values: The predicted values; on return, the displayed ones.
    ///   - kinds: Each field's kind.
    func display<Kinds: RandomAccessCollection>(_ values: inout [Double], kinds: Kinds)
    where Kinds.Element == FieldKind, Kinds.Index == Int {
        guard offsets.count == values.count, kinds.count == values.count else { return }
        for field in values.indices {
            let interpolation = kinds[kinds.startIndex + field].interpolation
            guard interpolation != .step else { continue }
            values[field] += offsets[field]
            if interpolation == .shortestArc {
                let turn = 2 * Double.pi
                values[field] = values[field].truncatingRemainder(dividingBy: turn)
                if values[field] < 0 { values[field] += turn }
            }
        }
    }

    /// The largest remaining offset, in field units.
    var remainingOffset: Double { offsets.map(abs).max() ?? 0 }

    /// Clears the offsets (after a reconnect).
    mutating func reset() {
        offsets.removeAll()
    }

    static func difference(from: Double, to: Double, kind: FieldKind) -> Double {
        switch kind.interpolation {
        case .step:
            return 0
        case .shortestArc:
            let turn = 2 * Double.pi
            var difference = (to - from).truncatingRemainder(dividingBy: turn)
            if difference > Double.pi { difference -= turn }
            if difference < -Double.pi { difference += turn }
            return difference
        default:
            return to - from
        }
    }
}

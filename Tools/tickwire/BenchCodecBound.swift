import Foundation
import Tickwire

/// The empirical zeroth-order bound of a scene's deltas, which `bench codec` prints beside each
/// encoding as the ratio of its bytes to the bound (`ratioToZerothOrderBound`).
///
/// For a baseline distance `d`, over the measured ticks `t` (each against tick `t − d`):
/// - **flags**: every survivor (an entity with the same id and type at both ticks) has a
///   changed/unchanged flag; with `p` the fraction of survivors that changed over the whole
///   run, the flags cost `N · H(p)` bits, `N` the number of survivor-ticks and
///   `H(p) = −p log2 p − (1 − p) log2 (1 − p)`;
/// - **fields**: for every field of every type, the symbols over all changed survivor-ticks:
///   "unchanged", or the delta `new − old` (wrapping fields: taken modulo 2^width and centred
///   on 0) for fields that may be sent as deltas (PROTOCOL.md §3.2), or the new value for the
///   others; each field costs its symbol count times the zeroth-order entropy of its symbols'
///   empirical distribution, `−Σ c_s/n · log2 (c_s/n)`;
/// - headers, created and destroyed entities cost nothing (none of the scenes but arena-1000
///   creates or destroys, and it replaces 0.5% of its entities per tick).
///
/// The bound is the sum in bits over all ticks, divided by 8 and the number of ticks: bytes per
/// snapshot. It is what a coder that knew each field's delta distribution in advance, and
/// coded every field of a changed entity on its own, would spend; a coder that models how the
/// fields of an entity change together can go below it.
enum BenchBound {
    static func bytesPerSnapshot(_ scene: BenchScene, distance: Int, ticks: [Int]) -> Double {
        let schema = scene.schema
        var survivors = 0, changedSurvivors = 0
        // Per (type, field): symbol → count. Symbols: nil = unchanged.
        var counts: [[[Int64?: Int]]] = schema.entityTypes.map { type in type.fields.map { _ in [:] } }
        for tick in ticks {
            let current = scene.snapshots[tick], baseline = scene.snapshots[tick - distance]
            var i = 0, j = 0
            while i < current.count && j < baseline.count {
                let id = current.id(at: i), oldID = baseline.id(at: j)
                if id < oldID { i += 1; continue }
                if oldID < id { j += 1; continue }
                let type = current.typeIndex(at: i)
                defer { i += 1; j += 1 }
                guard type == baseline.typeIndex(at: j) else { continue }
                survivors += 1
                let fields = schema.entityTypes[type].fields
                guard fields.indices.contains(where: { current.value(at: i, field: $0) != baseline.value(at: j, field: $0) }) else {
                    continue
                }
                changedSurvivors += 1
                for (field, descriptor) in fields.enumerated() {
                    let new = current.value(at: i, field: field), old = baseline.value(at: j, field: field)
                    counts[type][field][symbol(new: new, old: old, kind: descriptor.kind), default: 0] += 1
                }
            }
        }
        var bits = 0.0
        if survivors > 0 {
            let p = Double(changedSurvivors) / Double(survivors)
            if p > 0 && p < 1 { bits += Double(survivors) * (-p * log2(p) - (1 - p) * log2(1 - p)) }
        }
        for type in counts {
            for field in type {
                let total = Double(field.values.reduce(0, +))
                for count in field.values {
                    let share = Double(count) / total
                    bits -= Double(count) * log2(share)
                }
            }
        }
        return bits / 8 / Double(max(ticks.count, 1))
    }

    private static func symbol(new: UInt64, old: UInt64, kind: FieldKind) -> Int64? {
        guard new != old else { return nil }
        let width = kind.bitWidth
        let deltaCapable: Bool
        let wraps: Bool
        switch kind.interpolation {
        case .linear: deltaCapable = width >= 4 && width <= 62; wraps = false
        case .shortestArc: deltaCapable = width >= 4 && width <= 62; wraps = true
        default: deltaCapable = false; wraps = false
        }
        guard deltaCapable else { return Int64(bitPattern: new) }
        if wraps {
            let raw = (new &- old) & ((1 << UInt64(width)) - 1)
            return raw >= 1 << UInt64(width - 1) ? Int64(raw) - (1 << Int64(width)) : Int64(raw)
        }
        return Int64(new) - Int64(old)
    }
}

import TickwireFoundation

@testable import TickwireCodec

/// Schemas and snapshot builders shared by the codec suites.
enum TestSchemas {
    /// The arena schema of the benchmark: x, y, heading, health, state.
    static let arena: Schema = {
        // The codec vectors' arena schema: TickwireCodec's one definition.
        do {
            return try VectorSchemas.arena()
        } catch {
            fatalError("the arena test schema is valid: \(error)")
        }
    }()

    /// A random valid field kind.
    static func randomKind(_ rng: inout SplitMix64) -> FieldKind {
        switch rng.next() % 5 {
        case 0: return .bool
        case 1:
            let low = Int64.random(in: -1_000_000...1_000_000, using: &rng)
            let spans: [Int64] = [0, 1, 7, 100, 65_535, 1 << 40, Int64.max / 2, Int64.max]
            let span = spans.randomElement(using: &rng) ?? 1
            let (high, overflow) = low.addingReportingOverflow(span)
            return .integer(min: overflow ? Int64.min : low, max: overflow ? Int64.max : high)
        case 2:
            let low = Double(Int.random(in: -1000...1000, using: &rng))
            return .float(
                min: low, max: low + Double(Int.random(in: 1...2000, using: &rng)),
                resolution: [1.0, 0.5, 1.0 / 64, 0.01].randomElement(using: &rng) ?? 1)
        case 3: return .angle(bits: Int.random(in: 1...32, using: &rng))
        default: return .enumeration(cases: Int.random(in: 1...256, using: &rng))
        }
    }

    /// A random valid schema of 1...4 types with 0...12 fields each.
    static func randomSchema(_ rng: inout SplitMix64) throws -> Schema {
        let types = (0..<Int.random(in: 1...4, using: &rng)).map { typeNumber in
            EntityType(
                "type\(typeNumber)",
                fields: (0..<Int.random(in: 0...12, using: &rng)).map { fieldNumber in
                    Field("f\(fieldNumber)", randomKind(&rng))
                })
        }
        return try Schema(types)
    }

    /// Sets every field of the entity at `index` to a random quantized value.
    static func randomize(_ snapshot: inout Snapshot, at index: Int, _ rng: inout SplitMix64) {
        let type = snapshot.schema.entityTypes[snapshot.typeIndex(at: index)]
        for (field, descriptor) in type.fields.enumerated() {
            let top = descriptor.kind.maxQuantized
            snapshot.setValue(top == .max ? rng.next() : rng.next() % (top + 1), at: index, field: field)
        }
    }
}

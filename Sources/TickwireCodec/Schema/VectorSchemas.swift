/// The schemas `Protocol/vectors` codes its snapshots in, by their `# schema:` names: `arena` and
/// `mixed` (`PROTOCOL.md` §8.1), `busy` (§4.5.5) and `named` (§3.4, protocol 1.2).
///
/// `package`, not public: one definition for everything in this package that reads the vectors
/// (`tickwire conformance-decoder`, the codec's vector tests), and no part of a game's API. The
/// delta fuzzer's fixtures (`Tests/TickwireCodecTests/SnapshotFuzzerFixtures.swift`) use the
/// public API only and so spell `arena` and `mixed` out again; `ProtocolVectorTests` pins that
/// theirs have these fingerprints.
package enum VectorSchemas {
    /// The vector schema a `# schema:` line names, or `nil` for a name no vector uses.
    ///
    /// - Parameter name: `arena`, `mixed`, `busy` or `named`.
    /// - Returns: The schema.
    /// - Throws: ``SchemaError`` never in practice: each declaration is valid.
    package static func named(_ name: String) throws(SchemaError) -> Schema? {
        switch name {
        case "arena": try arena()
        case "mixed": try mixed()
        case "busy": try busy()
        case "named": try named()
        default: nil
        }
    }

    /// Arena positions: 1/64 of a unit over [-512, 512), 16 bits.
    static let position = FieldKind.float(min: -512, max: 511.984375, resolution: 1.0 / 64)

    /// `ship`: x, y, heading, health, state (§8.1).
    package static func arena() throws(SchemaError) -> Schema {
        try Schema([
            EntityType(
                "ship",
                fields: [
                    Field("x", position), Field("y", position), Field("heading", .angle(bits: 10)),
                    Field("health", .integer(min: 0, max: 100)), Field("state", .enumeration(cases: 8)),
                ])
        ])
    }

    /// Three types, one without fields, a 64-bit integer sent whole and a coarse float (§8.1).
    package static func mixed() throws(SchemaError) -> Schema {
        try Schema([
            EntityType(
                "a",
                fields: [
                    Field("flag", .bool), Field("score", .integer(min: -1000, max: 1000)), Field("mode", .enumeration(cases: 3)),
                ]),
            EntityType("b", fields: []),
            EntityType(
                "c",
                fields: [
                    Field("turn", .angle(bits: 8)), Field("wide", .integer(min: .min, max: .max)),
                    Field("level", .float(min: 0, max: 1, resolution: 0.1)),
                ]),
        ])
    }

    /// Two bools in one type, a 1-bit integer, an enumeration(2), a 40-bit integer, and field 2
    /// (`x`) in both types (§4.5.5).
    package static func busy() throws(SchemaError) -> Schema {
        try Schema([
            EntityType(
                "body",
                fields: [
                    Field("moving", .bool), Field("awake", .bool), Field("x", .integer(min: 0, max: 65535)),
                    Field("lit", .integer(min: 0, max: 1)), Field("side", .enumeration(cases: 2)),
                    Field("big", .integer(min: 0, max: (1 << 40) - 1)), Field("heading", .angle(bits: 8)),
                ]),
            EntityType(
                "marker",
                fields: [
                    Field("on", .bool), Field("kind", .enumeration(cases: 5)), Field("x", .integer(min: -1000, max: 1000)),
                    Field("y", .float(min: 0, max: 100, resolution: 0.5)), Field("hp", .integer(min: 0, max: 1000)),
                ]),
        ])
    }

    /// The text vectors' schema (§3.2, protocol 1.2): a name of at most 16 bytes, a motto at the
    /// largest bound (64), and a type without texts.
    package static func named() throws(SchemaError) -> Schema {
        try Schema([
            EntityType(
                "player",
                fields: [
                    Field("x", .integer(min: 0, max: 255)), Field("name", .text(maxBytes: 16)), Field("alive", .bool),
                    Field("motto", .text(maxBytes: 64)),
                ]),
            EntityType("stone", fields: [Field("x", .integer(min: 0, max: 255))]),
        ])
    }
}

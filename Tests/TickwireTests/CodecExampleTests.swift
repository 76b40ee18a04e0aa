import Testing
import Tickwire

/// The codec example of the DocC article `EmbeddingTickwire.md`: declare a schema, build two
/// snapshots, encode a delta, decode it.
@Suite("Codec example")
struct CodecExampleTests {
    @Test("declare a schema, build two snapshots, encode a delta and decode it")
    func snapshotDelta() throws {
        // 1. Declare what the game sends: one entity type, each field with its quantization.
        let schema = try Schema([
            EntityType(
                "ship",
                fields: [
                    Field("x", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
                    Field("y", .float(min: -512, max: 511.984375, resolution: 1.0 / 64)),
                    Field("heading", .angle(bits: 10)),
                    Field("health", .integer(min: 0, max: 100)),
                ])
        ])
        let ship = 0, x = 0, y = 1, heading = 2, health = 3

        // 2. Capture the world at tick 1...
        var tick1 = Snapshot(schema: schema, tick: 1)
        let first = try tick1.insert(id: 42, type: ship)
        tick1.set(10.0, at: first, field: x)
        tick1.set(-3.5, at: first, field: y)
        tick1.set(.pi / 2, at: first, field: heading)
        tick1.set(integer: 100, at: first, field: health)

        // ...and at tick 2: the ship moved a quarter unit and a second ship appeared.
        var tick2 = tick1
        tick2.tick = 2
        tick2.set(10.25, at: first, field: x)
        let second = try tick2.insert(id: 43, type: ship)
        tick2.set(integer: 80, at: second, field: health)

        // 3. The server encodes tick 2 as a delta against tick 1, which the client acknowledged...
        let codec = SnapshotCodec(schema: schema)
        let bytes = try codec.encode(tick2, against: tick1)

        // 4. ...and the client, holding tick 1, rebuilds tick 2 exactly.
        let received = try codec.decode(bytes, baseline: tick1)
        #expect(received == tick2)
        let ship42 = try #require(received.index(of: 42))
        #expect(received.double(at: ship42, field: x) == 10.25)

        #expect(bytes.count < 16, "the delta is \(bytes.count) bytes")
        #expect(try codec.encode(tick2, against: nil).count > bytes.count, "a full snapshot costs more")
    }
}

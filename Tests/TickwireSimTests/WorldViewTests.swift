import Testing
import TickwireCodec

@testable import TickwireSim

@Suite("WorldView fields")
struct WorldViewTests {
    static let schema = try! Schema([
        EntityType(
            "player",
            fields: [Field("x", .float(min: 0, max: 10, resolution: 0.25)), Field("hp", .integer(min: 0, max: 100)), Field("alive", .bool)]),
        EntityType("flag", fields: [Field("x", .float(min: 0, max: 10, resolution: 0.25))]),
    ])

    /// A view of one snapshot: player 1 at x 2.5 with 75 hp, alive; a flag at x 9.
    static func view() throws -> WorldView {
        var snapshot = Snapshot(schema: schema, tick: 1)
        let player = try snapshot.insert(id: 1, type: 0)
        snapshot.set(2.5, at: player, field: 0)
        snapshot.set(75, at: player, field: 1)
        snapshot.set(1, at: player, field: 2)
        let flag = try snapshot.insert(id: 2, type: 1)
        snapshot.set(9, at: flag, field: 0)
        return WorldView(snapshot: snapshot, time: 0.05)
    }

    @Test("an entity's fields read by typed key: Double, Int and Bool as declared; nil where its type has no such field")
    func byKey() throws {
        let view = try Self.view()
        let x = try Self.schema.key("x", as: Double.self)
        let hp = try Self.schema.key("hp", as: Int.self)
        let alive = try Self.schema.key("alive", as: Bool.self)
        let player = try #require(view.entity(id: 1))
        let flag = try #require(view.entity(id: 2))
        #expect(player[x] == 2.5 && player[hp] == 75 && player[alive] == true)
        #expect(flag[x] == 9, "x is the flag's field 0, resolved by the one key")
        #expect(flag[hp] == nil && flag[alive] == nil, "a flag has neither hp nor alive")
    }

    @Test("an entity's field read by name looks in its own type, and says what is wrong when it cannot")
    func byName() throws {
        let view = try Self.view()
        let player = try #require(view.entity(id: 1))
        let flag = try #require(view.entity(id: 2))
        #expect(try player.value("hp", as: Int.self, in: Self.schema) == 75)
        #expect(try flag.value("x", in: Self.schema) == 9)
        let missing = #expect(throws: FieldLookupError.self) { _ = try flag.value("hp", as: Int.self, in: Self.schema) }
        #expect(missing?.description.contains("no field 'hp' in entity type 'flag'") == true, "\(missing?.description ?? "no error")")
        let wrong = #expect(throws: FieldLookupError.self) { _ = try player.value("x", as: Bool.self, in: Self.schema) }
        #expect(wrong?.description.contains("cannot be read as Bool") == true, "\(wrong?.description ?? "no error")")
    }
}

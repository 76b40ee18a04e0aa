import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("InterestFilter")
struct InterestFilterTests {
    @Test(
        "the grid-accelerated radius filter keeps exactly the entities a brute-force distance check keeps", arguments: [5.0, 37.0, 300.0])
    func matchesBruteForce(radius: Double) throws {
        let schema = DotsGame.makeSchema()
        var random = SplitMix64(seed: UInt64(radius * 10))
        var snapshot = Snapshot(schema: schema, tick: 9)
        for id in 1...500 {
            let index = try snapshot.insert(id: UInt32(id * 3), type: id % 2)
            snapshot.set(Double(random.next() % 100_000) / 100 - 500, at: index, field: 0)
            snapshot.set(Double(random.next() % 100_000) / 100 - 500, at: index, field: 1)
        }
        let prepared = InterestFilter.radius(radius, schema: schema).prepare(snapshot)
        for viewerIndex in stride(from: 0, to: 500, by: 37) {
            let viewer = snapshot.id(at: viewerIndex)
            let cx = snapshot.double(at: viewerIndex, field: 0), cy = snapshot.double(at: viewerIndex, field: 1)
            let expected = snapshot.indices.filter { index in
                let dx = snapshot.double(at: index, field: 0) - cx, dy = snapshot.double(at: index, field: 1) - cy
                return dx * dx + dy * dy <= radius * radius
            }.map { snapshot.id(at: $0) }
            let view = prepared.view(for: viewer)
            #expect(view.entityIDs == expected, "viewer \(viewer), radius \(radius): \(view.count) seen, \(expected.count) expected")
            if let first = expected.first, let position = view.index(of: first), let source = snapshot.index(of: first) {
                #expect(view.value(at: position, field: 0) == snapshot.value(at: source, field: 0), "values are copied exactly")
            }
        }
        #expect(prepared.view(for: nil).count == 500, "a client without an entity sees everything")
    }

    @Test("a custom interest filter keeps the viewer and what the predicate accepts")
    func customFilter() throws {
        let snapshot = try InterpolationTestSchema.snapshot(tick: 3, balls: [(1, 0, 0, 0), (2, 5, 0, 1), (3, 9, 0, 2)])
        let evenModes = InterestFilter { snapshot, _, candidate in snapshot.value(at: candidate, field: 2) % 2 == 0 }
        let filtered = evenModes.apply(to: snapshot, viewerEntity: 2)
        #expect(filtered.entityIDs == [1, 2, 3], "entity 2 has an odd mode but is the viewer, so it stays")
        let noViewer = evenModes.apply(to: snapshot, viewerEntity: nil)
        #expect(noViewer.entityIDs == [1, 3])
        #expect(noViewer.tick == 3 && noViewer.double(at: 1, field: 0) == 9)
    }
}

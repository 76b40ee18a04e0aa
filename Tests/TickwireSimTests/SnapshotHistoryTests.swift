import Testing
import TickwireCodec

@testable import TickwireSim

@Suite("SnapshotHistory and RateMeter")
struct SnapshotHistoryTests {
    @Test("the history holds the last ticks within its capacity, and wraps around tick 2^32")
    func history() throws {
        let schema = InterpolationTestSchema.schema
        var history = SnapshotHistory(capacity: 4)
        for tick in UInt32.max - 2...UInt32.max { history.store(Snapshot(schema: schema, tick: tick)) }
        for tick: UInt32 in 1...2 { history.store(Snapshot(schema: schema, tick: tick)) }
        #expect(history.newestTick == 2)
        #expect(history.snapshot(at: UInt32.max) != nil && history.snapshot(at: 1) != nil)
        #expect(history.snapshot(at: UInt32.max - 2) == nil, "5 ticks back is beyond a capacity of 4")
        #expect(history.snapshot(at: 7) == nil)
    }

    @Test("storing returns the snapshot the slot held, for reuse")
    func storeReturnsDisplaced() {
        let schema = InterpolationTestSchema.schema
        var history = SnapshotHistory(capacity: 4)
        for tick: UInt32 in 1...4 {
            #expect(history.store(Snapshot(schema: schema, tick: tick)) == nil, "slot of tick \(tick) was empty")
        }
        let displaced = history.store(Snapshot(schema: schema, tick: 5))
        #expect(displaced?.tick == 1, "tick 5 takes tick 1's slot in a history of 4")
        #expect(history.snapshot(at: 1) == nil && history.snapshot(at: 5)?.tick == 5)
    }

    @Test("the rate meter reports the last complete second, and zero after a quiet one")
    func rateMeter() {
        var meter = RateMeter()
        meter.add(100, at: Timestamp(seconds: 0.1))
        meter.add(50, at: Timestamp(seconds: 0.9))
        meter.add(10, at: Timestamp(seconds: 1.2))
        #expect(meter.perSecond == 150)
        meter.roll(to: Timestamp(seconds: 3.5))
        #expect(meter.perSecond == 0)
        #expect(meter.total == 160)
    }
}

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

    @Test("a motion is kept beside its snapshot until the slot is taken; store(_:) and unknown ticks give the zero motion")
    func motions() throws {
        let schema = InterpolationTestSchema.schema
        let codec = SnapshotCodec(schema: schema)
        var first = Snapshot(schema: schema, tick: 1)
        let index = try first.insert(id: 9, type: 0)
        first.set(10, at: index, field: 0)
        var second = first
        second.tick = 3
        second.set(12.5, at: index, field: 0)
        var motion = SnapshotMotion.zero
        _ = try codec.encode(second, against: first, coding: .predictedEntropy, baselineMotion: .zero, motion: &motion)
        #expect(motion.span == 2 && motion.deltas == [250, 0, 0], "x moved 2.5 at a resolution of 0.01, over 2 ticks")

        var history = SnapshotHistory(capacity: 4)
        history.store(first)
        history.store(second, motion: motion)
        #expect(history.motion(at: 1) == .zero, "store(_:) keeps the zero motion")
        #expect(history.motion(at: 3) == motion)
        #expect(history.motion(at: 2) == .zero, "no snapshot of tick 2 is held")
        var later = second
        later.tick = 7
        history.store(later)
        #expect(history.motion(at: 3) == .zero && history.snapshot(at: 3) == nil, "tick 7 took tick 3's slot, motion and all")
        history.store(second, motion: motion)
        history.removeAll()
        #expect(history.motion(at: 3) == .zero)
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

@Suite("SnapshotHistory.receive: the message and its delta's header")
struct SnapshotHistoryReceiveTests {
    /// A message of `tick` and `baselineTick` around a delta encoded as `deltaTick` against `deltaBaseline`.
    static func receive(
        tick: UInt32, baselineTick: UInt32?, deltaTick: UInt32, deltaBaseline: UInt32?
    ) throws -> SnapshotReceipt {
        let schema = InterpolationTestSchema.schema
        let codec = SnapshotCodec(schema: schema)
        var history = SnapshotHistory(capacity: 8)
        for held: UInt32 in [9, 10] { history.store(Snapshot(schema: schema, tick: held)) }
        let delta = try codec.encode(
            Snapshot(schema: schema, tick: deltaTick), against: deltaBaseline.map { Snapshot(schema: schema, tick: $0) })
        let message = Message.Snapshot(tick: tick, baselineTick: baselineTick, lastProcessedInput: 0, serverTime: 0, delta: delta)
        var spare: Snapshot?
        return history.receive(message, codec: codec, coding: .bitPacked, spare: &spare)
    }

    @Test("a delta whose header repeats the message's tick and baseline is stored")
    func agreeing() throws {
        guard case .stored(let snapshot) = try Self.receive(tick: 12, baselineTick: 10, deltaTick: 12, deltaBaseline: 10) else {
            Issue.record("a delta of tick 12 against 10 in a message of tick 12 against 10 should be stored")
            return
        }
        #expect(snapshot.tick == 12)
    }

    @Test(
        "a delta whose header disagrees with its message is refused, even when its own baseline is held (PROTOCOL.md 5.6)",
        arguments: [
            (UInt32(12), UInt32?(10), UInt32(11), UInt32?(9)),  // another tick, the same distance
            (12, 10, 12, 9),  // the same tick, another baseline, held
            (12, 10, 11, 10),  // another tick against the same baseline
            (12, 10, 12, nil),  // a whole snapshot in a message that names a baseline
            (12, nil, 12, 10),  // a delta in a message of distance 0
            (12, nil, 13, nil),  // whole, another tick
        ])
    func disagreeing(tick: UInt32, baselineTick: UInt32?, deltaTick: UInt32, deltaBaseline: UInt32?) throws {
        let receipt = try Self.receive(tick: tick, baselineTick: baselineTick, deltaTick: deltaTick, deltaBaseline: deltaBaseline)
        guard case .undecodable = receipt else {
            Issue.record(
                "a delta of tick \(deltaTick) against \(deltaBaseline.map(String.init) ?? "none") in a message of tick \(tick) against \(baselineTick.map(String.init) ?? "none") was not refused: \(receipt)"
            )
            return
        }
    }
}

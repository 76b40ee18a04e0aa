import Testing
import TickwireCodec

@testable import TickwireSim

/// A one-type schema for interpolation tests: x (linear), heading (angle), mode (step).
enum InterpolationTestSchema {
    static let schema: Schema = {
        do {
            return try Schema([
                EntityType(
                    "ball",
                    fields: [
                        Field("x", .float(min: -1000, max: 1000, resolution: 0.01)),
                        Field("heading", .angle(bits: 16)),
                        Field("mode", .enumeration(cases: 4)),
                    ])
            ])
        } catch {
            fatalError("test schema is invalid: \(error)")
        }
    }()

    static func snapshot(tick: UInt32, balls: [(id: UInt32, x: Double, heading: Double, mode: Double)]) throws -> Snapshot {
        var snapshot = Snapshot(schema: schema, tick: tick)
        for ball in balls {
            let index = try snapshot.insert(id: ball.id, type: 0)
            snapshot.set(ball.x, at: index, field: 0)
            snapshot.set(ball.heading, at: index, field: 1)
            snapshot.set(ball.mode, at: index, field: 2)
        }
        return snapshot
    }
}

@Suite("InterpolationBuffer")
struct InterpolationBufferTests {
    @Test("interpolates per field kind: linear, shortest arc, step")
    func perKind() throws {
        var buffer = InterpolationBuffer()
        let twoPi = 2 * Double.pi
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 1, balls: [(1, 0, twoPi - 0.1, 1)]), serverTime: 1.0)
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 2, balls: [(1, 10, 0.1, 2)]), serverTime: 1.1)
        let view = try #require(buffer.sample(at: 1.075))
        let ball = try #require(view.entity(id: 1))
        #expect(abs(ball.values[0] - 7.5) < 0.011, "x halfway-and-a-half from 0 to 10 is 7.5, got \(ball.values[0])")
        #expect(abs(ball.values[1] - 0.05) < 0.001, "the heading crosses zero the short way, got \(ball.values[1])")
        #expect(ball.values[2] == 1, "the mode steps only at the later snapshot")
        #expect(!view.isExtrapolated)
    }

    @Test("entities appear and disappear when the render time reaches the snapshot that changes them")
    func creationAndDestruction() throws {
        var buffer = InterpolationBuffer()
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 1, balls: [(1, 0, 0, 0)]), serverTime: 1.0)
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 2, balls: [(2, 5, 0, 0)]), serverTime: 1.1)
        let before = try #require(buffer.sample(at: 1.05))
        #expect(before.entities.map(\.id) == [1])
        let after = try #require(buffer.sample(at: 1.1))
        #expect(after.entities.map(\.id) == [2])
    }

    @Test("extrapolates when starved, but no further than the bound")
    func boundedExtrapolation() throws {
        var buffer = InterpolationBuffer(maximumExtrapolation: 0.1)
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 1, balls: [(1, 0, 0, 0)]), serverTime: 1.0)
        buffer.insert(try InterpolationTestSchema.snapshot(tick: 2, balls: [(1, 10, 0, 0)]), serverTime: 1.1)
        let short = try #require(buffer.sample(at: 1.15))
        #expect(short.isExtrapolated)
        #expect(abs((short.entity(id: 1)?.values[0] ?? 0) - 15) < 0.02)
        let long = try #require(buffer.sample(at: 3.0))
        #expect(abs((long.entity(id: 1)?.values[0] ?? 0) - 20) < 0.02, "extrapolation stops 0.1 s past the newest snapshot")
    }

    @Test("keeps order and capacity, discards what the render time has passed")
    func bookkeeping() throws {
        var buffer = InterpolationBuffer(capacity: 4)
        for tick in 1...6 {
            buffer.insert(try InterpolationTestSchema.snapshot(tick: UInt32(tick), balls: []), serverTime: Double(tick))
        }
        #expect(buffer.count == 4)
        #expect(!buffer.insert(try InterpolationTestSchema.snapshot(tick: 2, balls: []), serverTime: 2), "an old snapshot is ignored")
        #expect(buffer.depth(after: 4.5) == 2)
        buffer.discard(before: 4.5)
        #expect(buffer.count == 3, "the snapshot just before the render time is kept")
        buffer.discard(before: 10)
        #expect(buffer.count == 2, "the newest two are always kept, for extrapolation")
        buffer.removeAll()
        #expect(buffer.sample(at: 1) == nil)
    }

    @Test("wrapping around its ring: sampling, discarding and inserting agree with the time order")
    func ringWrapAround() throws {
        var buffer = InterpolationBuffer(capacity: 3)
        // Ball 1's x is 10 × its tick; insert, sample and discard past the ring's end several times.
        for tick in 1...11 {
            buffer.insert(
                try InterpolationTestSchema.snapshot(tick: UInt32(tick), balls: [(1, Double(10 * tick), 0, 0)]),
                serverTime: Double(tick))
            #expect(buffer.count == min(tick, 3), "after tick \(tick) the buffer should hold \(min(tick, 3))")
            #expect(buffer.newestTime == Double(tick))
            if tick >= 2 {
                let view = try #require(buffer.sample(at: Double(tick) - 0.5))
                let x = try #require(view.entity(id: 1)).values[0]
                #expect(abs(x - (Double(10 * tick) - 5)) < 0.011, "halfway between ticks \(tick - 1) and \(tick), x is \(x)")
            }
            if tick % 4 == 0 {
                buffer.discard(before: Double(tick) - 0.5)
                #expect(buffer.count == 2, "at tick \(tick) the newest two are kept")
            }
        }
        let oldest = try #require(buffer.sample(at: 0).flatMap { $0.entity(id: 1) })
        #expect(abs(oldest.values[0] - 90) < 0.011, "the oldest held snapshot is tick 9, x 90, got \(oldest.values[0])")
    }
}

@Suite("PredictionBuffer and CorrectionSmoother")
struct PredictionTests {
    @Test("reconciliation drops applied inputs and replays the rest")
    func reconcile() {
        var buffer = PredictionBuffer<Double>()
        for sequence in 1...5 { buffer.record(Double(sequence), sequence: UInt32(sequence)) }
        #expect(buffer.newest(3) == [5, 4, 3])
        let state = buffer.reconcile(authoritative: 100.0, lastProcessed: 3) { $0 + $1 }
        #expect(state == 109, "authoritative 100 plus replayed inputs 4 and 5")
        #expect(buffer.pendingSequences == [4, 5])
    }

    @Test("small corrections glide, large ones snap")
    func smoothing() {
        var smoother = CorrectionSmoother(halfLife: 0.1, snapDistance: 2)
        let kinds: [FieldKind] = [.float(min: -100, max: 100, resolution: 0.01)]
        smoother.correct(from: [10], to: [11], kinds: kinds)
        #expect(smoother.display([11], kinds: kinds) == [10], "the display first stays where it was")
        smoother.decay(by: 0.1)
        #expect(abs(smoother.display([11], kinds: kinds)[0] - 10.5) < 1e-9, "after one half-life half the correction remains")
        smoother.correct(from: [0], to: [50], kinds: kinds)
        #expect(smoother.display([50], kinds: kinds) == [50], "a large correction snaps")
        #expect(smoother.corrections == 2)
    }
}

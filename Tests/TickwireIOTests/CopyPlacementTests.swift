import Testing
import TickwireIO

@Suite("CopyPlacement")
struct CopyPlacementTests {
    /// A copy large enough to be timed, costing `perKiB` nanoseconds per KiB.
    static func record(_ placement: inout CopyPlacement, perKiB: UInt64) {
        let bytes = CopyPlacement.timedBytes
        placement.record(nanoseconds: perKiB * UInt64(bytes / 1024), bytes: bytes)
    }

    /// Runs `copies` copies, each costing what `cost(shift)` says for the shift it was given,
    /// and returns the shifts in order.
    static func run(_ placement: inout CopyPlacement, copies: Int, cost: (Int) -> UInt64) -> [Int] {
        (0..<copies).map { _ in
            let shift = placement.nextShift()
            record(&placement, perKiB: cost(shift))
            return shift
        }
    }

    @Test("tries the first placement, then the second, before choosing")
    func measuresBothFirst() {
        var placement = CopyPlacement()
        #expect(placement.chosenShift == nil, "nothing is chosen before anything is measured")
        let shifts = Self.run(&placement, copies: 2) { _ in 100 }
        #expect(shifts == [0, 32], "each placement must be measured once first, got \(shifts)")
        #expect(placement.chosenShift != nil)
    }

    @Test("keeps the faster placement and tries the other once every trial interval", arguments: [0, 32])
    func keepsTheFaster(fast: Int) {
        var placement = CopyPlacement()
        let copies = 2 + 3 * (CopyPlacement.trialInterval + 1)
        let shifts = Self.run(&placement, copies: copies) { $0 == fast ? 50 : 400 }
        #expect(placement.chosenShift == fast, "a copy at \(fast) costs an eighth of the other")
        let afterMeasuring = shifts.dropFirst(2)
        let trials = afterMeasuring.filter { $0 != fast }.count
        #expect(trials == 3, "one trial per \(CopyPlacement.trialInterval) copies, got \(trials) in \(afterMeasuring.count)")
        #expect(
            Array(afterMeasuring.prefix(CopyPlacement.trialInterval)).allSatisfy { $0 == fast },
            "the faster placement serves the copies between trials")
    }

    @Test("moves to the other placement when the costs swap")
    func followsAChange() {
        var placement = CopyPlacement()
        _ = Self.run(&placement, copies: 40) { $0 == 0 ? 50 : 400 }
        #expect(placement.chosenShift == 0)
        _ = Self.run(&placement, copies: 200) { $0 == 32 ? 50 : 400 }
        #expect(placement.chosenShift == 32, "the trials must notice the other placement became the fast one")
    }

    @Test("ignores copies too small to time")
    func ignoresSmallCopies() {
        var placement = CopyPlacement()
        for _ in 0..<10 {
            _ = placement.nextShift()
            placement.record(nanoseconds: 1_000_000, bytes: CopyPlacement.timedBytes - 1)
        }
        #expect(placement.chosenShift == nil, "a copy under \(CopyPlacement.timedBytes) bytes must not count")
        #expect(placement.nextShift() == 0, "still measuring the first placement")
    }
}

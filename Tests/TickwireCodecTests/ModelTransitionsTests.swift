import Testing

@testable import TickwireCodec

/// The range coder's tabulated model adaptation (``ModelTransitions``) against its definition.
@Suite("Range coder model transitions")
struct ModelTransitionsTests {
    @Test("every tabulated successor is RangeEncoder.adapted of its model and bit")
    func tableMatchesDefinition() {
        let entries = ModelTransitions.shared.entries
        var mismatches = 0
        for model in 0...Int(UInt16.max) {
            for bit in [false, true]
            where ModelTransitions.next(UInt16(model), bit, in: entries) != RangeEncoder.adapted(UInt16(model), bit) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test("a fresh model moves half-way on its first bit, then by smaller steps")
    func firstSteps() {
        let entries = ModelTransitions.shared.entries
        let fresh = RangeEncoder.initialProbability
        // Probability 2048/4096 of a 0, nothing seen: a 0 moves it half-way to 4096 (shift 1).
        let afterZero = ModelTransitions.next(fresh, false, in: entries)
        #expect(afterZero == 3072 << 4 | 1)
        // Then a 1 moves it a quarter of the way to 0 (shift 2): 3072 − 768.
        #expect(ModelTransitions.next(afterZero, true, in: entries) == 2304 << 4 | 2)
        // A saturated count stays at 15, with the slowest move (shift 4).
        #expect(ModelTransitions.next(2048 << 4 | 15, false, in: entries) == (2048 + 128) << 4 | 15)
    }
}

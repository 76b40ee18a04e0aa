import Testing
import TickwireFoundation

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("matches the reference sequence for seed 1234567")
    func referenceSequence() {
        // Reference values from the original C implementation (splitmix64.c, seed 1234567).
        var generator = SplitMix64(seed: 1_234_567)
        let expected: [UInt64] = [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ]
        #expect((0..<5).map { _ in generator.next() } == expected)
    }

    @Test("equal seeds give equal sequences, different seeds differ")
    func determinism() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42), c = SplitMix64(seed: 43)
        let first = (0..<16).map { _ in a.next() }
        #expect(first == (0..<16).map { _ in b.next() })
        #expect(first != (0..<16).map { _ in c.next() })
    }
}

/// A small, fast, seeded random number generator (Steele, Lea and Flood's SplitMix64).
///
/// Everything that must be the same run after run draws from one of these: benchmark
/// scenes, property tests, the simulated network. It is not cryptographically secure.
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's whole state; the same state always yields the same sequence.
    public private(set) var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    ///
    /// - Parameter seed: Any value; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next value of the sequence.
    public mutating func next() -> UInt64 {
        // Wrapping arithmetic is the algorithm: the state is a Weyl sequence mod 2^64.
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

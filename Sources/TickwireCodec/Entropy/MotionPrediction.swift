/// The prediction of the motion-predicted entropy coding (`Protocol/PROTOCOL.md` §4.5.6),
/// shared by its encoder and decoder.
///
/// Only the numbers: the baseline's motion itself stays with the coder, so that reading this
/// never copies (and retains) the motion's lists.
struct MotionPrediction {
    /// The new snapshot's baseline age.
    let age: UInt32
    /// The ticks the baseline's motion spans.
    let span: UInt32
    /// Whether this snapshot's header says the motion is used.
    let isUsed: Bool

    /// No prediction: the plain coding's, or a header that does not use the motion.
    static let unused = MotionPrediction(age: 1, span: 1, isUsed: false)

    /// The largest age and span a prediction may use.
    static let maximumTicks: UInt32 = 255
    /// The largest motion magnitude: motion fields are at most 32 bits wide.
    static let maximumMagnitude: UInt64 = (1 << 32) - 1

    /// Whether an encoder predicts a snapshot `age` ticks after its baseline, whose motion spans `span`.
    static func isUsable(age: UInt32, span: UInt32) -> Bool {
        (1...maximumTicks).contains(age) && (1...maximumTicks).contains(span)
    }

    /// Whether a field takes part in motion: linear deltas (integers and floats), at most 32 bits wide.
    @inline(__always)
    static func isMotionField(_ layout: TypeLayout.FieldLayout) -> Bool {
        layout.deltaMode == .linear && layout.width <= 32
    }

    /// The baseline's motion `motion`, scaled from its span to this snapshot's age, rounded
    /// half away from zero.
    @inline(__always)
    func scaled(_ motion: Int64) -> Int64 {
        guard age != span, motion != 0 else { return motion }
        let magnitude = min(motion.magnitude, Self.maximumMagnitude)
        let scaled = Int64((magnitude * UInt64(age) + UInt64(span / 2)) / UInt64(max(span, 1)))
        return motion < 0 ? -scaled : scaled
    }

    /// The predicted value of a field whose baseline value is `old` and scaled motion `motion`:
    /// `old + motion`, clamped to `0...maxQuantized`.
    @inline(__always)
    static func predicted(old: UInt64, motion: Int64, maxQuantized: UInt64) -> UInt64 {
        // old < 2^32 and |motion| < 2^40 for motion fields: the sum fits.
        let sum = Int64(old) + motion
        if sum <= 0 { return 0 }
        return min(UInt64(sum), maxQuantized)
    }
}

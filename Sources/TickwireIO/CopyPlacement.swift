/// Which of two placements, 32 bytes apart modulo 64, to give the user-space side of a
/// connection's socket copies (where its reads land, or where its sends come from), chosen by
/// timing them.
///
/// Linux copies socket data with `rep movsb`, which on some CPUs (AMD Zen 3, for one) runs many
/// times slower when the destination lies 1–31 bytes past the source modulo 64 (BENCHMARKS.md,
/// "The `rep movsb` cliff"). The kernel's side of each copy is a page fragment that its writer
/// filled at an offset following the bytes the writer had written. When the user-space side
/// follows the connection's stream position modulo 64 as well, the two stay a fixed distance
/// apart for as long as the writer serves only this connection, and of two placements 32 bytes
/// apart one is always clear of the cliff. With many connections behind one writer the distance
/// wanders and neither placement wins; the timing then changes nothing.
///
/// The kernel's offset is not visible, so this times large copies under each placement, keeps
/// the faster, and tries the other every ``trialInterval`` copies in case the distance moved.
///
/// The benchmark's load client uses it (`tickwire bench ws`): WebSocket headers move a stream
/// off the 64-byte grid that a TCP echo of 64 KiB messages stays on, and without it the client's
/// own receive copies took 27 µs per 64 KiB echo of ours against 5 µs of the TCP echo's. Our
/// server's copies showed no such cost in the same profiles, so it does not use it.
package struct CopyPlacement {
    /// Smoothed nanoseconds per KiB under each placement (`0` until measured).
    private var costs: (first: Double, second: Double) = (0, 0)
    /// The placement in use: `false` for the first, `true` for the one 32 bytes further.
    private var usesSecond = false
    /// Timed copies since the placement not in use was last tried.
    private var copiesSinceTrial = 0
    /// The placement of the copy in progress.
    private var copyUsesSecond = false

    /// Copies shorter than this are not timed: the system call's fixed cost would hide the copy's.
    package static let timedBytes = 16 * 1024
    /// How often the placement not in use is tried again, in timed copies.
    package static let trialInterval = 16

    /// Starts with neither placement measured.
    package init() {}

    /// The placement for the next copy: `0` or `32`, to add to the stream position before taking
    /// it modulo 64. Each placement is tried once before either is chosen.
    package mutating func nextShift() -> Int {
        if costs.first == 0 || costs.second == 0 {
            copyUsesSecond = costs.first != 0
        } else {
            copyUsesSecond = copiesSinceTrial >= Self.trialInterval ? !usesSecond : usesSecond
        }
        return copyUsesSecond ? 32 : 0
    }

    /// Records how long a copy of `bytes` took under the placement ``nextShift()`` last returned;
    /// copies under ``timedBytes`` are ignored.
    ///
    /// - Parameters:
    ///   - nanoseconds: The system call's duration.
    ///   - bytes: The bytes it copied.
    package mutating func record(nanoseconds: UInt64, bytes: Int) {
        guard bytes >= Self.timedBytes else { return }
        let perKiB = max(Double(nanoseconds) * 1024 / Double(bytes), .leastNonzeroMagnitude)
        if copyUsesSecond {
            costs.second = costs.second == 0 ? perKiB : costs.second * 0.75 + perKiB * 0.25
        } else {
            costs.first = costs.first == 0 ? perKiB : costs.first * 0.75 + perKiB * 0.25
        }
        copiesSinceTrial = copyUsesSecond == usesSecond ? copiesSinceTrial + 1 : 0
        if costs.first > 0 && costs.second > 0 { usesSecond = costs.second < costs.first }
    }

    /// The placement in use (`0` or `32`) once both are measured, else `nil`.
    package var chosenShift: Int? {
        costs.first > 0 && costs.second > 0 ? (usesSecond ? 32 : 0) : nil
    }
}

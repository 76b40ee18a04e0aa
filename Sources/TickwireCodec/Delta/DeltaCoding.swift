/// How a snapshot's entities are coded on the wire: the bit-packed format every peer decodes
/// (`Protocol/PROTOCOL.md` §4.1), or the entropy-coded extension (§4.5) that a client offers
/// in its hello and the server chooses in its welcome (§5.3, §5.4).
public struct DeltaCoding: Hashable, Sendable, CustomStringConvertible {
    let isEntropy: Bool
    /// Whether deltas extrapolate the baseline's motion (§4.5.6).
    public let predictsMotion: Bool

    /// The bit-packed format of §4.1: what version 1 peers speak.
    public static let bitPacked = DeltaCoding(isEntropy: false, predictsMotion: false)
    /// The entropy-coded format of §4.5: an adaptive binary range coder with per-field context
    /// models; fewer bytes, a few times the coding time.
    public static let entropy = DeltaCoding(isEntropy: true, predictsMotion: false)
    /// The entropy-coded format with motion prediction (§4.5.6): each moving value is coded as
    /// its distance from where the baseline's own motion (``SnapshotMotion``) puts it. Far
    /// fewer bytes for worlds of things in flight; both ends keep a motion beside each baseline.
    public static let predictedEntropy = DeltaCoding(isEntropy: true, predictsMotion: true)

    /// The coding's name: `bitPacked`, `entropy` or `predictedEntropy`.
    public var description: String { isEntropy ? (predictsMotion ? "predictedEntropy" : "entropy") : "bitPacked" }
}

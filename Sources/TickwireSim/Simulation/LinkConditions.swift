/// The behaviour of one direction of a simulated connection.
///
/// Each frame's one-way delay is `latency` plus a uniformly drawn extra delay in
/// `0...jitter`, plus the time to serialize it at `bandwidth` behind the frames already
/// queued. In ``Delivery-swift.struct/reliable`` mode (what TCP gives a WebSocket) frames
/// are never lost or reordered: a frame drawn a shorter delay than its predecessor waits
/// for it, so jitter shows up as head-of-line delay. In ``Delivery-swift.struct/unreliable``
/// mode each frame travels on its own: it may be lost, duplicated, or overtaken.
public struct LinkConditions: Hashable, Sendable {
    /// How frames are delivered.
    public struct Delivery: Hashable, Sendable, CustomStringConvertible {
        let isReliable: Bool
        /// In order, without loss or duplication (TCP, WebSocket).
        public static let reliable = Delivery(isReliable: true)
        /// Each frame independently: loss, duplication and reordering apply (UDP-like).
        public static let unreliable = Delivery(isReliable: false)
        /// `reliable` or `unreliable`.
        public var description: String { isReliable ? "reliable" : "unreliable" }
    }

    /// The fixed part of the one-way delay.
    public var latency: Duration
    /// The largest extra delay drawn per frame (uniformly in `0...jitter`).
    public var jitter: Duration
    /// Bytes per second the link carries, or `nil` for unlimited.
    public var bandwidth: Int?
    /// Reliable-ordered or unreliable delivery.
    public var delivery: Delivery
    /// In unreliable mode, the probability (0...1) that a frame is lost.
    public var lossRate: Double
    /// In unreliable mode, the probability (0...1) that a frame arrives twice.
    public var duplicationRate: Double
    /// In unreliable mode, the probability (0...1) that a frame is held back an extra
    /// `latency + jitter`, letting later frames overtake it.
    public var reorderRate: Double

    /// Creates link conditions.
    ///
    /// - Parameters:
    ///   - latency: The fixed one-way delay.
    ///   - jitter: The largest extra per-frame delay.
    ///   - bandwidth: Bytes per second, or `nil` for unlimited.
    ///   - delivery: Reliable (default) or unreliable.
    ///   - lossRate: Unreliable mode: probability of loss.
    ///   - duplicationRate: Unreliable mode: probability of duplication.
    ///   - reorderRate: Unreliable mode: probability of being held back and overtaken.
    public init(
        latency: Duration = .zero, jitter: Duration = .zero, bandwidth: Int? = nil,
        delivery: Delivery = .reliable, lossRate: Double = 0, duplicationRate: Double = 0, reorderRate: Double = 0
    ) {
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = bandwidth
        self.delivery = delivery
        self.lossRate = lossRate
        self.duplicationRate = duplicationRate
        self.reorderRate = reorderRate
    }

    /// A perfect link: no delay, no limits.
    public static let perfect = LinkConditions()
}

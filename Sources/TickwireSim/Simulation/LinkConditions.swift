/// The behaviour of one direction of a simulated connection.
///
/// Each frame's one-way delay is `latency` plus a uniformly drawn extra delay in
/// `0...jitter`, plus the time to serialize it at `bandwidth` behind the frames already
/// queued. What loss does depends on the kind of transport the link stands for, its
/// ``delivery-swift.property``:
/// - ``Delivery-swift.struct/reliable``, a reliable-ordered stream (TCP under a WebSocket): frames
///   are never lost, duplicated or reordered. A frame drawn a shorter delay than its predecessor
///   waits for it, so jitter shows up as head-of-line delay, and ``lossRate`` loses TCP segments,
///   which the sender retransmits: the frame holding one arrives a retransmission later (about
///   one round trip and a bit while later segments keep flowing, else the retransmission
///   timeout), and every frame behind it waits.
/// - ``Delivery-swift.struct/unreliable``, datagrams (UDP): each frame travels on its own and may
///   be lost at ``lossRate``, duplicated, or overtaken.
public struct LinkConditions: Hashable, Sendable {
    /// How frames are delivered: the kind of transport a link stands for.
    public struct Delivery: Hashable, Sendable, CustomStringConvertible {
        let isReliable: Bool

        private init(isReliable: Bool) { self.isReliable = isReliable }

        /// In order, without loss or duplication (TCP, WebSocket): a lost segment is retransmitted
        /// and the frames behind it wait.
        public static let reliable = Delivery(isReliable: true)
        /// Each frame independently: loss, duplication and reordering apply (UDP datagrams).
        public static let unreliable = Delivery(isReliable: false)
        /// `reliable` or `unreliable`.
        public var description: String { isReliable ? "reliable" : "unreliable" }

        /// The delivery of the transport a URL scheme names: reliable for `ws` and `wss` (a WebSocket
        /// over TCP), unreliable for `udp`.
        ///
        /// - Parameter scheme: A URL scheme, without `://`, in any case.
        /// - Returns: The delivery, or `nil` for a scheme Tickwire has no transport for.
        public init?(urlScheme scheme: String) {
            switch scheme.lowercased() {
            case "ws", "wss": self = .reliable
            case "udp": self = .unreliable
            default: return nil
            }
        }
    }

    /// The fixed part of the one-way delay.
    public var latency: Duration
    /// The largest extra delay drawn per frame (uniformly in `0...jitter`).
    public var jitter: Duration
    /// Bytes per second the link carries, or `nil` for unlimited.
    public var bandwidth: Int?
    /// Reliable-ordered (TCP) or unreliable (datagram) delivery.
    public var delivery: Delivery
    /// The probability (0...1) that a packet is lost. In unreliable mode a frame is lost; in
    /// reliable mode each TCP segment of a frame (up to 1448 bytes) is, and is retransmitted, so
    /// the frame and those behind it arrive late instead.
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
    ///   - lossRate: Probability of loss: of a frame (unreliable mode), or of a TCP segment, which is
    ///     retransmitted (reliable mode).
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

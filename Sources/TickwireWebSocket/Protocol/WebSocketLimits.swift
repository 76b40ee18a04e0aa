/// Size limits a ``WebSocketProtocolMachine`` enforces on what it receives.
///
/// Breaking either limit fails the connection with close code 1009 (message too big)
/// before the oversized data is buffered: a frame's declared length is checked as soon as
/// its header is read, a message's running size as each frame header arrives, and a
/// compressed message's inflated size while it inflates.
///
/// With permessage-deflate the limits are about the data: a compressed message (and each
/// of its frames) may be larger than its data by deflate's worst-case expansion on
/// incompressible input (``deflateExpansion(of:)``), so a message at the limit is accepted
/// whatever its content; its inflated size must still stay within ``maximumMessageBytes``.
public struct WebSocketLimits: Hashable, Sendable {
    /// The largest payload accepted in a single frame. Default 16 MiB.
    public var maximumFramePayloadBytes: Int
    /// The largest message accepted: the sum of a fragmented message's frames, and for a
    /// compressed message both its compressed and its inflated size. Default 16 MiB.
    public var maximumMessageBytes: Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maximumFramePayloadBytes: The largest payload of one frame.
    ///   - maximumMessageBytes: The largest (reassembled, inflated) message.
    public init(maximumFramePayloadBytes: Int = 16 << 20, maximumMessageBytes: Int = 16 << 20) {
        self.maximumFramePayloadBytes = max(0, maximumFramePayloadBytes)
        self.maximumMessageBytes = max(0, maximumMessageBytes)
    }

    /// 16 MiB per frame and per message.
    public static let `default` = WebSocketLimits()

    /// How much larger than `bytes` a deflated message of `bytes` may be: stored blocks cost
    /// 5 bytes per 64 KiB, so 1/64 plus 1 KiB is a generous bound.
    ///
    /// - Parameter bytes: A data size.
    /// - Returns: The extra compressed bytes allowed.
    public static func deflateExpansion(of bytes: Int) -> Int {
        bytes / 64 + 1024
    }
}

/// How a ``WebSocketProtocolMachine`` behaves: its limits and how it sends.
public struct WebSocketConfiguration: Hashable, Sendable {
    /// Limits on what is received.
    public var limits: WebSocketLimits
    /// When set, outgoing messages longer than this are split into frames of at most this
    /// many payload bytes; when `nil` every message goes out as one frame.
    public var outgoingFragmentBytes: Int?
    /// With permessage-deflate negotiated, messages shorter than this are sent uncompressed
    /// (deflate's overhead outweighs its gain on tiny payloads). Default 0: compress everything.
    public var minimumBytesToCompress: Int

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - limits: Limits on what is received.
    ///   - outgoingFragmentBytes: Largest outgoing frame payload, or `nil` for one frame per message.
    ///   - minimumBytesToCompress: Shortest message compressed when permessage-deflate is on.
    public init(limits: WebSocketLimits = .default, outgoingFragmentBytes: Int? = nil, minimumBytesToCompress: Int = 0) {
        self.limits = limits
        self.outgoingFragmentBytes = outgoingFragmentBytes.map { max(1, $0) }
        self.minimumBytesToCompress = minimumBytesToCompress
    }
}

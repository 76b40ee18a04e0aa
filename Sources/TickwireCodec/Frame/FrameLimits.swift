import TickwireZlib

/// The limits a frame encoder and decoder enforce, all checked before anything is allocated.
///
/// ``standard`` holds the protocol's values (`Protocol/PROTOCOL.md` section 7.2): every
/// conforming peer accepts frames within them, so an encoder using them never produces a frame
/// a peer refuses. A receiver may use smaller limits to protect itself (for example a server
/// that wants small input frames); a sender should not use larger ones.
public struct FrameLimits: Hashable, Sendable {
    /// The most bytes one frame may have on the wire, type byte included (protocol value 1 MiB).
    public var maximumFrameBytes: Int
    /// The most bytes a message body may have once inflated (protocol value 1 MiB).
    public var maximumBodyBytes: Int
    /// Once an inflated body passes ``inflationRatioAllowanceBytes``, it must stay below this
    /// many bytes per compressed byte (protocol value 256).
    public var maximumInflationRatio: Int
    /// Inflated bodies up to this size are never refused for their ratio (protocol value 64 KiB):
    /// small frames in a streaming context legitimately inflate far beyond any ratio.
    public var inflationRatioAllowanceBytes: Int
    /// The most inputs one input message may carry (protocol value 32).
    public var maximumInputsPerMessage: Int
    /// The most bytes one encoded input may have (protocol value 512).
    public var maximumInputBytes: Int
    /// The most UTF-8 bytes of a reason text in a reject or disconnect (protocol value 256).
    public var maximumTextBytes: Int
    /// The most bytes of a resume token (protocol value 64).
    public var maximumResumeTokenBytes: Int
    /// The most UTF-8 bytes of a room name (protocol value 64).
    public var maximumRoomNameBytes: Int
    /// The most bytes of a hello's application payload (protocol value 1024).
    public var maximumHelloPayloadBytes: Int

    /// The protocol's limits, which every peer accepts.
    public static let standard = FrameLimits(
        maximumFrameBytes: 1 << 20,
        maximumBodyBytes: 1 << 20,
        maximumInflationRatio: 256,
        inflationRatioAllowanceBytes: 64 << 10,
        maximumInputsPerMessage: 32,
        maximumInputBytes: 512,
        maximumTextBytes: 256,
        maximumResumeTokenBytes: 64,
        maximumRoomNameBytes: 64,
        maximumHelloPayloadBytes: 1024
    )

    /// Creates a set of limits; every argument defaults to the protocol's value.
    ///
    /// - Parameters:
    ///   - maximumFrameBytes: The most bytes of a frame on the wire.
    ///   - maximumBodyBytes: The most bytes of an inflated body.
    ///   - maximumInflationRatio: The inflation ratio a large body must stay below.
    ///   - inflationRatioAllowanceBytes: Bodies up to this size are exempt from the ratio.
    ///   - maximumInputsPerMessage: The most inputs per input message.
    ///   - maximumInputBytes: The most bytes per input.
    ///   - maximumTextBytes: The most UTF-8 bytes of a reason text.
    ///   - maximumResumeTokenBytes: The most bytes of a resume token.
    ///   - maximumRoomNameBytes: The most UTF-8 bytes of a room name.
    ///   - maximumHelloPayloadBytes: The most bytes of a hello's application payload.
    public init(
        maximumFrameBytes: Int = 1 << 20,
        maximumBodyBytes: Int = 1 << 20,
        maximumInflationRatio: Int = 256,
        inflationRatioAllowanceBytes: Int = 64 << 10,
        maximumInputsPerMessage: Int = 32,
        maximumInputBytes: Int = 512,
        maximumTextBytes: Int = 256,
        maximumResumeTokenBytes: Int = 64,
        maximumRoomNameBytes: Int = 64,
        maximumHelloPayloadBytes: Int = 1024
    ) {
        self.maximumFrameBytes = maximumFrameBytes
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumInflationRatio = maximumInflationRatio
        self.inflationRatioAllowanceBytes = inflationRatioAllowanceBytes
        self.maximumInputsPerMessage = maximumInputsPerMessage
        self.maximumInputBytes = maximumInputBytes
        self.maximumTextBytes = maximumTextBytes
        self.maximumResumeTokenBytes = maximumResumeTokenBytes
        self.maximumRoomNameBytes = maximumRoomNameBytes
        self.maximumHelloPayloadBytes = maximumHelloPayloadBytes
    }

    /// Shortens a text to fit ``maximumTextBytes`` without splitting a character, for the text
    /// of a reject or disconnect built from an arbitrary message.
    ///
    /// - Parameter text: Any text.
    /// - Returns: `text` itself when it fits, else its longest prefix of whole characters that does.
    func fittingText(_ text: String) -> String {
        guard text.utf8.count > maximumTextBytes else { return text }
        var result = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            if count + size > maximumTextBytes { break }
            result.append(character)
            count += size
        }
        return result
    }

    /// The ``InflationLimit`` for one frame body: the body size cap and the ratio cap.
    var inflationLimit: InflationLimit {
        InflationLimit(
            maximumBytes: maximumBodyBytes, maximumRatio: maximumInflationRatio,
            ratioAllowanceBytes: inflationRatioAllowanceBytes
        )
    }
}

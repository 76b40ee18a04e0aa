/// How the frames of one connection are compressed, agreed in the hello and welcome.
///
/// An extensible value (`Protocol/PROTOCOL.md` section 6). In every mode a frame is sent
/// compressed only when that makes it smaller, and the compressed flag (the type byte's high
/// bit) says which it is.
public struct CompressionMode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The mode's number as the welcome carries it.
    public let rawValue: UInt8

    /// Creates a mode from its number.
    ///
    /// - Parameter rawValue: The number; `nil` unless it names a known mode.
    public init?(rawValue: UInt8) {
        guard rawValue <= 2 else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// No compression: the compressed flag is never set.
    public static let none = CompressionMode(0)
    /// Each frame's body compressed alone in the zlib format (RFC 1950), ended with `Z_FINISH`.
    public static let perFrame = CompressionMode(1)
    /// One raw deflate stream per connection and direction (RFC 1951), each frame's body ended
    /// with a sync flush whose trailing `00 00 FF FF` is stripped (as RFC 7692 with context
    /// takeover). Small repetitive frames compress far better than alone.
    public static let streaming = CompressionMode(2)

    /// The mode's name: `none`, `perFrame` or `streaming`.
    public var description: String {
        switch rawValue {
        case 0: "none"
        case 1: "perFrame"
        default: "streaming"
        }
    }
}

/// The compression modes a client can use, offered in its hello as a bit set.
///
/// Bit 0 is ``CompressionMode/perFrame``, bit 1 ``CompressionMode/streaming``; ``CompressionMode/none``
/// is always available and has no bit. Bits this build does not know are kept, so a hello
/// re-encodes byte for byte, and ignored when choosing.
public struct CompressionModes: OptionSet, Hashable, Sendable {
    /// The bit set as the hello carries it.
    public let rawValue: UInt8

    /// Creates a set from its bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Per-frame zlib compression.
    public static let perFrame = CompressionModes(rawValue: 1 << 0)
    /// A streaming deflate context per connection.
    public static let streaming = CompressionModes(rawValue: 1 << 1)
    /// Every mode this build knows.
    public static let all: CompressionModes = [.perFrame, .streaming]

    /// Whether the set offers `mode`; ``CompressionMode/none`` is always offered.
    ///
    /// - Parameter mode: The mode to look for.
    /// - Returns: `true` when a peer that offered this set can use `mode`.
    public func offers(_ mode: CompressionMode) -> Bool {
        switch mode {
        case .none: true
        case .perFrame: contains(.perFrame)
        case .streaming: contains(.streaming)
        default: false
        }
    }

    /// Picks the first mode of `preferences` that this set offers, as a server answering a hello.
    ///
    /// - Parameter preferences: The server's modes, most wanted first.
    /// - Returns: The chosen mode; ``CompressionMode/none`` when nothing else matches.
    public func choose(from preferences: [CompressionMode]) -> CompressionMode {
        preferences.first(where: offers) ?? .none
    }
}

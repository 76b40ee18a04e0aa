/// An error from the zlib layer: a failed stream set-up, corrupt compressed data,
/// or inflated output that would break an ``InflationLimit``.
///
/// A `struct` wrapping a private enum, so that new cases are not breaking changes.
public struct ZlibError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case initializationFailed(code: Int32)
        case corruptData(code: Int32, message: String)
        case truncated
        case inflatedSizeExceeded(limit: Int)
        case ratioExceeded(ratio: Int, inputBytes: Int)
        case invalidWindowBits(Int)
        case invalidLevel(Int)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// zlib refused to set up a stream (`deflateInit2` or `inflateInit2` returned `code`).
    public static func initializationFailed(code: Int32) -> ZlibError { ZlibError(.initializationFailed(code: code)) }

    /// The compressed input is not valid deflate data.
    public static func corruptData(code: Int32, message: String) -> ZlibError {
        ZlibError(.corruptData(code: code, message: message))
    }

    /// The compressed input ended before its stream did.
    public static let truncated = ZlibError(.truncated)

    /// Inflating the input would produce more than `limit` bytes.
    public static func inflatedSizeExceeded(limit: Int) -> ZlibError { ZlibError(.inflatedSizeExceeded(limit: limit)) }

    /// Inflating `inputBytes` bytes would produce more than `ratio` times as many.
    public static func ratioExceeded(ratio: Int, inputBytes: Int) -> ZlibError {
        ZlibError(.ratioExceeded(ratio: ratio, inputBytes: inputBytes))
    }

    /// A window size outside 9...15 bits was asked for.
    public static func invalidWindowBits(_ bits: Int) -> ZlibError { ZlibError(.invalidWindowBits(bits)) }

    /// A compression level outside 0...9 was asked for.
    public static func invalidLevel(_ level: Int) -> ZlibError { ZlibError(.invalidLevel(level)) }

    /// Whether the error is about a broken ``InflationLimit`` (size or ratio), as opposed to bad data.
    public var isLimitExceeded: Bool {
        switch kind {
        case .inflatedSizeExceeded, .ratioExceeded: true
        default: false
        }
    }

    /// The error in words, naming the limit or zlib's own message.
    public var description: String {
        switch kind {
        case .initializationFailed(let code): "zlib stream initialization failed (code \(code))"
        case .corruptData(let code, let message): "corrupt deflate data (zlib code \(code): \(message))"
        case .truncated: "compressed data ended before the end of its stream"
        case .inflatedSizeExceeded(let limit): "inflated data exceeds the limit of \(limit) bytes"
        case .ratioExceeded(let ratio, let input):
            "inflated data exceeds \(ratio)× its \(input) compressed bytes (possible deflate bomb)"
        case .invalidWindowBits(let bits): "window bits \(bits) outside 9...15"
        case .invalidLevel(let level): "compression level \(level) outside 0...9"
        }
    }
}

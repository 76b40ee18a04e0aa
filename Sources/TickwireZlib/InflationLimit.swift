/// Bounds on how much data one inflation may produce: the defence against deflate bombs.
///
/// Output is refused once it passes ``maximumBytes``, or once it passes both
/// ``ratioAllowanceBytes`` and ``maximumRatio`` times the compressed input's size.
/// The allowance lets a small message inflate well past the ratio when it refers to
/// data earlier in a streaming context (context takeover), as long as it stays small.
public struct InflationLimit: Hashable, Sendable {
    /// The most bytes one inflation may produce.
    public var maximumBytes: Int
    /// The most output bytes per compressed input byte, once output passes ``ratioAllowanceBytes``.
    public var maximumRatio: Int
    /// Output up to this size is never refused for its ratio.
    public var ratioAllowanceBytes: Int

    /// Creates a limit.
    ///
    /// - Parameters:
    ///   - maximumBytes: The most bytes one inflation may produce.
    ///   - maximumRatio: The most output bytes per input byte beyond the allowance.
    ///   - ratioAllowanceBytes: Output up to this size is never refused for its ratio.
    public init(maximumBytes: Int, maximumRatio: Int = 1_032, ratioAllowanceBytes: Int = 64 * 1024) {
        self.maximumBytes = maximumBytes
        self.maximumRatio = maximumRatio
        self.ratioAllowanceBytes = ratioAllowanceBytes
    }

    /// Checks that `outputBytes` of output from `inputBytes` of input is within the limit.
    ///
    /// - Throws: ``ZlibError/inflatedSizeExceeded(limit:)`` or ``ZlibError/ratioExceeded(ratio:inputBytes:)``.
    @inlinable
    public func check(outputBytes: Int, inputBytes: Int) throws(ZlibError) {
        if outputBytes > maximumBytes { throw .inflatedSizeExceeded(limit: maximumBytes) }
        if outputBytes > ratioAllowanceBytes,
            outputBytes / max(inputBytes, 1) >= maximumRatio
        {
            throw .ratioExceeded(ratio: maximumRatio, inputBytes: inputBytes)
        }
    }
}

/// The bounds a ``RedisReplyParser`` enforces on what Redis sends, checked as soon as a header
/// says how much will follow, before anything is buffered for it.
///
/// Redis itself allows bulk strings of 512 MiB; a game's directory needs far less, and a
/// connection that claims more (a wrong server, a hostile one) fails with a typed error
/// instead of taking the process's memory.
public struct RedisReplyLimits: Hashable, Sendable {
    /// The largest bulk string, in bytes. Default 16 MiB (a room's saved state is far smaller).
    public var maximumBulkBytes: Int
    /// The most elements of one array. Default 65 536.
    public var maximumArrayElements: Int
    /// The deepest nesting of arrays (a top-level array is 1). Default 8.
    public var maximumNestingDepth: Int
    /// The longest line (a simple string, an error, an integer or a length header), CRLF not
    /// counted. Default 64 KiB.
    public var maximumLineBytes: Int
    /// The most bytes one reply may take on the wire while it is incomplete. Default 32 MiB.
    public var maximumReplyBytes: Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maximumBulkBytes: The largest bulk string, in bytes.
    ///   - maximumArrayElements: The most elements of one array.
    ///   - maximumNestingDepth: The deepest nesting of arrays.
    ///   - maximumLineBytes: The longest line, CRLF not counted.
    ///   - maximumReplyBytes: The most bytes of one incomplete reply.
    public init(
        maximumBulkBytes: Int = 16 << 20, maximumArrayElements: Int = 65_536, maximumNestingDepth: Int = 8,
        maximumLineBytes: Int = 64 << 10, maximumReplyBytes: Int = 32 << 20
    ) {
        self.maximumBulkBytes = maximumBulkBytes
        self.maximumArrayElements = maximumArrayElements
        self.maximumNestingDepth = maximumNestingDepth
        self.maximumLineBytes = maximumLineBytes
        self.maximumReplyBytes = maximumReplyBytes
    }
}

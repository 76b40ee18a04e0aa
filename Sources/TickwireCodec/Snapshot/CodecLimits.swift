/// The limits a ``SnapshotCodec`` enforces before it allocates (`Protocol/PROTOCOL.md` §7.1).
///
/// Lower them for a decoder facing untrusted peers; they cannot be raised past the protocol
/// maxima (``maxEntitiesPerSnapshot``).
public struct CodecLimits: Hashable, Sendable {
    /// The protocol's largest entity count per snapshot; ``Snapshot`` never holds more.
    public static let maxEntitiesPerSnapshot = 65_536
    /// The default for ``maxEncodedBytes``: 4 MiB.
    public static let defaultMaxEncodedBytes = 4 * 1024 * 1024

    /// The most entities a decoded snapshot may hold (at most ``maxEntitiesPerSnapshot``).
    public var maxEntities: Int
    /// The longest encoded snapshot accepted, in bytes.
    public var maxEncodedBytes: Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maxEntities: The most entities per snapshot; clamped to 0...``maxEntitiesPerSnapshot``.
    ///   - maxEncodedBytes: The longest encoding accepted; clamped to at least 0.
    public init(maxEntities: Int = CodecLimits.maxEntitiesPerSnapshot, maxEncodedBytes: Int = CodecLimits.defaultMaxEncodedBytes) {
        self.maxEntities = min(max(maxEntities, 0), CodecLimits.maxEntitiesPerSnapshot)
        self.maxEncodedBytes = max(maxEncodedBytes, 0)
    }

    /// The protocol maxima: 65 536 entities, 4 MiB.
    public static let `default` = CodecLimits()
}

/// The container around deflate data.
public struct DeflateFormat: Hashable, Sendable {
    let usesZlibHeader: Bool

    /// Raw deflate with no header or checksum, as permessage-deflate (RFC 7692) uses.
    public static let raw = DeflateFormat(usesZlibHeader: false)
    /// The zlib format (RFC 1950): a two-byte header and an Adler-32 trailer.
    public static let zlib = DeflateFormat(usesZlibHeader: true)

    /// The `windowBits` argument zlib wants for this format and window size.
    func zlibWindowBits(_ bits: Int) -> Int32 {
        usesZlibHeader ? Int32(bits) : -Int32(bits)
    }
}

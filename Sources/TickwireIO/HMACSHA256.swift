import CTLS

/// HMAC-SHA-256 (RFC 2104 over FIPS 180-4) from OpenSSL, for signed web tokens: Tickwire writes no
/// cryptography of its own.
package enum HMACSHA256 {
    /// The length of a tag: 32 bytes.
    package static let tagBytes = 32

    /// The tag of `message` under `key`.
    ///
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - key: The secret key (any length; HMAC hashes a longer one first).
    /// - Returns: The 32-byte tag, or `nil` when OpenSSL fails (no memory).
    package static func tag(of message: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count <= Int(Int32.max) else { return nil }
        var tag = [UInt8](repeating: 0, count: tagBytes)
        let succeeded = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                tag.withUnsafeMutableBufferPointer { tagBytes in
                    tickwire_hmac_sha256(
                        keyBytes.baseAddress, Int32(key.count), messageBytes.baseAddress, message.count, tagBytes.baseAddress) == 1
                }
            }
        }
        return succeeded ? tag : nil
    }

    /// Whether two byte strings are equal, in a time that depends only on their length (OpenSSL's
    /// `CRYPTO_memcmp`), so that comparing a tag leaks nothing of where it differs.
    ///
    /// - Parameters:
    ///   - a: One byte string.
    ///   - b: The other.
    /// - Returns: Whether they are the same length and equal.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in tickwire_constant_time_equal(left.baseAddress, right.baseAddress, a.count) == 1 }
        }
    }
}

/// SHA-1 (FIPS 180-4), needed for the `Sec-WebSocket-Accept` header.
///
/// The toolchain on Linux has no SHA-1 (no CryptoKit, no swift-crypto), so Tickwire carries
/// its own. SHA-1 is broken for collision resistance; the WebSocket handshake uses it only
/// to prove that the server understood the request, which it still does.
package struct SHA1: Sendable {
    /// The length of a digest in bytes.
    package static let digestByteCount = 20

    var h0: UInt32 = 0x6745_2301
    var h1: UInt32 = 0xEFCD_AB89
    var h2: UInt32 = 0x98BA_DCFE
    var h3: UInt32 = 0x1032_5476
    var h4: UInt32 = 0xC3D2_E1F0
    /// Bytes of a partial 64-byte block.
    var block: [UInt8] = []
    /// Total message length in bytes so far.
    var length: UInt64 = 0

    /// Creates a hasher with nothing hashed.
    package init() {
        block.reserveCapacity(64)
    }

    /// Hashes `bytes` in one go.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: The 20-byte digest.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Adds `bytes` to the message.
    ///
    /// - Parameter bytes: The next part of the message.
    package mutating func update(_ bytes: [UInt8]) {
        // Wrapping: the length is defined modulo 2^64 bits by the standard.
        length &+= UInt64(bytes.count)
        var index = 0
        if !block.isEmpty {
            let taken = min(64 - block.count, bytes.count)
            block.append(contentsOf: bytes[0..<taken])
            index = taken
            if block.count == 64 {
                let full = block
                full.withUnsafeBytes { compress($0) }
                block.removeAll(keepingCapacity: true)
            }
        }
        bytes.withUnsafeBytes { buffer in
            while index + 64 <= buffer.count {
                compress(UnsafeRawBufferPointer(rebasing: buffer[index..<index + 64]))
                index += 64
            }
        }
        if index < bytes.count { block.append(contentsOf: bytes[index...]) }
    }

    /// Pads the message and returns its digest; the hasher should not be used afterwards.
    ///
    /// - Returns: The 20-byte digest.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8  // modulo 2^64, as FIPS 180 defines it
        var padding: [UInt8] = [0x80]
        let afterOne = (block.count + 1) % 64
        let zeros = afterOne <= 56 ? 56 - afterOne : 120 - afterOne
        padding.append(contentsOf: repeatElement(0, count: zeros))
        for shift in stride(from: 56, through: 0, by: -8) {
            padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        let savedLength = length
        update(padding)
        length = savedLength
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [h0, h1, h2, h3, h4] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Processes one 64-byte block (FIPS 180-4 section 6.1.2). All additions wrap, as the standard specifies.
    mutating func compress(_ chunk: UnsafeRawBufferPointer) {
        var w = [UInt32](repeating: 0, count: 80)
        for t in 0..<16 {
            w[t] =
                UInt32(chunk[4 * t]) << 24 | UInt32(chunk[4 * t + 1]) << 16
                | UInt32(chunk[4 * t + 2]) << 8 | UInt32(chunk[4 * t + 3])
        }
        for t in 16..<80 {
            w[t] = Self.rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1)
        }
        var a = h0, b = h1, c = h2, d = h3, e = h4
        for t in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch t {
            case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
            case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
            case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
            default: f = b ^ c ^ d; k = 0xCA62_C1D6
            }
            let temp = Self.rotl(a, 5) &+ f &+ e &+ k &+ w[t]
            e = d
            d = c
            c = Self.rotl(b, 30)
            b = a
            a = temp
        }
        h0 = h0 &+ a
        h1 = h1 &+ b
        h2 = h2 &+ c
        h3 = h3 &+ d
        h4 = h4 &+ e
    }

    @inline(__always)
    static func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}

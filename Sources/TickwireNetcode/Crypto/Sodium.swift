import CSodium

/// The libsodium calls netcode.io needs, over `[UInt8]`. No cryptography of our own: every
/// function is one libsodium call (named in its comment).
enum Sodium {
    /// `sodium_init()`, run once before the first use (it is idempotent and thread-safe).
    private static let initialized: Bool = sodium_init() >= 0

    private static func ensureInitialized() {
        // sodium_init returns -1 only when the system's random source is unusable: nothing
        // cryptographic can run then, so this is a precondition, not a recoverable error.
        precondition(initialized, "libsodium: sodium_init() failed (no usable random source)")
    }

    /// `randombytes_buf`.
    static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return bytes
    }

    /// The 12-byte nonce of packets and challenge tokens: four zero bytes, then the sequence as a little-endian `uint64`.
    static func sequenceNonce(_ sequence: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: 12)
        writer.write(UInt32(0))
        writer.write(sequence)
        return writer.bytes
    }

    /// `crypto_aead_chacha20poly1305_ietf_encrypt`: returns the ciphertext followed by the 16-byte tag.
    static func sealChaCha(_ plaintext: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: NetcodeKey) -> [UInt8] {
        ensureInitialized()
        precondition(nonce.count == Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES))
        var output = [UInt8](repeating: 0, count: plaintext.count + Netcode.macBytes)
        var outputLength: UInt64 = 0
        let result = output.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress else { return -1 }
            return crypto_aead_chacha20poly1305_ietf_encrypt(
                base, &outputLength, plaintext, UInt64(plaintext.count), additionalData, UInt64(additionalData.count), nil,
                nonce, key.bytes)
        }
        // The IETF construction fails only for messages over ~256 GiB; ours are at most 1300 bytes.
        precondition(result == 0 && outputLength == UInt64(output.count), "crypto_aead_chacha20poly1305_ietf_encrypt failed")
        return output
    }

    /// `crypto_aead_chacha20poly1305_ietf_decrypt`: the plaintext, or nil when the tag does not verify.
    static func openChaCha(_ ciphertext: ArraySlice<UInt8>, additionalData: [UInt8], nonce: [UInt8], key: NetcodeKey) -> [UInt8]? {
        ensureInitialized()
        guard ciphertext.count >= Netcode.macBytes else { return nil }
        var output = [UInt8](repeating: 0, count: ciphertext.count - Netcode.macBytes)
        var outputLength: UInt64 = 0
        // An empty plaintext still needs a valid output pointer: one spare byte keeps the buffer non-empty.
        output.append(0)
        let result = ciphertext.withUnsafeBufferPointer { input -> Int32 in
            output.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let inputBase = input.baseAddress, let base = out.baseAddress else { return -1 }
                return crypto_aead_chacha20poly1305_ietf_decrypt(
                    base, &outputLength, nil, inputBase, UInt64(input.count), additionalData,
                    UInt64(additionalData.count), nonce, key.bytes)
            }
        }
        output.removeLast()
        return result == 0 ? output : nil
    }

    /// `crypto_aead_xchacha20poly1305_ietf_encrypt` (24-byte nonce): ciphertext followed by the tag.
    static func sealXChaCha(_ plaintext: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: NetcodeKey) -> [UInt8] {
        ensureInitialized()
        precondition(nonce.count == Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        var output = [UInt8](repeating: 0, count: plaintext.count + Netcode.macBytes)
        var outputLength: UInt64 = 0
        let result = output.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress else { return -1 }
            return crypto_aead_xchacha20poly1305_ietf_encrypt(
                base, &outputLength, plaintext, UInt64(plaintext.count), additionalData, UInt64(additionalData.count), nil,
                nonce, key.bytes)
        }
        precondition(result == 0 && outputLength == UInt64(output.count), "crypto_aead_xchacha20poly1305_ietf_encrypt failed")
        return output
    }

    /// `crypto_aead_xchacha20poly1305_ietf_decrypt`: the plaintext, or nil when the tag does not verify.
    static func openXChaCha(_ ciphertext: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: NetcodeKey) -> [UInt8]? {
        ensureInitialized()
        guard ciphertext.count >= Netcode.macBytes, nonce.count == Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES) else { return nil }
        var output = [UInt8](repeating: 0, count: ciphertext.count - Netcode.macBytes)
        var outputLength: UInt64 = 0
        let result = output.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress else { return -1 }
            return crypto_aead_xchacha20poly1305_ietf_decrypt(
                base, &outputLength, nil, ciphertext, UInt64(ciphertext.count), additionalData, UInt64(additionalData.count),
                nonce, key.bytes)
        }
        return result == 0 ? output : nil
    }
}

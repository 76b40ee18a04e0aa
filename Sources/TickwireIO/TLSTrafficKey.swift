import CTLS

/// A TLS 1.3 cipher suite whose records ``TLSRecordLayer`` seals and opens (RFC 8446 appendix B.4).
enum TLSRecordSuite {
    case aes128GCM
    case aes256GCM
    case chaCha20Poly1305

    /// The suite with this two-byte identifier (`0x1301`…`0x1303`), or `nil` for any other.
    init?(protocolIdentifier: UInt16) {
        switch protocolIdentifier {
        case 0x1301: self = .aes128GCM
        case 0x1302: self = .aes256GCM
        case 0x1303: self = .chaCha20Poly1305
        default: return nil
        }
    }

    /// The identifier `tickwire_tls13_aead_new` takes.
    var protocolIdentifier: UInt16 {
        switch self {
        case .aes128GCM: 0x1301
        case .aes256GCM: 0x1302
        case .chaCha20Poly1305: 0x1303
        }
    }

    /// The AEAD key's length in bytes.
    var keyBytes: Int { self == .aes128GCM ? 16 : 32 }

    /// The suite's hash, by OpenSSL's name, and its output length (the traffic secrets' length).
    var digest: (name: String, bytes: Int) { self == .aes256GCM ? ("SHA384", 48) : ("SHA256", 32) }
}

/// One direction of a TLS 1.3 connection's record protection (RFC 8446 sections 5.2, 5.3 and
/// 7.3): the traffic secret, the AEAD context keyed from it, the static IV, and the sequence
/// number that makes each record's nonce. Every cipher and derivation is OpenSSL's (CTLS's
/// `tickwire_tls13_*` helpers); this type keeps the state between records.
///
/// Not thread-safe: it belongs to its session's loop thread.
final class TLSTrafficKey {
    /// The AEAD tag's length, the same for every TLS 1.3 suite.
    static let tagBytes = 16
    /// The per-record nonce's length, the same for every TLS 1.3 suite.
    static let nonceBytes = 12

    private let suite: TLSRecordSuite
    private let isSealing: Bool
    private var secret: [UInt8]
    private var context: OpaquePointer
    /// The static IV, then the current record's nonce (IV XOR the sequence number) after it.
    private let ivAndNonce: UnsafeMutablePointer<UInt8>
    /// The next record's sequence number: records sealed or opened since the key was made or updated.
    private(set) var sequenceNumber: UInt64 = 0

    /// The key derived from `secret` (an application traffic secret of `suite`'s hash length).
    ///
    /// - Throws: ``TLSError`` (connection) when OpenSSL cannot derive the key or make the context.
    init(suite: TLSRecordSuite, secret: [UInt8], sealing: Bool) throws(TLSError) {
        self.suite = suite
        self.isSealing = sealing
        self.secret = secret
        ivAndNonce = .allocate(capacity: 2 * Self.nonceBytes)
        ivAndNonce.initialize(repeating: 0, count: 2 * Self.nonceBytes)
        do {
            context = try Self.makeContext(suite: suite, secret: secret, sealing: sealing, iv: ivAndNonce)
        } catch {
            OPENSSL_cleanse(ivAndNonce, 2 * Self.nonceBytes)
            ivAndNonce.deallocate()
            throw error
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        OPENSSL_cleanse(ivAndNonce, 2 * Self.nonceBytes)
        ivAndNonce.deallocate()
        secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    /// Derives the key and IV from `secret` into a new AEAD context and `iv`.
    private static func makeContext(
        suite: TLSRecordSuite, secret: [UInt8], sealing: Bool, iv: UnsafeMutablePointer<UInt8>
    ) throws(TLSError) -> OpaquePointer {
        var key = [UInt8](repeating: 0, count: suite.keyBytes)
        defer { key.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        let derived =
            expandLabel(suite: suite, secret: secret, label: "key", into: &key)
            && secret.withUnsafeBufferPointer { secret in
                tickwire_tls13_expand_label(suite.digest.name, secret.baseAddress, secret.count, "iv", iv, nonceBytes) == 1
            }
        guard derived, let context = tickwire_tls13_aead_new(suite.protocolIdentifier, key, sealing ? 1 : 0) else {
            throw TLSError.fromQueue(.connection, fallback: "cannot derive the TLS 1.3 traffic keys")
        }
        return context
    }

    /// HKDF-Expand-Label(`secret`, `label`, "", `output.count`) by OpenSSL's TLS13-KDF.
    private static func expandLabel(suite: TLSRecordSuite, secret: [UInt8], label: String, into output: inout [UInt8]) -> Bool {
        let count = output.count
        return secret.withUnsafeBufferPointer { secret in
            output.withUnsafeMutableBufferPointer { output in
                tickwire_tls13_expand_label(suite.digest.name, secret.baseAddress, secret.count, label, output.baseAddress, count) == 1
            }
        }
    }

    /// The nonce for the record with the current sequence number (RFC 8446 section 5.3).
    private func nonce() -> UnsafePointer<UInt8> {
        let nonce = ivAndNonce + Self.nonceBytes
        var sequence = sequenceNumber.bigEndian
        withUnsafeBytes(of: &sequence) { sequence in
            for index in 0..<Self.nonceBytes {
                let sequenceIndex = index - (Self.nonceBytes - 8)
                nonce[index] = ivAndNonce[index] ^ (sequenceIndex >= 0 ? sequence[sequenceIndex] : 0)
            }
        }
        return UnsafePointer(nonce)
    }

    /// Seals one record of `first` then `second` (together at most 16 KiB) with `contentType` at
    /// `out`, which has room for ``recordBytes(plaintextBytes:)`` bytes.
    ///
    /// - Returns: The record's length.
    /// - Throws: ``TLSError`` (connection) when OpenSSL fails.
    func seal(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, contentType: UInt8, into out: UnsafeMutableRawPointer
    ) throws(TLSError) -> Int {
        let count = tickwire_tls13_seal(
            context, nonce(),
            first.baseAddress?.assumingMemoryBound(to: UInt8.self), first.count,
            second.baseAddress?.assumingMemoryBound(to: UInt8.self), second.count,
            contentType, out.assumingMemoryBound(to: UInt8.self))
        guard count > 0 else { throw TLSError.fromQueue(.connection, fallback: "cannot encrypt a TLS record") }
        sequenceNumber += 1
        return count
    }

    /// Opens the record whose 5-byte header is at `header` and whose body follows it,
    /// `bodyBytes` long, into `out` (room for `bodyBytes - 16`).
    ///
    /// - Throws: ``TLSError`` (connection) `bad record mac` when the record does not authenticate.
    func open(header: UnsafePointer<UInt8>, bodyBytes: Int, into out: UnsafeMutableRawPointer) throws(TLSError) {
        let isOpened = tickwire_tls13_open(context, nonce(), header, header + 5, bodyBytes, out.assumingMemoryBound(to: UInt8.self)) == 1
        guard isOpened else {
            ERR_clear_error()  // whatever OpenSSL queued, the reason is the one TLS names
            throw TLSError(.connection, reason: "bad record mac")
        }
        sequenceNumber += 1
    }

    /// The next traffic secret, key and IV (RFC 8446 section 7.2, after a `KeyUpdate`); the
    /// sequence number starts again at 0.
    ///
    /// - Throws: ``TLSError`` (connection) when OpenSSL cannot derive them.
    func update() throws(TLSError) {
        var next = [UInt8](repeating: 0, count: secret.count)
        defer { next.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }  // a failure leaves no copy
        guard Self.expandLabel(suite: suite, secret: secret, label: "traffic upd", into: &next) else {
            throw TLSError.fromQueue(.connection, fallback: "cannot derive the next TLS 1.3 traffic secret")
        }
        let nextContext = try Self.makeContext(suite: suite, secret: next, sealing: isSealing, iv: ivAndNonce)
        EVP_CIPHER_CTX_free(context)
        context = nextContext
        secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        secret = next
        sequenceNumber = 0
    }

    /// A record's length for `plaintextBytes` of content: header, content, content type, tag.
    static func recordBytes(plaintextBytes: Int) -> Int { 5 + plaintextBytes + 1 + tagBytes }
}

@available(*, unavailable)
extension TLSTrafficKey: Sendable {}

import CTLS

/// A TLS failure, with OpenSSL's own words for it.
///
/// ``reason`` is what OpenSSL said (`ERR_reason_error_string`, and for a refused certificate
/// `X509_verify_cert_error_string`): `certificate verify failed: certificate has expired`,
/// `wrong version number`, `unexpected eof while reading`. ``category`` says at which stage it failed.
public struct TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// At which stage a TLS operation failed. Extensible: new categories are not breaking changes.
    public struct Category: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// Loading certificates, keys or trust roots, or setting up a context.
        public static let configuration = Category(name: "configuration")
        /// The handshake failed (protocol mismatch, garbage, no shared cipher, not TLS at all).
        public static let handshake = Category(name: "handshake")
        /// The peer's certificate was refused: unknown CA, expired, wrong host name.
        public static let verification = Category(name: "certificate verification")
        /// The connection failed after the handshake: a bad record, a cut mid-record, a reset.
        public static let connection = Category(name: "connection")

        /// The category's name.
        public var description: String { name }
    }

    private enum Kind: Hashable, Sendable {
        case failure(Category, file: String?)
    }

    private let kind: Kind
    /// OpenSSL's reason, or the system's for a failed socket call.
    public let reason: String

    /// At which stage it failed.
    public var category: Category {
        switch kind {
        case .failure(let category, _): category
        }
    }

    /// The file being loaded, for a ``Category/configuration`` failure about one.
    public var file: String? {
        switch kind {
        case .failure(_, let file): file
        }
    }

    package init(_ category: Category, reason: String, file: String? = nil) {
        kind = .failure(category, file: file)
        self.reason = reason
    }

    /// A plain-words rendering: `TLS certificate verification failed: certificate verify failed: certificate has expired`.
    public var description: String {
        let place = file.map { " (\($0))" } ?? ""
        return "TLS \(category) failed\(place): \(reason)"
    }

    /// Takes every error on this thread's OpenSSL error queue and joins their reason strings;
    /// `fallback` when the queue is empty.
    static func drainQueue(fallback: String) -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            if let text = ERR_reason_error_string(code) {
                reasons.append(String(cString: text))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }

    /// The error for a failed call with nothing more specific: the queue's reasons or `fallback`.
    static func fromQueue(_ category: Category, fallback: String, file: String? = nil) -> TLSError {
        TLSError(category, reason: drainQueue(fallback: fallback), file: file)
    }
}

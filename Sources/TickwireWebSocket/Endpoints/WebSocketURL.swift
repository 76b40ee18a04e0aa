/// A parsed `ws://host:port/path?query` URL: what a ``WebSocketClient`` connects to.
///
/// Only the `ws` scheme is accepted (this library has no TLS, so `wss` is refused with a clear
/// error instead of silently connecting in plain text). IPv6 literals go in brackets:
/// `ws://[::1]:9000/game`.
public struct WebSocketURL: Hashable, Sendable, CustomStringConvertible {
    /// Why a URL string was refused.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The text that was refused.
        public let text: String
        /// What is wrong with it, in words.
        public let reason: String

        /// A plain-words rendering for logs and test failures.
        public var description: String { "invalid WebSocket URL '\(text)': \(reason)" }
    }

    /// The host: a name, an IPv4 address, or an IPv6 address without brackets.
    public let host: String
    /// The port (80 when the URL names none).
    public let port: Int
    /// The path, starting with `/` (`/` when the URL has none).
    public let path: String
    /// The query without the `?`, or `nil` when there is none.
    public let query: String?

    /// The request target sent in the handshake: path plus `?query`.
    public var requestTarget: String { query.map { "\(path)?\($0)" } ?? path }

    /// The `Host` header value: `host`, `host:port`, or `[v6]:port`.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    /// A plain-words rendering for logs and test failures.
    public var description: String { "ws://\(hostHeader)\(requestTarget)" }

    /// Parses `text`.
    ///
    /// - Parameter text: A URL such as `ws://127.0.0.1:9000/game?room=1`.
    /// - Throws: ``ParseError`` for another scheme, an empty host, a bad port or an unclosed IPv6 bracket.
    public init(_ text: String) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        let lowered = text.lowercased()
        guard !lowered.hasPrefix("wss://") else { throw fail("wss (TLS) is not supported; use ws://") }
        guard lowered.hasPrefix("ws://") else { throw fail("the scheme must be ws://") }
        var rest = Substring(text.dropFirst(5))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let target = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 address needs a closing ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw fail("unexpected '\(after)' after the IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw fail("the host is empty") }
        var port = 80
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw fail("the port must be 1...65535, not '\(portText)'")
            }
            port = value
        }
        var path = "/"
        var query: String?
        if let question = target.firstIndex(of: "?") {
            let beforeQuery = target[..<question]
            if !beforeQuery.isEmpty { path = String(beforeQuery) }
            query = String(target[target.index(after: question)...])
        } else if !target.isEmpty {
            path = String(target)
        }
        guard
            !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" })
                && !(query ?? "").contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" })
        else {
            throw fail("spaces and line breaks must be percent-encoded")
        }
        self.host = String(host)
        self.port = port
        self.path = path
        self.query = query
    }
}

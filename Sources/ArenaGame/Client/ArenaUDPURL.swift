import Tickwire

/// A `udp://HOST:PORT/ROOM` URL for `arena join`: the server's UDP port and the room, and the
/// HTTP port of its `GET /udp-token` endpoint (``ArenaUDP/tokenPath``), where a guest connect
/// token comes from before each connection.
package struct ArenaUDPURL: Hashable, Sendable, CustomStringConvertible {
    /// Why a URL does not parse.
    package struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The words.
        package let description: String
    }

    /// The host, a name or a numeric address (without brackets).
    package var host: String
    /// The UDP port.
    package var port: Int
    /// The path (`/main`), the room a session joins.
    package var path: String
    /// The HTTP port of the token endpoint: by default the UDP port − 1, which is `arena serve`'s
    /// WebSocket port when it takes its default UDP port (`arena join --token-port`).
    package var tokenPort: Int
    /// The token endpoint speaks https, as the WebSocket port of an `arena serve --tls-cert …`
    /// does (`arena join --token-tls`); the room's WebSocket URL is then `wss://`. Default `false`.
    package var isTokenTLS = false

    /// Parses `udp://HOST:PORT/ROOM` (`[::1]` for an IPv6 host).
    ///
    /// - Parameter text: The URL.
    /// - Throws: ``ParseError`` naming what is wrong.
    package init(_ text: String) throws(ParseError) {
        guard text.hasPrefix("udp://") else { throw ParseError(description: "\(text): a UDP URL starts with udp://") }
        let rest = text.dropFirst("udp://".count)
        let authority = rest.prefix { $0 != "/" }
        path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        let hostPart: Substring
        let portPart: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ParseError(description: "\(text): an unclosed [") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            portPart = authority[authority.index(after: close)...].dropFirst()
        } else {
            hostPart = authority.prefix { $0 != ":" }
            portPart = authority.dropFirst(hostPart.count + 1)
        }
        guard !hostPart.isEmpty else { throw ParseError(description: "\(text): no host") }
        guard let port = Int(portPart), (1...65535).contains(port) else {
            throw ParseError(description: "\(text): a UDP URL needs a port, 1...65535 (udp://HOST:PORT/ROOM)")
        }
        host = String(hostPart)
        self.port = port
        tokenPort = port - 1
    }

    /// `udp://HOST:PORT/PATH`.
    package var description: String {
        "udp://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)"
    }

    /// The same server's WebSocket URL on ``tokenPort`` (the room's path kept), which the arena
    /// client keeps as its entry URL for the room's name: `wss://` when ``isTokenTLS``.
    package var webSocketURL: String {
        "\(isTokenTLS ? "wss" : "ws")://\(host.contains(":") ? "[\(host)]" : host):\(tokenPort)\(path)"
    }
}

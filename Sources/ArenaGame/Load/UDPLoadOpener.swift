import Tickwire

/// How `tickwire load udp://HOST:PORT/ROOM` opens one player's connection: a guest token from
/// the server's token endpoint (``ArenaUDPURL/tokenPort``, ``ArenaUDP/tokenPath``) fetched
/// from the player's source address, then a ``UDPClientTransportConnection`` on a shared loop.
///
/// It keeps why the last token fetch failed (``takeTokenFailure()``), so that the load tool
/// can count a refused fetch by its HTTP status and the budget the server named, as it counts
/// a refused WebSocket upgrade. Not thread-safe: one player's driver thread uses it.
package final class UDPLoadOpener {
    /// The server and room.
    package let url: ArenaUDPURL
    /// The local address the token request leaves from, or `nil` for the kernel's choice.
    package let source: SocketAddress?
    /// The event loop the connection runs on.
    package let loop: EventLoop
    private var tokenFailure: UDPTransportError?

    /// An opener for `url`.
    ///
    /// - Parameters:
    ///   - url: The server's UDP URL, with its token port.
    ///   - source: The local address to fetch tokens from (port 0), or `nil`.
    ///   - loop: The loop the connections share.
    package init(url: ArenaUDPURL, source: SocketAddress?, loop: EventLoop) {
        self.url = url
        self.source = source
        self.loop = loop
    }

    /// Fetches a token and starts connecting with it.
    ///
    /// - Returns: The connection.
    /// - Throws: ``UDPTransportError``: no token (the fetch's failure is also kept for
    ///   ``takeTokenFailure()``), or the connection could not be set up.
    package func open() throws(UDPTransportError) -> UDPClientTransportConnection {
        let token: ConnectToken
        do throws(UDPTransportError) {
            token = try ConnectTokenFetch.fetch(host: url.host, port: url.tokenPort, path: ArenaUDP.tokenPath, from: source)
        } catch {
            tokenFailure = error
            throw error
        }
        return try UDPClientTransportConnection(token: token, requestPath: url.path, loop: loop)
    }

    /// Takes the last token fetch's failure, if one happened since the last call.
    ///
    /// - Returns: The failure, or `nil`.
    package func takeTokenFailure() -> UDPTransportError? {
        defer { tokenFailure = nil }
        return tokenFailure
    }
}

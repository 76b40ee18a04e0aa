/// Why an ``HTTPExchange`` got no usable response: the host, the connection, TLS, the time
/// allowed, a size limit, or a response that is not HTTP/1.1.
package struct HTTPExchangeError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: Error, Hashable, Sendable {
        /// The host's name does not resolve, or resolves to no address.
        case unresolved(host: String)
        /// A socket call failed (the connection was refused, reset, or could not be made).
        case system(SystemError)
        /// TLS failed (an `https` exchange): the handshake, the server's certificate, a record.
        case tls(TLSError)
        /// No complete response within the exchange's timeout.
        case timedOut(Duration)
        /// The response's head passed ``HTTPResponseParser/maximumHeadBytes``.
        case headTooLarge(limit: Int)
        /// The response's body (announced by `Content-Length`, or read until the close) passed the
        /// exchange's ``HTTPExchange/maximumBodyBytes``.
        case bodyTooLarge(size: Int, limit: Int)
        /// The bytes are not an HTTP/1.x response, in words.
        case malformed(String)
        /// The server closed before the response was complete (its head, or the body its
        /// `Content-Length` announced).
        case incomplete(received: Int)
    }

    /// What went wrong.
    package let kind: Kind
    /// Where the request went, `host:port/path`, for the words.
    package let target: String

    package init(_ kind: Kind, target: String) {
        self.kind = kind
        self.target = target
    }

    package var description: String {
        switch kind {
        case .unresolved(let host): "\(target): \(host) has no address"
        case .system(let error): "\(target): \(error)"
        case .tls(let error): "\(target): \(error)"
        case .timedOut(let timeout): "\(target): no complete HTTP response within \(timeout)"
        case .headTooLarge(let limit): "\(target): the response's head is over \(limit) bytes (HTTPResponseParser.maximumHeadBytes)"
        case .bodyTooLarge(let size, let limit):
            "\(target): the response's body is \(size) bytes or more, over the limit of \(limit) (HTTPExchange.maximumBodyBytes)"
        case .malformed(let words): "\(target): not an HTTP/1.1 response: \(words)"
        case .incomplete(let received): "\(target): the server closed after \(received) bytes, before the response was complete"
        }
    }
}

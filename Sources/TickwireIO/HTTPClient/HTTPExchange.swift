import Dispatch
import Synchronization

/// One HTTP/1.1 request and its response, on a TCP connection of its own and a short-lived
/// event loop of its own: the client side of small JSON and token endpoints (a matchmaker's
/// `POST /matchmake/…`, `arena serve`'s `/udp-token`). It blocks the calling thread until the
/// response is complete, the server closes, or ``timeout`` passes; call it from a thread that
/// may wait (never a cooperative-pool task: wrap it in a Dispatch queue and a continuation).
///
/// ```swift
/// var exchange = HTTPExchange(method: "POST", host: "127.0.0.1", port: 7777, path: "/matchmake/joinOrCreate/arena")
/// exchange.headers = [HTTPExchangeHeader("Content-Type", "application/json")]
/// exchange.body = Array("{}".utf8)
/// let response = try exchange.run()   // response.status, response.header("Retry-After"), response.body
/// ```
///
/// One request a connection (`Connection: close`), `Content-Length` bodies only (a chunked
/// response is refused as malformed), no redirects followed; over TLS (`https`) when ``tls`` is set.
package struct HTTPExchange: Sendable {
    /// The default of ``maximumBodyBytes``: 64 KiB.
    package static let defaultMaximumBodyBytes = 65_536

    /// The method, such as `GET` or `POST`.
    package var method: String
    /// The server's name or numeric address (also sent in `Host`).
    package var host: String
    /// The server's port.
    package var port: Int
    /// The request target, such as `/rooms?mode=arena`.
    package var path: String
    /// Header fields sent after `Host`, `Connection` and (with a body) `Content-Length`.
    package var headers: [HTTPExchangeHeader] = []
    /// The body; sent with its `Content-Length` when not empty, or for a `POST` or `PUT`.
    package var body: [UInt8] = []
    /// How long the whole exchange may take, from resolving the host to the response's last byte.
    package var timeout: Duration = .seconds(5)
    /// The longest response body read: a longer `Content-Length` (or body read until the close)
    /// fails the exchange with ``HTTPExchangeError/Kind/bodyTooLarge(size:limit:)``.
    package var maximumBodyBytes = HTTPExchange.defaultMaximumBodyBytes
    /// The local address to connect from (a load tool's spread of 127.0.0.x addresses, its port
    /// 0), or `nil` for the kernel's choice.
    package var source: SocketAddress?
    /// How to check the server over TLS (an `https` URL), or `nil` (default) for plain HTTP. The
    /// certificate must name ``host`` (or the configuration's `serverName`).
    package var tls: TLSClientConfiguration?

    /// A request with no header fields of its own and no body.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - host: The server's name or numeric address.
    ///   - port: The server's port.
    ///   - path: The request target.
    package init(method: String = "GET", host: String, port: Int, path: String) {
        self.method = method
        self.host = host
        self.port = port
        self.path = path
    }

    /// Where the request goes, in words: `host:port/path`.
    package var target: String { "\(host):\(port)\(path)" }

    /// The request's bytes: request line, fields, blank line, body.
    package var encodedRequest: [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// Sends the request and reads the response, blocking the calling thread.
    ///
    /// - Returns: The response, whatever its status.
    /// - Throws: ``HTTPExchangeError``: the host does not resolve, the connection fails, the
    ///   response does not come whole within ``timeout``, passes a limit, or is not HTTP/1.x.
    package func run() throws(HTTPExchangeError) -> HTTPExchangeResponse {
        let deadline = DispatchTime.now() + .nanoseconds(Self.nanoseconds(timeout))
        let context: TLSClientContext?
        do throws(TLSError) {
            context = try tls.map { configuration throws(TLSError) in try TLSClientContext.shared(for: configuration) }
        } catch {
            throw HTTPExchangeError(.tls(error), target: target)
        }
        let addresses: [SocketAddress]
        let loop: EventLoop
        do throws(SystemError) {
            addresses = try SocketAddress.resolve(host: host, port: port)
            loop = try EventLoop()
            try loop.start()
        } catch {
            throw HTTPExchangeError(.system(error), target: target)
        }
        // Stopping the loop closes the socket, answered or not.
        defer { loop.stop() }
        guard let address = addresses.first else { throw HTTPExchangeError(.unresolved(host: host), target: target) }
        let state = ExchangeState(parser: HTTPResponseParser(maximumBodyBytes: maximumBodyBytes, isHeadRequest: method == "HEAD"))
        let request = encodedRequest
        let source = source
        let host = host
        let started = loop.runAndWait { () -> HTTPExchangeError.Kind? in
            do throws(HTTPExchangeError.Kind) {
                let socket: Socket
                let isConnected: Bool
                do throws(SystemError) {
                    socket = try Socket(family: address.family)
                    isConnected = try socket.connect(to: address, from: source)
                } catch {
                    throw .system(error)
                }
                var session: TLSSession?
                if let context {
                    do throws(TLSError) {
                        session = try TLSSession.client(context: context, descriptor: socket.descriptor, host: host)
                    } catch {
                        throw .tls(error)
                    }
                }
                let channel: TCPChannel
                do throws(SystemError) {
                    channel = try TCPChannel(socket: socket, peer: address, loop: loop, isConnecting: !isConnected, tls: session)
                } catch {
                    throw .system(error)
                }
                channel.onRead = { bytes in
                    if state.receive(bytes) { channel.close() }
                }
                channel.onClose = { error in
                    if let failure = channel.tlsFailure { state.failed(.tls(failure)) } else { state.closed(error) }
                }
                if isConnected {
                    channel.write(request)
                } else {
                    channel.onConnect = { error in
                        if let error { state.closed(error) } else { channel.write(request) }
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        switch started {
        case .some(.some(let kind)): throw HTTPExchangeError(kind, target: target)
        case .none: throw HTTPExchangeError(.malformed("the exchange's event loop stopped"), target: target)
        case .some(.none): break
        }
        guard state.done.wait(timeout: deadline) == .success else {
            throw HTTPExchangeError(.timedOut(timeout), target: target)
        }
        switch state.outcome.withLock({ $0 }) {
        case .some(.success(let response)): return response
        case .some(.failure(let kind)): throw HTTPExchangeError(kind, target: target)
        case .none: throw HTTPExchangeError(.incomplete(received: 0), target: target)
        }
    }

    /// `duration` in whole nanoseconds, at least 0 and at most a day.
    static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return Int(min(seconds, 86_400)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    /// What the loop thread and the waiting thread share: the parser (loop thread only, behind
    /// the lock all the same), the outcome, written once, and the signal that it is there.
    private final class ExchangeState: Sendable {
        let parser: Mutex<HTTPResponseParser>
        let outcome = Mutex<Result<HTTPExchangeResponse, HTTPExchangeError.Kind>?>(nil)
        let done = DispatchSemaphore(value: 0)

        init(parser: HTTPResponseParser) {
            self.parser = Mutex(parser)
        }

        /// Takes in bytes; returns whether the exchange is over (complete or failed).
        func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let result = parser.withLock { parser -> Result<HTTPResponseParser.Progress, HTTPExchangeError.Kind> in
                do throws(HTTPExchangeError.Kind) {
                    return .success(try parser.receive(bytes))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(.needMore): return false
            case .success(.complete(let response)): finish(.success(response))
            case .failure(let kind): finish(.failure(kind))
            }
            return true
        }

        /// The exchange failed before its response was complete (TLS).
        func failed(_ kind: HTTPExchangeError.Kind) { finish(.failure(kind)) }

        /// The connection ended: a response read to the close, or why there is none.
        func closed(_ error: SystemError?) {
            if let error { return finish(.failure(.system(error))) }
            let result = parser.withLock { parser -> Result<HTTPExchangeResponse, HTTPExchangeError.Kind> in
                do throws(HTTPExchangeError.Kind) {
                    return .success(try parser.finish())
                } catch {
                    return .failure(error)
                }
            }
            finish(result)
        }

        /// Records the first outcome and wakes the waiting thread; later ones are the same
        /// exchange's close after its end, and change nothing.
        private func finish(_ result: Result<HTTPExchangeResponse, HTTPExchangeError.Kind>) {
            let isFirst = outcome.withLock { outcome -> Bool in
                guard outcome == nil else { return false }
                outcome = result
                return true
            }
            if isFirst { done.signal() }
        }
    }
}

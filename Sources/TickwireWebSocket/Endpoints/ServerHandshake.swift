import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// The loop-thread handler of one accepted socket until its upgrade handshake succeeds or fails.
///
/// Collects the request head within ``WebSocketServerConfiguration/maximumHandshakeBytes`` and
/// ``WebSocketServerConfiguration/maximumHeaderCount``, under ``WebSocketServerConfiguration/handshakeTimeout``
/// (a client that sends one byte per second is cut off with HTTP 408), validates it, asks the
/// `shouldAccept` hook, answers 101 and hands the socket to a ``WebSocketChannel``. A request that
/// is not an upgrade goes to ``WebSocketServerConfiguration/httpHandler`` when there is one.
///
/// Not thread-safe: loop thread only.
final class ServerHandshake {
    private let tcp: TCPChannel
    private weak var core: ServerCore?
    private let configuration: WebSocketServerConfiguration
    private let handshakeConfiguration: WebSocketServerHandshake.Configuration
    private var received: [UInt8] = []
    private var timer: TimerHandle?
    private var isFinished = false
    /// A plain HTTP request for ``WebSocketServerConfiguration/httpRequestHandler`` whose body is
    /// still arriving (`body.count < expected`), or whose answer is awaited (`isAnswering`).
    private var pendingRequest: (head: HTTPRequestHead, body: [UInt8], expected: Int)?
    private var isAnswering = false
    /// The peer's address group, counted in the server's per-address limits.
    let addressGroup: PeerAddressGroup?

    init(tcp: TCPChannel, core: ServerCore, addressGroup: PeerAddressGroup?) {
        self.tcp = tcp
        self.addressGroup = addressGroup
        self.core = core
        configuration = core.configuration
        handshakeConfiguration = core.handshakeConfiguration
        let timeout = core.configuration.handshakeTimeout
        // Strong captures: the TCP channel drops its callbacks when it closes (or the channel that takes
        // over replaces them), which breaks the cycle; the handshake may outlive its place in the core.
        tcp.onRead = { bytes in self.receive(bytes) }
        tcp.onClose = { _ in self.finish() }
        timer = tcp.loop.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            if self.tcp.isTLSHandshaking {
                // A TLS handshake that never completes (slowloris at the TLS layer): closed at once.
                self.core?.onTLSFailure(TLSError(.handshake, reason: "the TLS handshake did not finish within \(timeout)"), self.tcp.peer)
            }
            if self.isAnswering, let pending = self.pendingRequest {
                // The request was read whole; the handler is what took too long.
                self.answer(pending.head, with: .text(status: 503, "the server did not answer within \(timeout)"))
                return
            }
            self.reject(status: 408, reason: "Request Timeout", detail: "the handshake took longer than \(timeout)")
        }
    }

    private var limits: HTTPHeadLimits {
        HTTPHeadLimits(
            maximumHeadBytes: configuration.maximumHandshakeBytes,
            maximumHeaderCount: configuration.maximumHeaderCount)
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isFinished, !isAnswering else { return }
        if pendingRequest != nil {
            receiveBody(bytes)
            return
        }
        // Keep at most one byte past the limit: enough for the parser to see that it is broken.
        let previousCount = received.count
        let room = limits.maximumHeadBytes + 1 - received.count
        received.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, max(room, 0))]))
        let parsed: (head: HTTPRequestHead, byteCount: Int)?
        do {
            parsed = try HTTPRequestHead.parse(received, limits: limits)
        } catch {
            reject(status: error.httpStatus, reason: HTTPResponse.reasonPhrase(for: error.httpStatus), detail: error.description)
            return
        }
        guard let (head, byteCount) = parsed else {
            if received.count > limits.maximumHeadBytes {
                reject(
                    status: 431, reason: HTTPResponse.reasonPhrase(for: 431),
                    detail: "the handshake is over \(limits.maximumHeadBytes) bytes")
            }
            return
        }
        // The head was incomplete before this read, so it ends inside it; what follows are the
        // client's first frames (taken from the read itself, since `received` is capped).
        let remainder = Array(bytes[max(byteCount - previousCount, 0)...])
        upgrade(head, remainder: remainder)
    }

    private func upgrade(_ head: HTTPRequestHead, remainder: [UInt8]) {
        if configuration.httpRequestHandler != nil, !head.headers.containsToken("websocket", in: "Upgrade") {
            var request = head
            request.remoteHost = tcp.peer?.host
            startBody(of: request, remainder: remainder)
            return
        }
        if let handler = configuration.httpHandler, !head.headers.containsToken("websocket", in: "Upgrade") {
            var request = head
            request.remoteHost = tcp.peer?.host
            answer(head, with: handler(request))
            return
        }
        let acceptance: WebSocketServerHandshake.Acceptance
        do {
            acceptance = try WebSocketServerHandshake.accept(head, configuration: handshakeConfiguration)
        } catch {
            reject(status: error.httpStatus, reason: HTTPResponse.reasonPhrase(for: error.httpStatus), detail: error.description)
            return
        }
        let target = head.target
        let question = target.firstIndex(of: "?")
        let request = WebSocketUpgradeRequest(
            path: String(target[..<(question ?? target.endIndex)]),
            query: question.map { String(target[target.index(after: $0)...]) },
            headers: head.headers,
            offeredSubprotocols: head.headers.listElements(for: "Sec-WebSocket-Protocol"),
            remoteAddress: tcp.peer
        )
        if let hook = configuration.shouldAccept, case .reject(let status, let reason) = hook(request).kind {
            // The application's decision (a token, an origin), which its operator wants to see.
            reject(status: status, reason: HTTPResponse.reasonPhrase(for: status), detail: reason, logLevel: .info)
            return
        }
        if let core, !core.hasRoomForConnection {
            let limit = configuration.maximumConnections
            let refused = core.counters.refusedAtConnectionLimit.wrappingAdd(1, ordering: .relaxed).newValue
            core.logRefusal(
                peer: tcp.peer, status: 503, count: refused,
                detail: "the server is at its limit of \(limit) connections (maximumConnections)")
            reject(
                status: 503, reason: HTTPResponse.reasonPhrase(for: 503), detail: "the server is at its limit of \(limit) connections",
                countsAsFailed: false, budget: .connectionLimit, limit: limit)
            return
        }
        let machine: WebSocketProtocolMachine
        do {
            machine = try WebSocketProtocolMachine(
                role: .server, configuration: configuration.protocolConfiguration, compression: acceptance.compression
            )
        } catch {
            reject(status: 500, reason: "Internal Server Error", detail: error.description)
            return
        }
        cancelTimer()
        isFinished = true
        received = []
        tcp.write(acceptance.response.encoded())
        let connection = WebSocketConnection(
            loop: tcp.loop, remoteAddress: tcp.peer, requestTarget: head.target, subprotocol: acceptance.subprotocol,
            compression: acceptance.compression, sendBufferLimits: configuration.sendBuffer
        )
        core?.handshakeSucceeded(self, tcp: tcp, machine: machine, connection: connection, initialBytes: remainder)
    }

    /// Checks the body a request for ``WebSocketServerConfiguration/httpRequestHandler`` announces
    /// and starts reading it: refused with 411 when chunked, 400 when its length is not one
    /// decimal number, 413 when over ``WebSocketServerConfiguration/maximumHTTPBodyBytes``.
    private func startBody(of head: HTTPRequestHead, remainder: [UInt8]) {
        if head.headers["Transfer-Encoding"] != nil {
            answer(head, with: .text(status: 411, "a body must come with Content-Length (no Transfer-Encoding)"))
            return
        }
        let lengths = head.headers.values(for: "Content-Length")
        var expected = 0
        if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }), let length = Self.decimalLength(first) else {
                answer(head, with: .text(status: 400, "Content-Length is not one decimal number"))
                return
            }
            expected = length
        }
        let limit = configuration.maximumHTTPBodyBytes
        guard expected <= limit else {
            answer(
                head,
                with: .text(
                    status: 413, "the body is \(expected) bytes; at most \(limit) are read (maximumHTTPBodyBytes)"))
            return
        }
        pendingRequest = (head, [], expected)
        remainder.withUnsafeBytes { receiveBody($0) }
    }

    /// Collects body bytes until the announced length; bytes past it (a pipelined request) are ignored.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) {
        guard var pending = pendingRequest else { return }
        pending.body.append(contentsOf: bytes.prefix(pending.expected - pending.body.count))
        pendingRequest = pending
        guard pending.body.count == pending.expected, let handler = configuration.httpRequestHandler else { return }
        isAnswering = true
        let request = HTTPRequest(head: pending.head, body: pending.body)
        let handshake = LoopBound<ServerHandshake?>(self)
        let loop = tcp.loop
        // On the loop's own thread: the answer never waits for a cooperative pool that the
        // application may keep busy.
        Task(executorPreference: loop) {
            let response = await handler(request)
            loop.execute {
                handshake.value?.answerAwaited(with: response)
                handshake.value = nil
            }
        }
    }

    /// Sends the answer of ``WebSocketServerConfiguration/httpRequestHandler``, unless the
    /// handshake timed out (or the peer left) first.
    private func answerAwaited(with response: HTTPResponse) {
        guard let pending = pendingRequest, !isFinished else { return }
        answer(pending.head, with: response)
    }

    /// A `Content-Length` value: 1 to 18 decimal digits (RFC 9110 section 8.6), else `nil`.
    static func decimalLength(_ text: String) -> Int? {
        let digits = text.utf8
        guard (1...18).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// Sends a plain HTTP response (``WebSocketServerConfiguration/httpHandler``) and closes once it is sent.
    private func answer(_ request: HTTPRequestHead, with response: HTTPResponse) {
        cancelTimer()
        isFinished = true
        core?.counters.httpRequests.wrappingAdd(1, ordering: .relaxed)
        tcp.write(response.encoded(includesBody: request.method != "HEAD"))
        tcp.closeAfterFlush()
        core?.handshakeEnded(self)
    }

    /// Answers with an HTTP error and closes once it is sent; counted as a failed handshake
    /// (``WebSocketServerStatistics/handshakesFailed``) and logged at `logLevel` unless
    /// `countsAsFailed` is `false`.
    func reject(
        status: Int, reason: String, detail: String, countsAsFailed: Bool = true, budget: WebSocketRefusal.Budget? = nil, limit: Int? = nil,
        logLevel: LogLevel = .debug
    ) {
        guard !isFinished else { return }
        if countsAsFailed, let core {
            core.counters.handshakesFailed.wrappingAdd(1, ordering: .relaxed)
            // A client's mistake is worth a debug line; the accept hook's refusal, an info line.
            core.configuration.logSink.log(
                logLevel, "refused a handshake: \(detail)",
                metadata: ["peer": tcp.peer.map { "\($0)" } ?? "unknown", "status": "\(status)"], source: "websocket-server")
        }
        cancelTimer()
        isFinished = true
        received = []
        tcp.write(Self.errorResponse(status: status, reason: reason, detail: detail, budget: budget, limit: limit))
        tcp.closeAfterFlush()
        core?.handshakeEnded(self)
    }

    /// Makes room for a newer handshake: answers HTTP 503 and closes at once (see
    /// ``WebSocketServerConfiguration/maximumHandshakes``).
    func evict(detail: String, limit: Int) {
        guard !isFinished else { return }
        cancelTimer()
        isFinished = true
        received = []
        ServerCore.refuseAtOnce(tcp, status: 503, detail: detail, budget: .handshakeEvicted, limit: limit)
        core?.handshakeEnded(self)
    }

    private func finish() {
        guard !isFinished else { return }
        cancelTimer()
        isFinished = true
        if let failure = tcp.tlsFailure { core?.onTLSFailure(failure, tcp.peer) }
        core?.handshakeEnded(self)
    }

    private func cancelTimer() {
        if let timer { tcp.loop.cancel(timer) }
        timer = nil
    }

    /// A minimal HTTP/1.1 error response that closes the connection; a refusal by one of the
    /// server's budgets names it and its value in ``WebSocketRefusal/headerName``.
    static func errorResponse(
        status: Int, reason: String, detail: String, budget: WebSocketRefusal.Budget? = nil, limit: Int? = nil
    ) -> [UInt8] {
        let body = detail + "\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        if status == 426 { headers.add(name: "Sec-WebSocket-Version", value: "13") }
        if let budget { headers.add(name: WebSocketRefusal.headerName, value: WebSocketRefusal.headerValue(budget: budget, limit: limit)) }
        return HTTPResponseHead(status: status, reason: reason, headers: headers).encoded() + Array(body.utf8)
    }
}

@available(*, unavailable)
extension ServerHandshake: Sendable {}

import Glibc
import Testing
import TickwireIO
import TickwireWebSocket

/// ``HTTPExchange`` against a real HTTP server on 127.0.0.1 (a ``WebSocketServer``'s plain-HTTP
/// handler), and ``HTTPResponseParser`` on byte-exact responses.
@Suite("HTTP exchange")
struct HTTPExchangeTests {
    @Test("a POST reaches the server with its headers and body; the status, reason, headers and body come back")
    func statusHeadersAndBody() throws {
        let server = try HTTPTestServer { head in
            HTTPResponse(
                status: 404, headers: ["X-Seen": "\(head.method) \(head.target) \(head.headers["Authorization"] ?? "-")"],
                body: Array("{\"error\":\"notFound\"}".utf8))
        }
        var exchange = HTTPExchange(method: "POST", host: "127.0.0.1", port: server.port, path: "/matchmake/x")
        exchange.headers = [HTTPExchangeHeader("Authorization", "Bearer abc")]
        exchange.body = Array("{}".utf8)
        let response = try exchange.run()
        #expect(response.status == 404, "the status line's code is read")
        #expect(response.reason == "Not Found")
        #expect(response.header("x-seen") == "POST /matchmake/x Bearer abc", "the server saw the method, target and header sent")
        #expect(response.header("Content-Length") == "20")
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"error\":\"notFound\"}")
    }

    @Test("a body of exactly maximumBodyBytes is read whole; one byte more fails, naming the limit", arguments: [1, 1000, 65_536])
    func bodyLimit(limit: Int) throws {
        let server = try HTTPTestServer { head in
            HTTPResponse(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: head.target == "/at" ? limit : limit + 1))
        }
        var exchange = HTTPExchange(host: "127.0.0.1", port: server.port, path: "/at")
        exchange.maximumBodyBytes = limit
        let atLimit = try exchange.run()
        #expect(atLimit.body.count == limit, "a body at the limit is read whole")
        exchange.path = "/past"
        do {
            let past = try exchange.run()
            Issue.record("a body of \(limit + 1) bytes passed a limit of \(limit): got \(past.body.count) bytes")
        } catch {
            #expect(error.kind == .bodyTooLarge(size: limit + 1, limit: limit), "the Content-Length is checked against the limit")
            #expect(error.description.contains("\(limit)"), "the words name the limit: \(error)")
        }
    }

    @Test("a server that accepts and never answers fails the exchange at its timeout, not later")
    func timeout() throws {
        // A listening socket nobody accepts on: the kernel completes the connection, no byte ever comes.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0, "a socket for the silent server")
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(descriptor, 4) == 0, "bind and listen on 127.0.0.1:0")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        var exchange = HTTPExchange(host: "127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)), path: "/")
        exchange.timeout = .milliseconds(300)
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let response = try exchange.run()
            Issue.record("a silent server gave a response: \(response.status)")
        } catch {
            #expect(error.kind == .timedOut(.milliseconds(300)), "the exchange times out: \(error)")
        }
        let took = clock.now - started
        #expect(took >= .milliseconds(280) && took < .seconds(3), "it waited about its timeout, not \(took)")
    }

    @Test("a refused connection is a system error, at once")
    func refusedConnection() throws {
        let port: Int
        do {
            // A port that was just free: bound, then closed.
            let server = try HTTPTestServer { _ in .text(status: 200, "") }
            port = server.port
        }
        let exchange = HTTPExchange(host: "127.0.0.1", port: port, path: "/")
        #expect {
            try exchange.run()
        } throws: { error in
            guard let error = error as? HTTPExchangeError, case .system = error.kind else { return false }
            return true
        }
    }

    /// One response the parser reads, and what it should make of it.
    struct ParserCase: Sendable, CustomStringConvertible {
        let name: String
        let bytes: String
        let outcome: Result<Int, HTTPExchangeError.Kind>?  // status when complete, nil when it needs more
        var description: String { name }
    }

    static let parserCases: [ParserCase] = [
        ParserCase(
            name: "complete by Content-Length", bytes: "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", outcome: .success(201)),
        ParserCase(name: "body still coming", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok", outcome: nil),
        ParserCase(name: "204 has no body", bytes: "HTTP/1.1 204 No Content\r\nAllow: GET\r\n\r\n", outcome: .success(204)),
        ParserCase(name: "HTTP/1.0 and no reason", bytes: "HTTP/1.0 503\r\nContent-Length: 0\r\n\r\n", outcome: .success(503)),
        ParserCase(
            name: "not HTTP", bytes: "SSH-2.0-OpenSSH\r\n\r\n",
            outcome: .failure(.malformed("the status line 'SSH-2.0-OpenSSH' is not HTTP/1.x"))),
        ParserCase(
            name: "status not three digits", bytes: "HTTP/1.1 20 OK\r\n\r\n",
            outcome: .failure(.malformed("the status '20' is not three digits"))),
        ParserCase(
            name: "Content-Length not a number", bytes: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            outcome: .failure(.malformed("Content-Length '-1' is not a number of bytes"))),
        ParserCase(
            name: "two Content-Lengths disagree", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            outcome: .failure(.malformed("two Content-Length fields disagree (1 and 2)"))),
        ParserCase(
            name: "chunked", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            outcome: .failure(.malformed("Transfer-Encoding 'chunked' is not read by this client: it needs Content-Length"))),
        ParserCase(
            name: "Content-Length over the limit", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n",
            outcome: .failure(.bodyTooLarge(size: 101, limit: 100))),
    ]

    @Test("the parser reads status lines, Content-Length and bodies, and refuses what is not a response", arguments: parserCases)
    func parser(vector: ParserCase) {
        var parser = HTTPResponseParser(maximumBodyBytes: 100)
        do throws(HTTPExchangeError.Kind) {
            let progress = try parser.receive(Array(vector.bytes.utf8))
            switch (progress, vector.outcome) {
            case (.needMore, nil): break
            case (.complete(let response), .success(let status)?): #expect(response.status == status, "\(vector)")
            default: Issue.record("\(vector): got \(progress), expected \(String(describing: vector.outcome))")
            }
        } catch {
            #expect(vector.outcome == .failure(error), "\(vector): threw \(error)")
        }
    }

    @Test("a head that never ends is refused past maximumHeadBytes, before more is kept")
    func headLimit() throws {
        var parser = HTTPResponseParser(maximumBodyBytes: 100)
        let line = Array("X-Filler: \(String(repeating: "y", count: 100))\r\n".utf8)
        #expect(try parser.receive(Array("HTTP/1.1 200 OK\r\n".utf8)) == .needMore)
        var thrown: HTTPExchangeError.Kind?
        for _ in 0..<(HTTPResponseParser.maximumHeadBytes / line.count + 2) where thrown == nil {
            do throws(HTTPExchangeError.Kind) {
                _ = try parser.receive(line)
            } catch {
                thrown = error
            }
        }
        #expect(thrown == .headTooLarge(limit: HTTPResponseParser.maximumHeadBytes))
    }

    @Test("a response without Content-Length ends at the close; one whose announced body is cut short is incomplete")
    func endAtClose() throws {
        var open = HTTPResponseParser(maximumBodyBytes: 100)
        #expect(try open.receive(Array("HTTP/1.1 200 OK\r\n\r\nhello".utf8)) == .needMore)
        #expect(try open.finish().body == Array("hello".utf8))
        var short = HTTPResponseParser(maximumBodyBytes: 100)
        _ = try short.receive(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello".utf8))
        #expect(throws: HTTPExchangeError.Kind.incomplete(received: 43)) { try short.finish() }
    }
}

import Testing
import TickwireFoundation
import TickwireNetcode
import TickwireWebSocket

@testable import ArenaGame

@Suite("GET /udp-token's budget per source address")
struct TokenRequestBudgetTests {
    @Test("an address gets exactly its limit at once; one past it is refused, and others are counted apart")
    func atTheLimitAndOnePast() {
        var budget = TokenRequestBudget(limit: 32)
        for request in 1...32 {
            let admitted1 = budget.admit("127.0.0.2", now: 100)
            #expect(admitted1, "request \(request) of 32 should be admitted")
        }
        let admitted2 = budget.admit("127.0.0.2", now: 100)
        #expect(!admitted2, "the 33rd request at once is past the limit")
        let admitted3 = budget.admit("127.0.0.3", now: 100)
        #expect(admitted3, "another address has a budget of its own")
        let admitted4 = budget.admit(nil, now: 100)
        #expect(admitted4, "a request whose address is unknown is not budgeted")
    }

    @Test("the bucket refills at limit per window: one more after a window's share, all of them after a window")
    func refills() {
        var budget = TokenRequestBudget(limit: 10)
        for _ in 0..<10 { _ = budget.admit("127.0.0.2", now: 0) }
        let admitted5 = budget.admit("127.0.0.2", now: 0.5)
        #expect(!admitted5, "after 0.5 s, half a request has come back: still refused")
        let share = TokenRequestBudget.window / 10
        let admitted6 = budget.admit("127.0.0.2", now: share + 0.01)
        #expect(admitted6, "one request's share of the window brings one back")
        let admitted7 = budget.admit("127.0.0.2", now: share + 0.02)
        #expect(!admitted7)
        for request in 1...10 {
            let admitted8 = budget.admit("127.0.0.2", now: 100)
            #expect(admitted8, "after a long pause request \(request) of 10 is admitted")
        }
        let admitted9 = budget.admit("127.0.0.2", now: 100)
        #expect(!admitted9, "and never more than the limit at once")
    }

    @Test("limit 0 admits everything")
    func noLimit() {
        var budget = TokenRequestBudget(limit: 0)
        for _ in 0..<1000 {
            let admitted = budget.admit("127.0.0.2", now: 0)
            #expect(admitted)
        }
        #expect(budget.trackedAddresses == 0, "nothing is tracked without a limit")
    }

    @Test("full buckets are forgotten once more than the tracked maximum are held")
    func boundedMemory() {
        var budget = TokenRequestBudget(limit: 1)
        for index in 0..<TokenRequestBudget.maximumTrackedAddresses {
            _ = budget.admit("10.0.\(index / 256).\(index % 256)", now: 0)
        }
        #expect(budget.trackedAddresses == TokenRequestBudget.maximumTrackedAddresses)
        // A window later every bucket is full again: one more address forgets them all but itself.
        _ = budget.admit("10.1.0.0", now: TokenRequestBudget.window + 1)
        #expect(budget.trackedAddresses == 1, "got \(budget.trackedAddresses) addresses")
    }

    @Test("the endpoint answers 429 with the Tickwire-Refusal header one past the limit, and counts it")
    func endpointRefuses() throws {
        let key = NetcodeKey.random()
        let endpoint = ArenaUDPTokenEndpoint(
            key: key, addresses: { [NetcodeAddress(ipv4: 127, 0, 0, 1, port: 7778)] }, limitPerAddress: 2, now: { 5 })
        let handler = endpoint.handler(otherwise: nil)
        var request = HTTPRequestHead(target: ArenaUDP.tokenPath)
        request.remoteHost = "127.0.0.9"
        #expect(handler(request).status == 200)
        #expect(handler(request).status == 200, "the second request is at the limit")
        let refused = handler(request)
        #expect(refused.status == 429, "the third is one past it")
        #expect(refused.headers[WebSocketRefusal.headerName] == "address_token_rate_limit; limit=2")
        let words = String(decoding: refused.body, as: UTF8.self)
        #expect(words.contains("--max-token-requests-per-address"), "the body names the flag: \(words)")
        var other = request
        other.remoteHost = "127.0.0.10"
        #expect(handler(other).status == 200, "another address is not refused")
        var post = request
        post.method = "POST"
        #expect(handler(post).status == 405)
        #expect(handler(HTTPRequestHead(target: "/elsewhere")).status == 404)

        var writer = PrometheusWriter()
        endpoint.writeMetrics(to: &writer)
        let body = writer.text
        #expect(body.contains("tickwire_udp_token_requests_total{result=\"accepted\"} 3"), "\(body)")
        #expect(body.contains("tickwire_udp_token_requests_total{result=\"rate_limited\"} 1"), "\(body)")
    }

    @Test("a refused token request is explained like a refused upgrade: status, budget, limit and flag")
    func explained() {
        let response = Array(
            ("HTTP/1.1 429 Too Many Requests\r\nTickwire-Refusal: address_token_rate_limit; limit=32\r\n"
                + "Content-Length: 5\r\n\r\nslow!").utf8)
        let explanation = RefusalExplanation(tokenStatus: 429, response: response)
        #expect(explanation.code == 429)
        #expect(explanation.limit == 32)
        #expect(explanation.description.contains("too many UDP token requests from one address (limit 32)"), "\(explanation)")
        #expect(explanation.description.contains("--max-token-requests-per-address"), "\(explanation)")
    }
}

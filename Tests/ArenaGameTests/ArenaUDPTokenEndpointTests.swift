import Testing
import TickwireFoundation
import TickwireNetcode
import TickwireWebSocket

@testable import ArenaGame

@Suite("GET /udp-token's budget per source address")
struct ArenaUDPTokenEndpointTests {
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

import Testing
import TickwireWebSocket

@Suite struct HTTPRequestTests {
    @Test func pathAndQuerySplitTheTarget() {
        let request = HTTPRequest(head: HTTPRequestHead(method: "GET", target: "/rooms?mode=arena"))
        #expect(request.path == "/rooms")
        #expect(request.query == "mode=arena")
        #expect(HTTPRequest(head: HTTPRequestHead(target: "/rooms")).query == nil)
    }
}

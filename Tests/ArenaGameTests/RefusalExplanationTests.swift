import Testing
import Tickwire

@testable import ArenaGame

@Suite("RefusalExplanation: a server's refusal in words, with the limit and the flag that changes it")
struct RefusalExplanationTests {
    @Test(
        "the budgets a Tickwire server names read with their limit and the flag that changes them",
        arguments: [
            (
                WebSocketRefusal(status: 429, reasonPhrase: "Too Many Requests", budget: .addressConnectionLimit, limit: 64),
                "429 too many connections from one address (limit 64): spread with --source-addresses or raise --max-connections-per-address"
            ),
            (
                WebSocketRefusal(status: 429, reasonPhrase: "Too Many Requests", budget: .addressHandshakeLimit, limit: 16),
                "429 too many handshakes at once from one address (limit 16): spread with --source-addresses, ramp slower (--ramp) or raise --max-handshakes-per-address"
            ),
            (
                WebSocketRefusal(status: 503, reasonPhrase: "Service Unavailable", budget: .connectionLimit, limit: 320),
                "503 the server is at its connection limit (limit 320): raise it (arena serve allows --capacity × --max-rooms + 64)"
            ),
            (
                WebSocketRefusal(status: 503, reasonPhrase: "Service Unavailable", budget: .shuttingDown),
                "503 the server is shutting down"
            ),
            (
                WebSocketRefusal(status: 503, reasonPhrase: "Service Unavailable", budget: .handshakeEvicted, limit: 512),
                "503 the server's handshake places were full and this handshake was the oldest (limit 512): ramp slower (--ramp)"
            ),
        ]
    )
    func namedBudgets(refusal: WebSocketRefusal, expected: String) {
        #expect(RefusalExplanation(refusal: refusal).description == expected)
    }

    @Test("a status without a named budget reads by its status, with the server's words when it gave some")
    func statusesWithoutBudget() {
        let bare = RefusalExplanation(refusal: WebSocketRefusal(status: 429, reasonPhrase: "Too Many Requests"))
        #expect(bare.description == "429 too many requests from one address: spread with --source-addresses")
        #expect(bare.limit == nil)
        let worded = RefusalExplanation(refusal: WebSocketRefusal(status: 403, reasonPhrase: "Forbidden", body: "origin not allowed"))
        #expect(worded.description == "403 the server forbids this client (its origin or policy) (the server says: origin not allowed)")
        let teapot = RefusalExplanation(refusal: WebSocketRefusal(status: 418, reasonPhrase: "I'm a Teapot"))
        #expect(teapot.description == "418 i'm a teapot" && teapot.advice == nil)
        #expect(RefusalExplanation(refusal: WebSocketRefusal(status: 503, reasonPhrase: "")).meaning == "the server is unavailable")
    }

    @Test("close codes before the welcome read by the game's meaning; unknown codes keep the server's text")
    func closeCodes() throws {
        #expect(
            RefusalExplanation(closeCode: .idleTimeout, text: "").description
                == "close 4005 no hello reached the server within its hello timeout: the load generator may be overloaded: fewer --clients or more --drivers"
        )
        #expect(RefusalExplanation(closeCode: .roomFull, text: "").advice == "raise arena serve --capacity or spread over --rooms")
        let custom = try #require(CloseCode(rawValue: 4100))
        #expect(RefusalExplanation(closeCode: custom, text: "maintenance").description == "close 4100 closed with 4100: maintenance")
    }

    @Test("explanations are counted, listed, hinted with a source range that fits, and carried in the JSON")
    func countedAndReported() throws {
        var outcomes = ConnectionOutcomes()
        let limit = RefusalExplanation(
            refusal: WebSocketRefusal(status: 429, reasonPhrase: "Too Many Requests", budget: .addressConnectionLimit, limit: 10))
        for _ in 0..<3 { outcomes.recordRefusal(limit) }
        var other = ConnectionOutcomes()
        other.recordRefusal(RefusalExplanation(closeCode: .goingAway, text: ""))
        outcomes.merge(other)
        #expect(outcomes.explainedCount == 4)
        #expect(
            outcomes.explainedText
                == "429 too many connections from one address (limit 10): spread with --source-addresses or raise --max-connections-per-address ×3, close 1001 the server is shutting down ×1"
        )
        let hint = try #require(outcomes.hint(clients: 200, rooms: 4))
        #expect(hint.hasPrefix("hint: 3 attempts were refused with 429 too many connections from one address (limit 10)"), "\(hint)")
        #expect(hint.contains("`--source-addresses 127.0.0.2-127.0.0.41`"), "200 clients at 5 per address need 40 addresses: \(hint)")
        #expect(hint.contains("\nhint: 1 attempt was refused with close 1001 the server is shutting down"))
        let json = outcomes.jsonMembers(clients: 200, rooms: 4)
        #expect(
            json.contains(
                #""refusedBeforeHello":[{"kind":"http","status":429,"meaning":"too many connections from one address","limit":10,"advice":"spread with --source-addresses or raise --max-connections-per-address","count":3,"text":"429 too many connections from one address (limit 10): spread with --source-addresses or raise --max-connections-per-address"},{"kind":"close","closeCode":1001,"meaning":"the server is shutting down","limit":null,"advice":null,"count":1,"text":"close 1001 the server is shutting down"}]"#
            ), "\(json)")
    }
}
